"""The span page's writes: add and remove error spans, move between segments, answer
the questions about the whole document.

Each locks the assignment row first (the UPDATE of save_statements for a save,
of annotations.services.opening for the others), so a double click or two tabs
cannot interleave writes; adds carry a client-made id, so a retried save stores
nothing twice.
"""

import json

from django.db import connection, transaction
from django.db.models import Exists

from annotations.services.opening import (
    assignment_column,
    assignment_opened_or_refused,
    column,
    opened_or_refused,
    table,
)
from annotations.services.row_statements import upsert
from annotations.services.task import (
    TaskInputError,
    furthest_segment,
    move_stored,
)
from studies.models import Segment
from studies.spans import is_whole_number, span_error

from .assistance import SUGGESTIONS
from .assistance.suggestions import awaiting_decision, may_show_suggestions
from .document_questions import AnswerError, checked_answers, ordered_answers, study_questions
from .models import DocumentAnswer, ErrorAnnotation, SuggestionDecision
from .save_statements import assignment_open_for_save, delete_by_client_id, insert_unless_stored

MAX_COMMENT = 2000


def _span(raw, segments, reachable, label):
    if not isinstance(raw, dict):
        raise TaskInputError(f"{label}: give segment, start, end and text")
    index = raw.get("segment")
    if not is_whole_number(index) or index not in segments:
        raise TaskInputError(f"{label}: segment {index!r} is not in this document")
    if index > reachable:
        raise TaskInputError(f"{label}: segment {index} has not been reached yet")
    text = raw.get("text")
    if not isinstance(text, str):
        raise TaskInputError(f"{label}: 'text' must be the selected text")
    error = span_error(segments[index].text, raw.get("start"), raw.get("end"), text)
    if error:
        raise TaskInputError(f"{label}: {error}")
    return segments[index], raw["start"], raw["end"], text


def checked_annotation(opened, data, client_id):
    """The ErrorAnnotation that `data` describes, checked against what the save opened (unsaved)."""
    category = opened.category
    if category is None:
        raise TaskInputError(f"category {data.get('category')!r} is not in this study's taxonomy")
    reachable = opened.furthest_segment
    segment, start, end, text = _span(data, opened.segments, reachable, "span")
    paired = data.get("paired")
    if category.is_paired:
        if paired is None:
            raise TaskInputError(f"{category.label} is a paired category: also select the earlier span")
        paired_segment, paired_start, paired_end, paired_text = _span(
            paired, opened.segments, reachable, "paired span"
        )
        if paired_segment.index > segment.index:
            raise TaskInputError("paired span: it must be in the same or an earlier segment")
    elif paired is not None:
        raise TaskInputError(f"{category.label} takes one span only, not a paired span")
    else:
        paired_segment = paired_start = paired_end = None
        paired_text = ""
    comment = data.get("comment") or ""
    if not isinstance(comment, str) or len(comment) > MAX_COMMENT:
        raise TaskInputError(f"'comment' must be text of at most {MAX_COMMENT} characters")
    return ErrorAnnotation(
        assignment_id=opened.assignment_id, segment=segment, category=category, start=start, end=end,
        text=text, paired_segment=paired_segment, paired_start=paired_start,
        paired_end=paired_end, paired_text=paired_text, comment=comment, client_id=client_id,
    )  # fmt: skip


def _stored(assignment_id, client_id):
    return (
        ErrorAnnotation.objects.filter(assignment_id=assignment_id, client_id=client_id)
        .select_related("category", "segment", "paired_segment")
        .first()
    )


def _opened_or_refused(token, data):
    """The open assignment of `token`, locked and touched (save_statements), or why not:
    TaskNotFound or TaskClosed. Only a refusal pays for a second read."""
    segment_indexes = [data.get("segment")]
    if isinstance(data.get("paired"), dict):
        segment_indexes.append(data["paired"].get("segment"))
    return opened_or_refused(
        token,
        lambda: assignment_open_for_save(
            token=token,
            category_key=data.get("category"),
            segment_indexes=segment_indexes,
            client_id=data["client_id"],
        ),
    )


@transaction.atomic
def annotation_add(*, token, data):
    """Store one error annotation from the worker page; returns (annotation, created).

    `token` is the assignment's task token; `data` the decoded JSON body:
    client_id, category, segment, start, end, text, comment, and for a paired
    category `paired` {segment, start, end, text}. The same client_id again
    returns the stored annotation (a retried save), even if the retry's body no
    longer fits. A save is BEGIN, two statements (save_statements), COMMIT; so is a
    retry, whose second statement reads the stored annotation instead of inserting.
    """
    if not isinstance(data, dict):
        raise TaskInputError("send a JSON object")
    client_id = data.get("client_id")
    if not isinstance(client_id, str) or not 1 <= len(client_id) <= 64:
        raise TaskInputError("'client_id' must be text of 1 to 64 characters")
    opened = _opened_or_refused(token, data)
    # The opening UPDATE saw the client_id stored: a retry. Read after the lock, it is the stored
    # annotation or (on PostgreSQL, removed in another tab meanwhile) none, and the save goes on.
    if opened.stored_id is not None and (stored := _stored(opened.assignment_id, client_id)) is not None:
        return stored, False
    try:
        annotation = checked_annotation(opened, data, client_id)
    except TaskInputError:
        stored = _stored(opened.assignment_id, client_id)
        if stored is None:
            raise
        return stored, False
    if insert_unless_stored(annotation):
        return annotation, True
    return _stored(opened.assignment_id, client_id), False


