"""The suggestion arm's writes: decide on a suggestion, or take the decision back.

Taking a suggestion stores an ordinary error annotation (the same checks and
the same idempotent client id as the page's own adds) and the decision in one
transaction, with the assignment row locked. The action is read from what was
stored, not from the button pressed: the same span and category is "accept",
another category "change", other boundaries "adjust".

Each write opens the assignment with the task API's opening UPDATE
(annotations.services.opening), which also reads the suggestion named, only
if the assignment's page shows it, and for a taken span the category and
segments it names; then it writes its rows with one statement each:

- reject: BEGIN, the opening UPDATE, one INSERT of the decision, COMMIT;
- accept, change, adjust: BEGIN, the opening UPDATE, one INSERT of the
  annotation, one INSERT of the decision (two rows), COMMIT;
- undo: BEGIN, the opening UPDATE, one DELETE of the decision (and for a
  taken span one DELETE of its annotation), COMMIT.

The INSERTs are `ON CONFLICT DO NOTHING` on the unique (assignment, client_id)
of annotations and (assignment, suggestion) of decisions, so a retried
request stores nothing twice, and the check that no other decision stands is
the INSERT itself, which runs after the row lock and so sees a decision taken
in another tab. The opening UPDATE also reads whether a decision stands: when
one does (a retry, or another decision), the stored decision is read after the
lock in place of the INSERTs (BEGIN, the UPDATE, that SELECT, COMMIT); that
read is only a hint (its snapshot may predate the lock), so the INSERT's
conflict still decides when it misses. A refused body reads the stored
decision too (one SELECT more). The suggestion is read by the opening UPDATE,
whose snapshot on PostgreSQL may predate the lock: suggestions change only
while no worker has decided on any (sources.suggestions_replace), never
under a worker's hands.
"""

from django.db import connection, transaction

from annotations.models import Assignment
from annotations.services.opening import (
    assignment_column,
    assignment_opened_or_refused,
    column,
    document_segment,
    index_param,
    study_category,
    table,
)
from annotations.services.row_statements import insert_unless_stored
from annotations.services.task import TaskInputError, furthest_segment
from studies.models import Category, Document, Segment

from ..models import ErrorAnnotation, Suggestion, SuggestionDecision
from ..save_statements import OpenedForSave
from ..services import checked_annotation
from . import SUGGESTIONS

MAX_DECIDE_SECONDS = 24 * 3600
MAX_ID = 2**63 - 1  # a BigAutoField holds no more; a larger id names no suggestion
NO_SUCH_SUGGESTION = "no such suggestion on this page"


class DecisionConflict(TaskInputError):
    """The suggestion is decided already, otherwise: take that decision back first."""


def action_of(suggested, taken):
    """accept, change or adjust: what a taken span is, compared with its suggestion.

    Both are (category, segment, start, end, paired) with paired (segment, start,
    end) or None; shared by the task API and the bundle import."""
    category, *span, paired = suggested
    taken_category, *taken_span, taken_paired = taken
    if taken_span != span or (taken_paired is not None and taken_paired != paired):
        return SuggestionDecision.Action.ADJUST
    if taken_category != category:
        return SuggestionDecision.Action.CHANGE
    return SuggestionDecision.Action.ACCEPT


def _shape(row):
    paired = (
        None if row.paired_segment_id is None else (row.paired_segment_id, row.paired_start, row.paired_end)
    )
    return (row.category_id, row.segment_id, row.start, row.end, paired)


def _seconds(data):
    seconds = data.get("seconds")
    if (
        isinstance(seconds, bool)
        or not isinstance(seconds, int | float)
        or not 0 <= seconds <= MAX_DECIDE_SECONDS
    ):
        raise TaskInputError(f"'seconds' must be a number from 0 to {MAX_DECIDE_SECONDS}")
    return float(seconds)


