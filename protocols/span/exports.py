"""The span protocol's rows of the annotation table: one per error span, and one per
submitted assignment that found nothing (no_annotation true).

A study with questions about the whole document (config.document_questions) adds a
`document.<key>` column per question, repeated on every row of the assignment."""

from django.db.models import Exists, OuterRef

from accounts.pseudonyms import pseudonyms_of
from annotations.models import Assignment
from exports.rows import CHUNK, iso

from .document_questions import answer_cell, study_questions
from .models import ErrorAnnotation

COLUMNS = [
    "study", "document", "system", "segment", "span_text", "start", "end", "category",
    "paired_segment", "paired_start", "paired_end", "paired_text", "comment", "annotator",
    "assignment", "kind", "block", "created_at", "submitted_at", "active_seconds", "no_annotation",
]  # fmt: skip
_ANNOTATION_FIELDS = [
    "assignment__document__external_id", "assignment__document__system", "segment__index", "text",
    "start", "end", "category__key", "paired_segment__index", "paired_start", "paired_end",
    "paired_text", "comment", "assignment__worker_id", "assignment_id", "assignment__kind",
    "assignment__block", "created_at", "assignment__submitted_at", "assignment__active_seconds",
    "assignment__worker__platform", "assignment__worker__external_id",
]  # fmt: skip
# The prefix keeps a question key from taking a fixed column's name (a question "comment").
DOCUMENT_PREFIX = "document."
_ANSWERS_FIELD = "document_answer__answers"
_EMPTY_FIELDS = [
    "document__external_id", "document__system", "worker_id", "id", "kind", "block", "submitted_at",
    "active_seconds", "worker__platform", "worker__external_id",
]  # fmt: skip


def span_columns(study):
    return COLUMNS + [DOCUMENT_PREFIX + question["key"] for question in study_questions(study)]


def _answer_cells(keys):
    """answers (a DocumentAnswer's, or None) -> the row's `document.<key>` cells."""
    return lambda answers: [answer_cell((answers or {}).get(key)) for key in keys]


def span_rows(study):
    submitted = Assignment.objects.filter(study=study, status=Assignment.Status.SUBMITTED)
    pseudonym = pseudonyms_of(study.pk)
    keys = [question["key"] for question in study_questions(study)]
    cells = _answer_cells(keys)
    # Without questions the query stays as it was: no join to the answers.
    answers_field = [f"assignment__{_ANSWERS_FIELD}"] if keys else []

    annotations = (
        ErrorAnnotation.objects.filter(assignment__in=submitted)
        .order_by("assignment__document__position", "assignment_id", "segment__index", "start", "id")
        .values_list(*_ANNOTATION_FIELDS, *answers_field)
    )
    for (document, system, segment, text, start, end, category, paired_segment, paired_start, paired_end,
         paired_text, comment, worker, assignment, kind, block, created, submitted_at, seconds, platform,
         external_id, *answers) in annotations.iterator(chunk_size=CHUNK):  # fmt: skip
        row = [study.slug, document, system, segment, text, start, end, category,
               "" if paired_segment is None else paired_segment, "" if paired_start is None else paired_start,
               "" if paired_end is None else paired_end, paired_text, comment, pseudonym(worker), assignment,
               kind, block, iso(created), iso(submitted_at), seconds, False]  # fmt: skip
        if keys:
            row += cells(answers[0])
        yield row, (platform, external_id)

    found_nothing = (
        submitted.filter(~Exists(ErrorAnnotation.objects.filter(assignment=OuterRef("pk"))))
        .order_by("document__position", "id")
        .values_list(*_EMPTY_FIELDS, *([_ANSWERS_FIELD] if keys else []))
    )
    for (document, system, worker, assignment, kind, block, submitted_at, seconds, platform, external_id,
         *answers) in found_nothing.iterator(chunk_size=CHUNK):  # fmt: skip
        row = [study.slug, document, system, "", "", "", "", "", "", "", "", "", "", pseudonym(worker),
               assignment, kind, block, "", iso(submitted_at), seconds, True]  # fmt: skip
        if keys:
            row += cells(answers[0])
        yield row, (platform, external_id)


def span_row_count(study):
    submitted = Assignment.objects.filter(study=study, status=Assignment.Status.SUBMITTED)
    annotations = ErrorAnnotation.objects.filter(assignment__in=submitted).count()
    empty = submitted.filter(~Exists(ErrorAnnotation.objects.filter(assignment=OuterRef("pk")))).count()
    return annotations + empty
