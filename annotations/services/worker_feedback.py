"""The worker's free-text note to the researchers, written on any protocol's task page."""

from django.db import transaction

from annotations.models import WORKER_FEEDBACK_MAX_CHARS, Assignment
from falte_site.json_input import JSONInputError, check_json_value

from .opening import assignment_opened_or_refused
from .task import TaskInputError


@transaction.atomic
def assignment_save_feedback(*, token, text):
    """Store `text` as the assignment's worker feedback, replacing what was there.

    The page sends the whole text after each pause in typing, so the last text
    wins and a repeated request changes nothing. An empty text clears it. Like
    every other write it is refused once the assignment is submitted or
    released (TaskClosed). BEGIN, the opening UPDATE (opening.py), one UPDATE
    of the text, COMMIT.
    """
    if not isinstance(text, str):
        raise TaskInputError("'text' must be text")
    if len(text) > WORKER_FEEDBACK_MAX_CHARS:
        raise TaskInputError(
            f"the feedback is {len(text):,} characters long; at most {WORKER_FEEDBACK_MAX_CHARS:,} fit"
        )
    try:
        # The API's JSON reader refuses these already; a caller from elsewhere must not store them either.
        check_json_value(text)
    except JSONInputError as problem:
        raise TaskInputError(f"the feedback: {problem}") from None
    assignment = assignment_opened_or_refused(token=token).assignment
    Assignment.objects.filter(pk=assignment.pk).update(worker_feedback=text)
    assignment.worker_feedback = text
    return assignment
