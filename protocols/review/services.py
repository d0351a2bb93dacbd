"""What a reviewer does on the review page: answer questions about evaluator items."""

from django.db import transaction
from django.db.models import OuterRef, Q

from annotations.services.opening import assignment_column, assignment_opened_or_refused, column, table
from annotations.services.row_statements import upsert
from annotations.services.task import TaskInputError, row_count, rows_at_least
from protocols.review.models import ReviewAnswer, ReviewItem
from protocols.review.questions import answer_error, study_questions
from studies.spans import is_whole_number

# The largest id an item may have (a BigAutoField); a larger number names none and must not reach PostgreSQL.
MAX_ID = 2**63 - 1


def _item_read():
    """Read of the opening UPDATE: the span status of the item with the id given, of the assignment's document."""
    return (
        f"(SELECT i.{column(ReviewItem, 'span_status')} FROM {table(ReviewItem)} i"  # noqa: S608
        f" WHERE i.{column(ReviewItem, 'id')} = %s AND i.{column(ReviewItem, 'document')} = {assignment_column('document')})"
    )


@transaction.atomic
def review_answer_save(*, token, data):
    """Store (or replace) the reviewer's answers about one item of their document.

    BEGIN, the opening UPDATE (annotations.services.opening, which also reads
    the item), one UPSERT, COMMIT."""
    item_id = data.get("item")
    known = is_whole_number(item_id) and 0 < item_id <= MAX_ID
    opened = assignment_opened_or_refused(
        token=token, reads=[_item_read()], params=[item_id if known else None]
    )
    assignment, (span_status,) = opened.assignment, opened.reads
    if span_status is None:
        raise TaskInputError(f"item {item_id!r} is not an item of this document")
    # The study's rules (e.g. "No span given" only for an item without a span) are checked here,
    # so an inconsistent answer is refused whatever sends it.
    error = answer_error(study_questions(assignment.study), data.get("answers"), span_status=span_status)
    if error:
        raise TaskInputError(error)
    answer = ReviewAnswer(assignment=assignment, item_id=item_id, answers=data["answers"])
    upsert(answer, unique=("assignment", "item"), update=("answers", "updated_at"))
    return answer


def review_complete(assignment):
    """For submit's UPDATE, the condition under which review_missing finds nothing left: as many
    answer rows as the document has items, each with every single-choice question answered (not
    missing, null or empty). The answer API stores answers only on the document's own items, one
    row an item, so the count says every item is answered."""
    required = [q["key"] for q in study_questions(assignment.study) if q["kind"] == "single"]
    if not required:
        return Q()  # nothing is required: review_missing never finds anything left
    answered = ReviewAnswer.objects.filter(assignment=OuterRef("pk"))
    for key in required:
        # Excluding a JSON null also excludes a key left out (tested on SQLite and PostgreSQL).
        answered = answered.exclude(**{f"answers__{key}": None}).exclude(**{f"answers__{key}": ""})
    items = row_count(ReviewItem.objects.filter(document_id=OuterRef("document_id")), "document_id")
    return rows_at_least(answered, items)


def review_missing(assignment):
    """What is left before submitting: every single-choice question of every item."""
    required = [q["key"] for q in study_questions(assignment.study) if q["kind"] == "single"]
    answers = dict(assignment.review_answers.values_list("item_id", "answers"))
    items = ReviewItem.objects.filter(document_id=assignment.document_id).values_list("id", flat=True)
    left = sum(1 for item in items if any(answers.get(item, {}).get(key) in (None, "") for key in required))
    return f"answer every item before submitting ({left} left)" if left else ""
