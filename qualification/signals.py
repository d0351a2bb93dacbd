"""Receivers of the core's signals: score submitted work against gold."""

from .services import assignment_scored


def scored_on_submit(sender, assignment, **kwargs):
    """Qualification work and attention checks are scored in the submit's transaction."""
    assignment_scored(assignment=assignment)
