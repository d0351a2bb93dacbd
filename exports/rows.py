"""The flat annotation table (one row per error annotation, plus one per submitted
assignment that found nothing), read in chunks so memory stays flat at any size."""

import csv
import json

from django.db.models import Exists, OuterRef

from accounts.pseudonyms import annotator_pseudonym
from annotations.models import Assignment, ErrorAnnotation, ReviewAnswer
from studies.review_questions import study_questions

from .spreadsheet import spreadsheet_safe

CHUNK = 5000
COLUMNS = [
    "study", "document", "system", "segment", "span_text", "start", "end", "category",
    "paired_segment", "paired_start", "paired_end", "paired_text", "comment", "annotator",
    "assignment", "kind", "block", "created_at", "submitted_at", "active_seconds", "no_annotation",
]  # fmt: skip
PLATFORM_COLUMNS = ["worker_platform", "worker_external_id"]

_ANNOTATION_FIELDS = [
    "assignment__document__external_id", "assignment__document__system", "segment__index", "text",
    "start", "end", "category__key", "paired_segment__index", "paired_start", "paired_end",
    "paired_text", "comment", "assignment__worker_id", "assignment_id", "assignment__kind",
    "assignment__block", "created_at", "assignment__submitted_at", "assignment__active_seconds",
    "assignment__worker__platform", "assignment__worker__external_id",
]  # fmt: skip
_EMPTY_FIELDS = [
    "document__external_id", "document__system", "worker_id", "id", "kind", "block", "submitted_at",
    "active_seconds", "worker__platform", "worker__external_id",
]  # fmt: skip


REVIEW_COLUMNS = [
    "study", "document", "item", "evaluator", "evaluator_label", "span_text", "span_status", "explanation",
    "reviewer", "assignment", "kind", "submitted_at",
]  # fmt: skip


# Answers sit under their own prefix, so no question key (a study may name one "explanation",
# like the default questions do) can take the name of a fixed column.
ANSWER_PREFIX = "answer."


def columns(with_platform_ids, study=None):
    if study is not None and study.protocol == "review":
        answers = [ANSWER_PREFIX + question["key"] for question in study_questions(study)]
        return REVIEW_COLUMNS + answers + (PLATFORM_COLUMNS if with_platform_ids else [])
    return COLUMNS + (PLATFORM_COLUMNS if with_platform_ids else [])


def review_rows(study, *, with_platform_ids=False):
    """One row per (item, reviewer) with every answer in its `answer.<key>` column (multi-choice
    answers joined by "; ")."""
    keys = [question["key"] for question in study_questions(study)]
    answers = (
        ReviewAnswer.objects.filter(assignment__study=study, assignment__status=Assignment.Status.SUBMITTED)
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
               annotator_pseudonym(study.pk, worker), assignment, kind, _iso(submitted_at), *values]  # fmt: skip
        yield row + ([platform, external_id] if with_platform_ids else [])


def _iso(moment):
    return moment.isoformat() if moment else ""


def annotation_rows(study, *, with_platform_ids=False):
    """Yield one list per row, in `columns(with_platform_ids, study)` order."""
    if study.protocol == "review":
        yield from review_rows(study, with_platform_ids=with_platform_ids)
        return
    submitted = Assignment.objects.filter(study=study, status=Assignment.Status.SUBMITTED)
    pseudonyms = {}

    def pseudonym(worker_pk):
        if worker_pk not in pseudonyms:
            pseudonyms[worker_pk] = annotator_pseudonym(study.pk, worker_pk)
        return pseudonyms[worker_pk]

    annotations = (
        ErrorAnnotation.objects.filter(assignment__in=submitted)
        .order_by("assignment__document__position", "assignment_id", "segment__index", "start", "id")
        .values_list(*_ANNOTATION_FIELDS)
    )
    for (document, system, segment, text, start, end, category, paired_segment, paired_start, paired_end,
         paired_text, comment, worker, assignment, kind, block, created, submitted_at, seconds, platform,
         external_id) in annotations.iterator(chunk_size=CHUNK):  # fmt: skip
        row = [study.slug, document, system, segment, text, start, end, category,
               "" if paired_segment is None else paired_segment, "" if paired_start is None else paired_start,
               "" if paired_end is None else paired_end, paired_text, comment, pseudonym(worker), assignment,
               kind, block, _iso(created), _iso(submitted_at), seconds, False]  # fmt: skip
        yield row + ([platform, external_id] if with_platform_ids else [])

    found_nothing = submitted.filter(~Exists(ErrorAnnotation.objects.filter(assignment=OuterRef("pk"))))
    for document, system, worker, assignment, kind, block, submitted_at, seconds, platform, external_id in (
        found_nothing.order_by("document__position", "id")
        .values_list(*_EMPTY_FIELDS)
        .iterator(chunk_size=CHUNK)
    ):
        row = [study.slug, document, system, "", "", "", "", "", "", "", "", "", "", pseudonym(worker),
               assignment, kind, block, "", _iso(submitted_at), seconds, True]  # fmt: skip
        yield row + ([platform, external_id] if with_platform_ids else [])


class _Line:
    """A file-like object whose write returns the line, for csv.writer in a generator."""

    def write(self, text):
        return text


def csv_lines(study, *, with_platform_ids=False):
    """The table as CSV, text that a spreadsheet would run as a formula quoted (exports/spreadsheet.py)."""
    writer = csv.writer(_Line())
    yield writer.writerow(columns(with_platform_ids, study))
    batch = []
    for row in annotation_rows(study, with_platform_ids=with_platform_ids):
        batch.append(writer.writerow([spreadsheet_safe(value) for value in row]))
        if len(batch) == 1000:  # fewer, larger chunks for the response
            yield "".join(batch)
            batch = []
    if batch:
        yield "".join(batch)


def jsonl_lines(study, *, with_platform_ids=False):
    names = columns(with_platform_ids, study)
    batch = []
    for row in annotation_rows(study, with_platform_ids=with_platform_ids):
        batch.append(json.dumps(dict(zip(names, row, strict=True)), ensure_ascii=False) + "\n")
        if len(batch) == 1000:
            yield "".join(batch)
            batch = []
    if batch:
        yield "".join(batch)


def row_count(study):
    if study.protocol == "review":
        return ReviewAnswer.objects.filter(
            assignment__study=study, assignment__status=Assignment.Status.SUBMITTED
        ).count()
    submitted = Assignment.objects.filter(study=study, status=Assignment.Status.SUBMITTED)
    annotations = ErrorAnnotation.objects.filter(assignment__in=submitted).count()
    empty = submitted.filter(~Exists(ErrorAnnotation.objects.filter(assignment=OuterRef("pk")))).count()
    return annotations + empty
