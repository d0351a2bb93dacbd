"""A qualification round taken through the join link is one task, however many documents it has.

The candidate joins once; each submit of a qualification document creates the
assignment of their next one (same worker, same crowd platform ids: Prolific's
SESSION_ID, Mechanical Turk's assignmentId) and their page goes straight on
to it. Only the last submit shows a completion code, and it is the code of
their first document: one code, one platform submission for the whole round.
Each document stays its own assignment, scored against gold on its own submit.
"""

from django.db import transaction

from annotations.models import OPEN_STATUSES, Assignment
from qualification.models import Qualification
from studies.models import Document

from .pools import worker_locked


def in_round(assignment):
    """Is this a candidate's document of a qualification round, taken through the join link?"""
    return (
        assignment.kind == Assignment.Kind.QUALIFICATION
        and assignment.joined
        and Qualification.objects.filter(study_id=assignment.study_id).exists()
    )


def _round_of(assignment):
    """The candidate's joined qualification assignments of this study, in the order they got them."""
    return Assignment.objects.filter(
        study_id=assignment.study_id, worker_id=assignment.worker_id,
        kind=Assignment.Kind.QUALIFICATION, joined=True,
    ).order_by("created_at", "id")  # fmt: skip


def round_completion_code(assignment):
    """The code already given for this round (its first submitted document's), or None for the first."""
    return (
        _round_of(assignment)
        .filter(status=Assignment.Status.SUBMITTED)
        .exclude(pk=assignment.pk)
        .exclude(completion_code="")
        .values_list("completion_code", flat=True)
        .first()
    )


def round_next(assignment):
    """The candidate's open document of the round after `assignment` was submitted, or None."""
    if assignment.status != Assignment.Status.SUBMITTED or not in_round(assignment):
        return None
    return _round_of(assignment).filter(status__in=OPEN_STATUSES).first()


def round_progress(assignment):
    """(n, of): this is the candidate's n-th document of the round's `of`; None outside a round."""
    if not in_round(assignment):
        return None
    total = assignment.study.documents.filter(kind=Document.Kind.QUALIFICATION).with_text().count()
    position = _round_of(assignment).filter(pk__lte=assignment.pk).count()
    return position, max(total, position)


# No savepoint: only the submit calls it, inside its transaction, and a failure fails the submit.
@transaction.atomic(savepoint=False)
def round_continue(*, assignment):
    """After a submit: the candidate's next document of the round (created now), or None after the last.

    Runs under the worker's row lock, as joins do, so a join link opened at
    the same moment cannot create the same next assignment a second time.
    """
    if not in_round(assignment):
        return None
    worker_locked(assignment.worker)
    mine = _round_of(assignment)
    current = mine.filter(status__in=OPEN_STATUSES).first()
    if current is not None:
        return current
    had = set(
        Assignment.objects.filter(
            study_id=assignment.study_id, worker_id=assignment.worker_id, kind=Assignment.Kind.QUALIFICATION
        ).values_list("document_id", flat=True)
    )
    documents = (
        assignment.study.documents.filter(kind=Document.Kind.QUALIFICATION)
        .with_text()
        .order_by("position", "id")
    )
    document_id = next((pk for pk in documents.values_list("id", flat=True) if pk not in had), None)
    if document_id is None:
        return None
    return Assignment.objects.create(
        study_id=assignment.study_id, document_id=document_id, worker_id=assignment.worker_id,
        kind=Assignment.Kind.QUALIFICATION, joined=True, platform_ids=assignment.platform_ids,
    )  # fmt: skip