def _suggestion_shown(name):
    """Read: column `name` of the suggestion whose id is the parameter, only if it is of the
    assignment's document and that document is a main one (the kind is the second parameter);
    `name` may be `segment_index`, the index of the suggestion's segment. Whether the assignment's
    own arm and kind show suggestions is read from its row (`_shows_suggestions`)."""
    if name == "segment_index":
        selected, joined = (
            f"g.{column(Segment, 'index')}",
            (f" JOIN {table(Segment)} g ON g.{column(Segment, 'id')} = x.{column(Suggestion, 'segment')}"),
        )
    else:
        selected, joined = f"x.{column(Suggestion, name)}", ""
    return (
        f"(SELECT {selected} FROM {table(Suggestion)} x"  # noqa: S608
        f" JOIN {table(Document)} d ON d.{column(Document, 'id')} = x.{column(Suggestion, 'document')}{joined}"
        f" WHERE x.{column(Suggestion, 'id')} = %s AND x.{column(Suggestion, 'document')} = {assignment_column('document')}"
        f" AND d.{column(Document, 'kind')} = %s)"
    )


# What each write reads of the suggestion: the reject and the undo need less than a taken span.
_UNDO_READS = ("id",)
_REJECT_READS = ("id", "segment_index")
_TAKE_READS = (
    "id", "segment_index", "category", "segment", "start", "end", "paired_segment", "paired_start", "paired_end",
)  # fmt: skip


def _id_param(suggestion_id):
    if (
        isinstance(suggestion_id, bool)
        or not isinstance(suggestion_id, int)
        or not 0 < suggestion_id <= MAX_ID
    ):
        return None  # names no suggestion: the opening reads none, and the write is refused
    return suggestion_id


def _suggestion_reads(suggestion_id, names):
    reads = [_suggestion_shown(name) for name in names]
    return reads, [_id_param(suggestion_id), Document.Kind.MAIN.value] * len(names)


def _standing_read(suggestion_id):
    """Read: the id of the worker's decision on the suggestion (a retry finds one). On PostgreSQL
    the opening UPDATE's snapshot may predate its lock, so this is a hint, read again after the
    lock: a miss falls to the INSERT's conflict, a stale hit to a read that finds none."""
    decisions = table(SuggestionDecision)
    return [
        f"(SELECT t.{column(SuggestionDecision, 'id')} FROM {decisions} t"  # noqa: S608
        f" WHERE t.{column(SuggestionDecision, 'assignment')} = {assignment_column('id')}"
        f" AND t.{column(SuggestionDecision, 'suggestion')} = %s)"
    ], [_id_param(suggestion_id)]


def _taken_reads(taken):
    """What the opening UPDATE reads for a taken span, as a save's does (save_statements): the
    category named, the segment and the paired span's segment."""
    key = taken.get("category") if isinstance(taken.get("category"), str) else None
    paired = taken.get("paired")
    indexes = [
        index_param(taken.get("segment")),
        index_param(paired.get("segment")) if isinstance(paired, dict) else None,
    ]
    reads = [study_category("id"), study_category("kind"), study_category("label")]
    params = [key] * 3
    for index in indexes:
        reads += [document_segment("id"), document_segment("text")]
        params += [index, index]
    return reads, params


def _shows_suggestions(assignment):
    """The assignment's own part of `suggestions.shows_suggestions` (the document's kind is
    checked in `_suggestion_shown`)."""
    return (
        assignment.arm == SUGGESTIONS
        and assignment.kind == Assignment.Kind.MAIN
        and assignment.document_id is not None
    )