@transaction.atomic
def annotation_remove(*, token, client_id):
    """Remove an annotation by its client id; removing one already gone is fine.

    BEGIN, the opening UPDATE (annotations.services.opening), one DELETE, COMMIT.
    In the suggestion arm an annotation may have stored a decision, which goes
    with it (the page shows the suggestion as undecided again): one DELETE more,
    first, as the decision refers to the annotation.
    """
    assignment = assignment_opened_or_refused(token=token).assignment
    if assignment.arm == SUGGESTIONS:
        SuggestionDecision.objects.filter(
            assignment_id=assignment.pk, annotation__client_id=client_id
        ).delete()
    delete_by_client_id(assignment.pk, client_id)


def _move_refusal(assignment, segment):
    """Why the move to `segment` is refused (only a refusal pays for these reads)."""
    count = Segment.objects.filter(document_id=assignment.document_id).count()
    if not is_whole_number(segment) or not 0 <= segment < count:
        return f"segment must be a whole number from 0 to {count - 1}"
    if segment > furthest_segment(assignment) + 1:
        return "segments are done in order: finish the current one first"
    return "decide on every suggestion of this segment first: accept, change, adjust or reject it"


@transaction.atomic
def assignment_move(*, token, segment):
    """Go to segment `segment`: back to any seen one, or on to the next; returns the segment.

    BEGIN, the opening UPDATE, one UPDATE that stores the segment (and the
    visit) only if the segment exists and, going forward in the suggestion arm,
    no suggestion before it awaits a decision, COMMIT. Both checks are in that
    second statement, which runs after the row lock and so sees a decision
    taken in another tab; a refused move changes nothing (the transaction is
    rolled back) and reads what it needs to say why.
    """
    assignment = assignment_opened_or_refused(token=token).assignment
    if not is_whole_number(segment) or not 0 <= segment <= furthest_segment(assignment) + 1:
        raise TaskInputError(_move_refusal(assignment, segment))
    gates = [Exists(Segment.objects.filter(document_id=assignment.document_id, index=segment))]
    if segment > assignment.current_segment and may_show_suggestions(assignment):
        gates.append(~Exists(awaiting_decision(assignment, segment)))
    if not move_stored(assignment, segment, gates):
        raise TaskInputError(_move_refusal(assignment, segment))
    return segment


def _answers_reads():
    """What the opening UPDATE reads for the document answers: how many segments the document has,
    and the answers stored (as stored: the text the UPSERT's condition compares)."""
    return [
        f"(SELECT COUNT(*) FROM {table(Segment)} g"  # noqa: S608
        f" WHERE g.{column(Segment, 'document')} = {assignment_column('document')})",
        f"(SELECT a.{column(DocumentAnswer, 'answers')} FROM {table(DocumentAnswer)} a"  # noqa: S608
        f" WHERE a.{column(DocumentAnswer, 'assignment')} = {assignment_column('id')})",
    ]


def _stored_answers(assignment_id):
    """The stored answers as stored, read after the lock (when the opening UPDATE's read was older)."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {column(DocumentAnswer, 'answers')} FROM {table(DocumentAnswer)}"  # noqa: S608
            f" WHERE {column(DocumentAnswer, 'assignment')} = %s",
            [assignment_id],
        )
        row = cursor.fetchone()
    return None if row is None else row[0]


def _as_dict(stored):
    if stored is None:
        return {}
    return json.loads(stored) if isinstance(stored, str) else stored


@transaction.atomic
def document_answers_save(*, token, data):
    """Store the worker's answers about the whole document; returns the DocumentAnswer.

    `data` is the decoded JSON body {"answers": {question key: answer}}. The answers
    given are merged into the stored ones (a question left out keeps its answer; null,
    "" or [] removes it), so each change on the page can be sent alone and a retried
    request stores the same thing again. Every value is checked before anything is
    stored; the questions come after the text, so only once its last segment is reached.

    BEGIN, the opening UPDATE (which reads the segment count and the stored
    answers), one UPSERT of the merged answers, COMMIT. On PostgreSQL the
    opening UPDATE's read may predate a save from another tab that it waited
    for: the UPSERT replaces the stored answers only if they are still the ones
    merged into, and otherwise the merge is made again from a read after the
    lock (one SELECT and one UPSERT more), so no answer is lost.
    """
    if not isinstance(data, dict) or set(data) != {"answers"}:
        raise TaskInputError('send {"answers": {question key: answer}}')
    opened = assignment_opened_or_refused(token=token, reads=_answers_reads())
    assignment, (count, stored) = opened.assignment, opened.reads
    questions = study_questions(assignment.study)
    try:
        checked = checked_answers(questions, data["answers"])
    except AnswerError as problem:
        raise TaskInputError(str(problem)) from None
    if furthest_segment(assignment) < count - 1:
        raise TaskInputError("the questions about the whole text come after its last segment: read it first")
    answers_column = f"{table(DocumentAnswer)}.{column(DocumentAnswer, 'answers')}"
    for merged_into in (stored, _stored_answers):
        if callable(merged_into):
            merged_into = merged_into(assignment.pk)
        merged = _as_dict(merged_into)
        for key, value in checked.items():
            if value is None:
                merged.pop(key, None)
            else:
                merged[key] = value
        row = DocumentAnswer(assignment=assignment, answers=ordered_answers(questions, merged))
        unchanged = (f"{answers_column} = %s", [merged_into]) if merged_into is not None else ("1 = 0", [])
        if upsert(row, unique=("assignment",), update=("answers", "updated_at"), only_if=unchanged[0],
                  only_if_params=unchanged[1]) is not None:  # fmt: skip
            return row
    raise TaskInputError("the answers are changing right now; send them again in a moment")
