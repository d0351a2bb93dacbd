"""The review protocol's rows of the annotation table: a row per (item, reviewer)."""

from accounts.pseudonyms import annotator_pseudonym
from exports.rows import CHUNK, iso, submitted_rows

from .models import ReviewAnswer
from .questions import study_questions

REVIEW_COLUMNS = [
    "study", "document", "item", "evaluator", "evaluator_label", "span_text", "span_status", "explanation",
    "reviewer", "assignment", "kind", "submitted_at",
]  # fmt: skip


# Answers sit under their own prefix, so no question key (a study may name one "explanation",
# like the default questions do) can take the name of a fixed column.
ANSWER_PREFIX = "answer."


def review_columns(study):
    return REVIEW_COLUMNS + [ANSWER_PREFIX + question["key"] for question in study_questions(study)]


def review_rows(study):
    """One row per (item, reviewer) with every answer in its `answer.<key>` column (multi-choice
    answers joined by "; ")."""
    keys = [question["key"] for question in study_questions(study)]
    answers = (
        submitted_rows(ReviewAnswer, study)
        .order_by("item__document__position", "item__position", "assignment_id")
        .values_list(
            "item__document__external_id",
            "item__position",
            "item__evaluator",
            "item__label",
            "item__span_text",
            "item__span_status",
            "item__explanation",
            "assignment__worker_id",
            "assignment_id",
            "assignment__kind",
            "assignment__submitted_at",
            "answers",
            "assignment__worker__platform",
            "assignment__worker__external_id",
        )  # fmt: skip
    )
    for (document, position, evaluator, label, span, status, explanation, worker, assignment, kind, submitted_at,
         given, platform, external_id) in answers.iterator(chunk_size=CHUNK):  # fmt: skip
        values = ["; ".join(v) if isinstance(v := given.get(key, ""), list) else v for key in keys]
        row = [study.slug, document, position, evaluator, label, span, status, explanation,
               annotator_pseudonym(study.pk, worker), assignment, kind, iso(submitted_at), *values]  # fmt: skip
        yield row, (platform, external_id)


def review_row_count(study):
    return submitted_rows(ReviewAnswer, study).count()