def _opened(token, suggestion_id, names, extra=((), ())):
    """The opened assignment and the suggestion's columns `names` (a dict), or TaskInputError
    when its page shows no such suggestion; then the rest of the opening UPDATE's reads."""
    reads, params = _suggestion_reads(suggestion_id, names)
    opened = assignment_opened_or_refused(token=token, reads=[*reads, *extra[0]], params=[*params, *extra[1]])
    assignment = opened.assignment
    suggestion = dict(zip(names, opened.reads[: len(names)], strict=True))
    if not _shows_suggestions(assignment) or suggestion["id"] is None:
        raise TaskInputError(NO_SUCH_SUGGESTION)
    if "segment_index" in suggestion and suggestion["segment_index"] > furthest_segment(assignment):
        raise TaskInputError(f"segment {suggestion['segment_index']} has not been reached yet")
    return assignment, suggestion, opened.reads[len(names) :]


def _stored_decision(assignment_id, suggestion_id):
    """The decision standing on the suggestion, with its annotation as the view answers it (one
    row at most: by pk, not the model's ordering, which would join the assignment and suggestion)."""
    return (
        SuggestionDecision.objects.filter(assignment_id=assignment_id, suggestion_id=suggestion_id)
        .select_related("annotation__category", "annotation__segment", "annotation__paired_segment")
        .order_by("pk")
        .first()
    )


def _same(decision, taken):
    """Whether the stored `decision` is the one `taken` asks for (a retried request)."""
    if taken is None:
        return decision.annotation_id is None
    return (
        isinstance(taken, dict)
        and decision.annotation_id is not None
        and decision.annotation.client_id == taken.get("client_id")
    )


def _repeated(stored, taken):
    """(the stored decision, False) when `taken` repeats it; else DecisionConflict."""
    if _same(stored, taken):
        return stored, False
    raise DecisionConflict("this suggestion is decided already: take that decision back first")


def _standing(assignment_id, suggestion_id, taken, refusal=None):
    """(the stored decision, False) when `taken` repeats it; else DecisionConflict when another
    stands, or `refusal` (the body's own problem) when none does."""
    stored = _stored_decision(assignment_id, suggestion_id)
    if stored is not None:
        return _repeated(stored, taken)
    raise refusal or DecisionConflict(
        "that client_id names an annotation stored already: give the taken span a new one"
    )


def _checked_body(data):
    if (
        not isinstance(data, dict)
        or not {"annotation", "seconds"} <= set(data)
        or set(data) - {"annotation", "seconds"}
    ):
        raise TaskInputError(
            'send {"annotation": the annotation taken, or null to reject, "seconds": time to decide}'
        )
    seconds = _seconds(data)
    taken = data["annotation"]
    if taken is not None and not isinstance(taken, dict):
        raise TaskInputError("'annotation': send a JSON object, or null to reject")
    if taken is not None:
        client_id = taken.get("client_id")
        if not isinstance(client_id, str) or not 1 <= len(client_id) <= 64:
            raise TaskInputError("'client_id' must be text of 1 to 64 characters")
    return taken, seconds


