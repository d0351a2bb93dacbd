"""Why a task page's write is refused: no such assignment, or one that takes no changes now. Its
own module so that opening.py (the one UPDATE that opens an assignment) and task.py (which opens
through it) both read it without importing each other."""

from django.utils import timezone

from annotations.models import Assignment


class TaskClosed(Exception):
    """The assignment no longer takes changes: submitted or released (HTTP 409)."""


class TaskNotFound(Exception):
    """No assignment has this token (HTTP 404); raised by writes that find the assignment themselves."""


def closed_reason(assignment):
    """Why the assignment takes no changes now (the 409's message), or None when it does."""
    if assignment.status == Assignment.Status.SUBMITTED:
        return "This assignment is already submitted; it can no longer change."
    if assignment.available_from is not None and assignment.available_from > timezone.now():
        return f"This retest opens on {assignment.available_from:%Y-%m-%d %H:%M} UTC."
    if assignment.status == Assignment.Status.RELEASED:
        return (
            "This assignment was released after a long time without activity; "
            "what you saved is kept, but it can no longer change."
        )
    return None
