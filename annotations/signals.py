"""What the core tells the apps above it, without importing them."""

from django.dispatch import Signal

# Sent inside the submit's transaction with `assignment`, once it is marked submitted.
assignment_submitted = Signal()