@transaction.atomic
def suggestion_decide(*, token, suggestion_id, data):
    """Store the worker's decision on a suggestion; returns (decision, created).

    `token` is the assignment's task token; `data` is {"annotation": an
    annotation as the page adds it, or null to reject; "seconds": time to
    decide}. Sending the same decision again (a retried save) returns the
    stored one, even if the retry's annotation no longer fits; a different one
    is refused while the first stands (DecisionConflict), and nothing of it is
    stored. The statements are in the module's docstring.
    """
    taken, seconds = _checked_body(data)
    if taken is None:
        assignment, suggestion, (standing,) = _opened(
            token, suggestion_id, _REJECT_READS, _standing_read(suggestion_id)
        )
        # A decision stands (a retry, or another decision): read after the lock, in place of the INSERT.
        if standing is not None and (stored := _stored_decision(assignment.pk, suggestion["id"])) is not None:
            return _repeated(stored, taken)
        decision = SuggestionDecision(
            assignment_id=assignment.pk, suggestion_id=suggestion["id"],
            action=SuggestionDecision.Action.REJECT, seconds=seconds,
        )  # fmt: skip
        if insert_unless_stored(decision, unique=("assignment", "suggestion")) is None:
            return _standing(assignment.pk, suggestion["id"], taken)
        return decision, True
    standing_read, standing_params = _standing_read(suggestion_id)
    taken_reads, taken_params = _taken_reads(taken)
    assignment, suggestion, (standing, *reads) = _opened(
        token, suggestion_id, _TAKE_READS, ([*standing_read, *taken_reads], [*standing_params, *taken_params])
    )
    if standing is not None and (stored := _stored_decision(assignment.pk, suggestion["id"])) is not None:
        return _repeated(stored, taken)
    try:
        annotation = checked_annotation(_opened_for_save(assignment, taken, reads), taken, taken["client_id"])
    except TaskInputError as refusal:
        return _standing(assignment.pk, suggestion["id"], taken, refusal)
    if insert_unless_stored(annotation) is None:
        return _standing(assignment.pk, suggestion["id"], taken)
    paired = suggestion["paired_segment"]
    suggested = (
        suggestion["category"], suggestion["segment"], suggestion["start"], suggestion["end"],
        None if paired is None else (paired, suggestion["paired_start"], suggestion["paired_end"]),
    )  # fmt: skip
    decision = SuggestionDecision(
        assignment_id=assignment.pk, suggestion_id=suggestion["id"],
        action=action_of(suggested, _shape(annotation)), annotation=annotation, seconds=seconds,
    )  # fmt: skip
    if insert_unless_stored(decision, unique=("assignment", "suggestion")) is None:
        # Another decision stands (the annotation is new, so it is not this one): the
        # exception rolls the annotation back with the transaction.
        raise DecisionConflict("this suggestion is decided already: take that decision back first")
    return decision, True


def _opened_for_save(assignment, taken, reads):
    """What `services.checked_annotation` checks a taken span against, from the opening's reads."""
    category_id, kind, label, *segment_columns = reads
    category = None
    if category_id is not None:
        category = Category(id=category_id, key=taken["category"], kind=kind, label=label)
    paired = taken.get("paired")
    indexes = (taken.get("segment"), paired.get("segment") if isinstance(paired, dict) else None)
    segments = {}
    for index, (segment_id, text) in zip(indexes, (segment_columns[0:2], segment_columns[2:4]), strict=True):
        if segment_id is not None:
            segments[index] = Segment(id=segment_id, index=index, text=text)
    return OpenedForSave(assignment.pk, furthest_segment(assignment), category, segments)


def _delete_decision(assignment_id, suggestion_id):
    """Delete the decision in one statement; returns whether it stored an annotation, and which."""
    decisions = table(SuggestionDecision)
    with connection.cursor() as cursor:
        cursor.execute(
            f"DELETE FROM {decisions} WHERE {column(SuggestionDecision, 'assignment')} = %s"  # noqa: S608
            f" AND {column(SuggestionDecision, 'suggestion')} = %s"
            f" RETURNING {column(SuggestionDecision, 'annotation')}",
            [assignment_id, suggestion_id],
        )
        row = cursor.fetchone()
    return None if row is None else row[0]


def _delete_annotation(assignment_id, annotation_id):
    with connection.cursor() as cursor:
        cursor.execute(
            f"DELETE FROM {table(ErrorAnnotation)} WHERE {column(ErrorAnnotation, 'id')} = %s"  # noqa: S608
            f" AND {column(ErrorAnnotation, 'assignment')} = %s",
            [annotation_id, assignment_id],
        )


@transaction.atomic
def suggestion_undo(*, token, suggestion_id):
    """Take back the decision on a suggestion (and the annotation it stored); undoing none is fine.

    BEGIN, the opening UPDATE, one DELETE of the decision that returns its
    annotation, and when it had one, one DELETE of that annotation, COMMIT.
    """
    assignment, suggestion, _ = _opened(token, suggestion_id, _UNDO_READS)
    annotation_id = _delete_decision(assignment.pk, suggestion["id"])
    if annotation_id is not None:
        _delete_annotation(assignment.pk, annotation_id)
