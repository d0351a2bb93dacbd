"""The flat annotation table, read in chunks so memory stays flat at any size.

Span studies: one row per error annotation, plus one per submitted assignment that found
nothing. Review studies: one row per (item, reviewer). Likert: one row per rating. BWS: one
row per best-worst judgment. Only submitted assignments are exported."""

import csv
import json

from django.db.models import Exists, OuterRef

from accounts.pseudonyms import annotator_pseudonym, pseudonyms_of
from annotations.models import Assignment, BestWorstJudgment, ErrorAnnotation, Rating, ReviewAnswer
from studies.models import Document
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


LIKERT_COLUMNS = [
    "study", "document", "system", "input_id", "block", "score", "annotator", "assignment", "kind",
    "submitted_at", "active_seconds",
]  # fmt: skip
BWS_COLUMNS = [
    "study", "block", "tuple", "documents", "best", "worst", "value", "best_system", "worst_system",
    "annotator", "assignment", "kind", "submitted_at", "active_seconds",
]  # fmt: skip
_ASSIGNMENT_FIELDS = [
    "assignment__worker_id", "assignment_id", "assignment__kind", "assignment__submitted_at",
    "assignment__active_seconds", "assignment__worker__platform", "assignment__worker__external_id",
]  # fmt: skip
_LIKERT_FIELDS = [
    "document__external_id", "document__system", "document__input_id", "assignment__block", "score",
    *_ASSIGNMENT_FIELDS,
]  # fmt: skip
_BWS_FIELDS = [
    "assignment__block", "position", "documents", "best__external_id", "worst__external_id", "value",
    "best__system", "worst__system", *_ASSIGNMENT_FIELDS,
]  # fmt: skip
# A tuple's documents in one cell (the same string in CSV and JSON Lines, so both keep one column set).
DOCUMENT_SEPARATOR = "; "


# Answers sit under their own prefix, so no question key (a study may name one "explanation",
# like the default questions do) can take the name of a fixed column.
ANSWER_PREFIX = "answer."


def columns(with_platform_ids, study=None):
    platform = PLATFORM_COLUMNS if with_platform_ids else []
    protocol = study.protocol if study is not None else None
    if protocol == "review":
        answers = [ANSWER_PREFIX + question["key"] for question in study_questions(study)]
        return REVIEW_COLUMNS + answers + platform
    if protocol == "likert":
        return LIKERT_COLUMNS + platform
    if protocol == "bws":
        return BWS_COLUMNS + platform
    return COLUMNS + platform


def _submitted(model, study):
    return model.objects.filter(assignment__study=study, assignment__status=Assignment.Status.SUBMITTED)


def likert_rows(study, *, with_platform_ids=False):
    """One row per rating of a submitted assignment, by block, assignment and document."""
    pseudonym = pseudonyms_of(study.pk)
    ratings = (
        _submitted(Rating, study)
        .order_by("assignment__block", "assignment_id", "document__position", "id")
        .values_list(*_LIKERT_FIELDS)
    )
    for (document, system, input_id, block, score, worker, assignment, kind, submitted_at, seconds, platform,
         external_id) in ratings.iterator(chunk_size=CHUNK):  # fmt: skip
        row = [study.slug, document, system, input_id, block, score, pseudonym(worker), assignment, kind,
               _iso(submitted_at), seconds]  # fmt: skip
        yield row + ([platform, external_id] if with_platform_ids else [])


class _BlockDocuments:
    """External ids of document pks, one block's documents at a time (the rows come by block),
    so memory stays bounded by the largest block rather than the study."""

    def __init__(self, study):
        self.study, self.block, self.known = study, None, {}

    def external_ids(self, block, pks):
        if block != self.block:
            self.block = block
            self.known = dict(
                Document.objects.filter(study=self.study, block=block).values_list("id", "external_id")
            )
        missing = [pk for pk in pks if pk not in self.known]
        if missing:  # a tuple should hold only its block's documents; still, never drop one
            self.known.update(Document.objects.filter(pk__in=missing).values_list("id", "external_id"))
        return [self.known.get(pk, "") for pk in pks]


def bws_rows(study, *, with_platform_ids=False):
    """One row per best-worst judgment of a submitted assignment, by block, assignment and tuple."""
    pseudonym = pseudonyms_of(study.pk)
    documents = _BlockDocuments(study)
    judgments = (
        _submitted(BestWorstJudgment, study)
        .order_by("assignment__block", "assignment_id", "position", "id")
        .values_list(*_BWS_FIELDS)
    )
    for (block, position, tuple_pks, best, worst, value, best_system, worst_system, worker, assignment, kind,
         submitted_at, seconds, platform, external_id) in judgments.iterator(chunk_size=CHUNK):  # fmt: skip
        members = DOCUMENT_SEPARATOR.join(documents.external_ids(block, tuple_pks))
        row = [study.slug, block, position, members, best, worst, "" if value is None else value, best_system,
               worst_system, pseudonym(worker), assignment, kind, _iso(submitted_at), seconds]  # fmt: skip
        yield row + ([platform, external_id] if with_platform_ids else [])


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
    rows_of = {"review": review_rows, "likert": likert_rows, "bws": bws_rows}.get(study.protocol)
    if rows_of is not None:
        yield from rows_of(study, with_platform_ids=with_platform_ids)
        return
    submitted = Assignment.objects.filter(study=study, status=Assignment.Status.SUBMITTED)
    pseudonym = pseudonyms_of(study.pk)

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
    """How many rows `annotation_rows` yields (it decides streaming or a background job)."""
    model = {"review": ReviewAnswer, "likert": Rating, "bws": BestWorstJudgment}.get(study.protocol)
    if model is not None:
        return _submitted(model, study).count()
    submitted = Assignment.objects.filter(study=study, status=Assignment.Status.SUBMITTED)
    annotations = ErrorAnnotation.objects.filter(assignment__in=submitted).count()
    empty = submitted.filter(~Exists(ErrorAnnotation.objects.filter(assignment=OuterRef("pk")))).count()
    return annotations + empty
