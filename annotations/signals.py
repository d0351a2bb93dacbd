"""What the core tells the apps above it, without importing them."""

from django.dispatch import Signal

# Sent inside the submit's transaction with `assignment`, once it is marked submitted.
assignment_submitted = Signal()

# Sent inside the transaction that closed `study` by its stopping rule (`rule`, `note` in words):
# annotations/services/stopping.study_stop. The crowd app stops the study's listings.
study_stopped = Signal()
