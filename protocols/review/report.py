"""Read a review study out of the database for reports.metrics.reviews."""

from accounts.pseudonyms import pseudonyms_of
from annotations.models import Assignment
from protocols.review.models import ReviewAnswer, ReviewItem
from protocols.review.questions import study_questions
from reports.metrics.reviews import ReviewAnswerRow, ReviewedItem, review_report


def review_report_for(study):
    items = [
        ReviewedItem(id=pk, evaluator=evaluator, span_status=status)
        for pk, evaluator, status in ReviewItem.objects.filter(document__study=study).values_list(
            "id", "evaluator", "span_status"
        )
    ]
    reviewer_of = pseudonyms_of(study.pk)  # reports name annotators by pseudonym only
    answers = [
        ReviewAnswerRow(reviewer=reviewer_of(worker), item=item, answers=given)
        for worker, item, given in ReviewAnswer.objects.filter(
            assignment__study=study, assignment__status=Assignment.Status.SUBMITTED
        ).values_list("assignment__worker_id", "item_id", "answers")
    ]
    return review_report(items, answers, study_questions(study))
