"""The span protocol's rows of the annotation table: one per error span, and one per
submitted assignment that found nothing (no_annotation true).

A study with questions about the whole document (config.document_questions) adds a
`document.<key>` column per question, repeated on every row of the assignment."""

from django.db.models import Exists, OuterRef

from accounts.pseudonyms import pseudonyms_of
from annotations.models import Assignment
from exports.rows import CHUNK, iso
from studies.assistance import arm_design

from .document_questions import answer_cell, study_questions
from .models import ErrorAnnotation, Suggestion, SuggestionDecision

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
    "active_seconds", "worker__platform", "worker__external_id", "arm",
]  # fmt: skip


# Assisted studies (docs/assisted-annotation.md) add these: the assignment's arm and, for a span taken
# from a suggestion, the decision; a rejected suggestion gets a row of its own (suggestion_action "reject").
ASSISTANCE_COLUMNS = ["arm", "suggestion", "suggestion_action", "decide_seconds"]
_DECISION_FIELDS = [
    "assignment__arm", "suggestion_decision__suggestion__position", "suggestion_decision__action",
    "suggestion_decision__seconds",
]  # fmt: skip
_REJECTED_FIELDS = [
    "assignment__document__external_id", "assignment__document__system", "suggestion__segment__index",
    "suggestion__text", "suggestion__start", "suggestion__end", "suggestion__category__key",
    "suggestion__paired_segment__index", "suggestion__paired_start", "suggestion__paired_end",
    "suggestion__paired_text", "assignment__worker_id", "assignment_id", "assignment__kind", "assignment__block",
    "decided_at", "assignment__submitted_at", "assignment__active_seconds", "assignment__arm",
    "suggestion__position", "seconds", "assignment__worker__platform", "assignment__worker__external_id",
]  # fmt: skip


def is_assisted(study):
    return arm_design(study) is not None or Suggestion.objects.filter(document__study=study).exists()


def span_columns(study):
    assisted = ASSISTANCE_COLUMNS if is_assisted(study) else []
    return COLUMNS + assisted + [DOCUMENT_PREFIX + question["key"] for question in study_questions(study)]


def _answer_cells(keys):
    """answers (a DocumentAnswer's, or None) -> the row's `document.<key>` cells."""
    return lambda answers: [answer_cell((answers or {}).get(key)) for key in keys]


def blank(value):
    return "" if value is None else value


def span_rows(study):
    submitted = Assignment.objects.filter(study=study, status=Assignment.Status.SUBMITTED)
    pseudonym = pseudonyms_of(study.pk)
    keys = [question["key"] for question in study_questions(study)]
    cells = _answer_cells(keys)
    # Without questions the query stays as it was: no join to the answers.
    answers_field = [f"assignment__{_ANSWERS_FIELD}"] if keys else []
    assisted = is_assisted(study)
    decision_fields = _DECISION_FIELDS if assisted else []

    annotations = (
        ErrorAnnotation.objects.filter(assignment__in=submitted)
        .order_by("assignment__document__position", "assignment_id", "segment__index", "start", "id")
        .values_list(*_ANNOTATION_FIELDS, *decision_fields, *answers_field)
    )
    for (document, system, segment, text, start, end, category, paired_segment, paired_start, paired_end,
         paired_text, comment, worker, assignment, kind, block, created, submitted_at, seconds, platform,
         external_id, *more) in annotations.iterator(chunk_size=CHUNK):  # fmt: skip
        row = [study.slug, document, system, segment, text, start, end, category,
               "" if paired_segment is None else paired_segment, "" if paired_start is None else paired_start,
               "" if paired_end is None else paired_end, paired_text, comment, pseudonym(worker), assignment,
               kind, block, iso(created), iso(submitted_at), seconds, False]  # fmt: skip
        if assisted:
            row += [blank(value) for value in more[:4]]
            more = more[4:]
        if keys:
            row += cells(more[0])
        yield row, (platform, external_id)

    if assisted:
        rejected = (
            SuggestionDecision.objects.filter(
                assignment__in=submitted, action=SuggestionDecision.Action.REJECT
            )
            .order_by("assignment__document__position", "assignment_id", "suggestion__position")
            .values_list(*_REJECTED_FIELDS, *answers_field)
        )
        for (document, system, segment, text, start, end, category, paired_segment, paired_start, paired_end,
             paired_text, worker, assignment, kind, block, decided, submitted_at, seconds, arm, position, took,
             platform, external_id, *answers) in rejected.iterator(chunk_size=CHUNK):  # fmt: skip
            row = [study.slug, document, system, segment, text, start, end, category, blank(paired_segment),
                   blank(paired_start), blank(paired_end), paired_text, "", pseudonym(worker), assignment, kind,
                   block, iso(decided), iso(submitted_at), seconds, False, arm, position, "reject", took]  # fmt: skip
            if keys:
                row += cells(answers[0])
            yield row, (platform, external_id)

    found_nothing = (
        submitted.filter(~Exists(ErrorAnnotation.objects.filter(assignment=OuterRef("pk"))))
        .order_by("document__position", "id")
        .values_list(*_EMPTY_FIELDS, *([_ANSWERS_FIELD] if keys else []))
    )
    for (document, system, worker, assignment, kind, block, submitted_at, seconds, platform, external_id, arm,
         *answers) in found_nothing.iterator(chunk_size=CHUNK):  # fmt: skip
        row = [study.slug, document, system, "", "", "", "", "", "", "", "", "", "", pseudonym(worker),
               assignment, kind, block, "", iso(submitted_at), seconds, True]  # fmt: skip
        if assisted:
            row += [arm, "", "", ""]
        if keys:
            row += cells(answers[0])
        yield row, (platform, external_id)


def span_row_count(study):
    submitted = Assignment.objects.filter(study=study, status=Assignment.Status.SUBMITTED)
    annotations = ErrorAnnotation.objects.filter(assignment__in=submitted).count()
    empty = submitted.filter(~Exists(ErrorAnnotation.objects.filter(assignment=OuterRef("pk")))).count()
    rejected = SuggestionDecision.objects.filter(
        assignment__in=submitted, action=SuggestionDecision.Action.REJECT
    ).count()
    return annotations + empty + rejected


_INT_COLUMNS = [
    "segment", "start", "end", "paired_segment", "paired_start", "paired_end", "assignment", "active_seconds",
]  # fmt: skip


def span_types(study):
    """Typed columns for Parquet: offsets, ids and seconds are ints, no_annotation a bool, the answer
    to a likert question about the document an int (empty cells are nulls)."""
    types = dict.fromkeys(_INT_COLUMNS, "int") | {"no_annotation": "bool"}
    if is_assisted(study):
        types |= {"suggestion": "int", "decide_seconds": "float"}
    for question in study_questions(study):
        if question["kind"] == "likert":
            types[DOCUMENT_PREFIX + question["key"]] = "int"
    return types
