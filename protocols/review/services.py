"""What a reviewer does on the review page: answer questions about evaluator items."""

from django.db import transaction

from annotations.services.task import TaskInputError, locked_open, touch
from protocols.review.models import ReviewAnswer, ReviewItem
from protocols.review.questions import answer_error, study_questions
from studies.spans import is_whole_number


@transaction.atomic
def review_answer_save(*, assignment, data):
    """Store (or replace) the reviewer's answers about one item of their document."""
    assignment = locked_open(assignment)
    item_id = data.get("item")
    item = (
        ReviewItem.objects.filter(pk=item_id, document_id=assignment.document_id).first()
        if is_whole_number(item_id)
        else None
    )
    if item is None:
        raise TaskInputError(f"item {item_id!r} is not an item of this document")
    # The study's rules (e.g. "No span given" only for an item without a span) are checked here,
    # so an inconsistent answer is refused whatever sends it.
    error = answer_error(study_questions(assignment.study), data.get("answers"), span_status=item.span_status)
    if error:
        raise TaskInputError(error)
    answer, _ = ReviewAnswer.objects.update_or_create(
        assignment=assignment, item=item, defaults={"answers": data["answers"]}
    )
    touch(assignment)
    return answer


def review_missing(assignment):
    """What is left before submitting: every single-choice question of every item."""
    required = [q["key"] for q in study_questions(assignment.study) if q["kind"] == "single"]
    answers = dict(assignment.review_answers.values_list("item_id", "answers"))
    items = ReviewItem.objects.filter(document_id=assignment.document_id).values_list("id", flat=True)
    left = sum(1 for item in items if any(answers.get(item, {}).get(key) in (None, "") for key in required))
    return f"answer every item before submitting ({left} left)" if left else ""
