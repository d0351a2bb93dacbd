"""What a worker does on a translation page: mark and remove errors, score a segment, move on.

Every write locks the assignment first (the opening UPDATE of annotations.services.opening), so a
double click or two tabs cannot interleave; an error carries a client-made id, so a
retried save stores nothing twice, and a score is one row per segment, so sending it
again changes nothing.
"""

import json

from django.db import transaction
from django.db.models import Exists, OuterRef

from annotations.services.opening import (
    assignment_column,
    assignment_opened_or_refused,
    column,
    document_column,
    document_segment,
    index_param,
    page_document,
    study_category,
    table,
)
from annotations.services.row_statements import FromRow, insert_unless_stored, upsert
from annotations.services.task import TaskInputError, furthest_segment, move_stored, rows_at_least
from studies.models import Category, Document, Segment
from studies.spans import is_whole_number, span_error

from . import config
from .keys import MISSING, MQM, SIDES, SOURCE, SOURCES, TARGET, WITH_SCORES, WITH_SPANS, scheme
from .models import SegmentScore, TranslationError

MAX_COMMENT = 2000
ERROR_FIELDS = (
    "client_id",
    "output",
    "segment",
    "side",
    "start",
    "end",
    "text",
    "category",
    "severity",
    "comment",
)
SCORE_FIELDS = ("output", "segment", "score")


def segment_source(document, index):
    """The source text of segment `index` ("" when the document has none)."""
    sources = document.meta.get(SOURCES) if isinstance(document.meta, dict) else None
    if isinstance(sources, list) and 0 <= index < len(sources) and isinstance(sources[index], str):
        return sources[index]
    return ""


def outputs(assignment):
    """The pks of the translations on the assignment's page, in the worker's order: its one
    document, or (a contrastive block) every system's document of the source, shuffled."""
    if assignment.document_id is not None:
        return [assignment.document_id]
    return [item["document"] for item in sorted(assignment.items or [], key=lambda item: item["position"])]


def _output(assignment, value):
    """The document pk of output `value` (its place on the page; none for a one-translation page)."""
    documents = outputs(assignment)
    if assignment.document_id is not None:
        if value not in (None, 0):
            raise TaskInputError("this page shows one translation: leave 'output' out")
        return documents[0]
    if not is_whole_number(value) or not 0 <= value < len(documents):
        raise TaskInputError(f"output {value!r} is not on this page (0 to {len(documents) - 1})")
    return documents[value]


def segment_count(assignment):
    """How many segments the page has: the fewest of its translations' (they translate one source)."""
    if assignment.document_id is not None and hasattr(assignment, "document_segments"):
        return assignment.document_segments  # read with submit's lock (annotations.services.task)
    documents = outputs(assignment)
    counts = [Segment.objects.filter(document_id=document).count() for document in documents]
    return min(counts) if counts else 0


def _reachable_segment(assignment, document, index):
    if not is_whole_number(index):
        raise TaskInputError(f"segment {index!r} is not in this document")
    segment = Segment.objects.filter(document_id=document, index=index).select_related("document").first()
    if segment is None:
        raise TaskInputError(f"segment {index!r} is not in this document")
    if index > furthest_segment(assignment):
        raise TaskInputError(f"segment {index} has not been reached yet")
    return segment


def _severity(study, value):
    """The study's spelling of severity `value` (matched without regard to case)."""
    names = config.severities(study)
    if isinstance(value, str):
        for name in names:
            if name.lower() == value.strip().lower():
                return name
    raise TaskInputError(f"severity {value!r} is not one of {', '.join(names)}")


def _category(study, value, category=None):
    """The category named: `category` as the opening UPDATE read it, None for ESA."""
    if scheme(study.protocol) != MQM:
        if value not in (None, ""):
            raise TaskInputError("an ESA error has a severity only, no category")
        return None
    if category is None or not value:
        raise TaskInputError(f"category {value!r} is not in this study's taxonomy")
    return category


def _placed(study, segment, data, category):
    """(side, start, end, text) of the error, checked against the side's text."""
    if category is not None and category.whole_sentence:
        return TARGET, 0, len(segment.text), segment.text  # a whole-segment category covers all of it
    side = data.get("side", TARGET)
    if side not in SIDES:
        raise TaskInputError(f"side {side!r} is not one of {', '.join(SIDES)}")
    if side == MISSING:
        if not config.missing_marker(study):
            raise TaskInputError("this study has no [missing] marker: select where the text is missing")
        return MISSING, 0, 0, ""
    if side == SOURCE and not config.source_spans(study):
        raise TaskInputError("this study marks errors in the translation only")
    text = segment.text if side == TARGET else segment_source(segment.document, segment.index)
    selected = data.get("text")
    if not isinstance(selected, str):
        raise TaskInputError("'text' must be the selected text")
    if problem := span_error(text, data.get("start"), data.get("end"), selected):
        raise TaskInputError(f"{side} span: {problem}")
    return side, data["start"], data["end"], selected


def _error_reads(data):
    """What the opening UPDATE reads for an error: the segment named (of the output named, on a
    page of several translations), the document's sources when the error is in the source, the
    category named, and the id of the error stored under the client_id sent (a retry)."""
    index, key = index_param(data.get("segment")), data.get("category")
    output = index_param(data.get("output"))
    document = page_document()
    reads = [document_segment("id", document), document_segment("text", document)]
    params = [output, index, output, index]
    if data.get("side") == SOURCE:
        reads.append(document_column("meta", document))
        params.append(output)
    else:
        reads.append("NULL")
    reads += [study_category("id"), study_category("whole_sentence")]
    params += [key if isinstance(key, str) else None] * 2
    reads.append(
        f"(SELECT e.{column(TranslationError, 'id')} FROM {table(TranslationError)} e"  # noqa: S608
        f" WHERE e.{column(TranslationError, 'assignment')} = {assignment_column('id')}"
        f" AND e.{column(TranslationError, 'client_id')} = %s)"
    )
    params.append(data["client_id"])
    return reads, params


def _page_segment(assignment, output, index, segment_id, text, meta):
    """The segment `index` of output `output`, checked to be reached, as the opening UPDATE read it
    (`segment_id`, `text`, its document's `meta`)."""
    document = _output(assignment, output)
    if not is_whole_number(index) or segment_id is None:
        raise TaskInputError(f"segment {index!r} is not in this document")
    if index > furthest_segment(assignment):
        raise TaskInputError(f"segment {index} has not been reached yet")
    segment = Segment(id=segment_id, document_id=document, index=index, text=text)
    segment.document = Document(
        id=document, meta=meta if isinstance(meta, dict) else json.loads(meta or "{}")
    )
    return segment


def _checked_error(assignment, data, reads):
    segment_id, text, meta, category_id, whole_sentence = reads
    study = assignment.study
    if scheme(study.protocol) not in WITH_SPANS:
        raise TaskInputError("this study scores segments and marks no errors")
    segment = _page_segment(assignment, data.get("output"), data.get("segment"), segment_id, text, meta)
    category = None
    if scheme(study.protocol) == MQM and category_id is not None:
        category = Category(id=category_id, key=data["category"], whole_sentence=bool(whole_sentence))
    category = _category(study, data.get("category"), category)
    severity = _severity(study, data.get("severity"))
    side, start, end, text = _placed(study, segment, data, category)
    comment = data.get("comment") or ""
    if not isinstance(comment, str) or len(comment) > MAX_COMMENT:
        raise TaskInputError(f"'comment' must be text of at most {MAX_COMMENT} characters")
    return TranslationError(
        assignment=assignment, segment=segment, side=side, start=start, end=end, text=text,
        category=category, severity=severity, comment=comment, client_id=data["client_id"],
    )  # fmt: skip


def _stored_error(assignment, client_id):
    stored = (
        TranslationError.objects.filter(assignment_id=assignment.pk, client_id=client_id)
        .select_related("segment", "category")
        .first()
    )
    if stored is not None:
        stored.assignment = assignment
    return stored


def _under_cap(cap):
    """The INSERT's condition: fewer than `cap` errors in the segment, counted after the lock."""
    errors = table(TranslationError)
    return (
        f"(SELECT COUNT(*) FROM {errors} e WHERE e.{column(TranslationError, 'assignment')} = %s"  # noqa: S608
        f" AND e.{column(TranslationError, 'segment')} = %s) < %s"
    )


@transaction.atomic
def error_add(*, token, data):
    """Store one error from the page; returns (error, created). The same client_id again returns
    the stored error (a retried save), even if the retry's body no longer fits.

    BEGIN, the opening UPDATE (which reads the segment and category named), one
    INSERT ... ON CONFLICT DO NOTHING that also holds the study's cap on errors
    per segment (counted after the lock, so two tabs cannot pass it together),
    COMMIT. A retry, which the opening UPDATE sees stored, reads it back in place
    of the INSERT; a refusal reads once more. On a page of several translations the
    opening UPDATE finds the output's document in the page's order itself (`page_document`).
    """
    if not isinstance(data, dict):
        raise TaskInputError("send a JSON object")
    if unknown := sorted(str(key) for key in data if key not in ERROR_FIELDS):
        raise TaskInputError(f"unknown field '{unknown[0]}' (send {', '.join(ERROR_FIELDS)})")
    client_id = data.get("client_id")
    if not isinstance(client_id, str) or not 1 <= len(client_id) <= 64:
        raise TaskInputError("'client_id' must be text of 1 to 64 characters")
    reads, params = _error_reads(data)
    opened = assignment_opened_or_refused(token=token, reads=reads, params=params)
    assignment, (*page_reads, stored_id) = opened.assignment, opened.reads
    # The opening UPDATE saw the client_id stored: a retry. Its snapshot may predate the lock on
    # PostgreSQL (opening.py), so the error is read after the lock; if it was removed in another tab
    # meanwhile, the save goes on as a new one.
    if stored_id is not None and (stored := _stored_error(assignment, client_id)) is not None:
        return stored, False
    try:
        error = _checked_error(assignment, data, page_reads)
    except TaskInputError:
        if (stored := _stored_error(assignment, client_id)) is None:
            raise
        return stored, False
    cap = config.max_errors(assignment.study)
    if cap is None:
        inserted = insert_unless_stored(error)
    else:
        inserted = insert_unless_stored(
            error, only_if=_under_cap(cap), params=[assignment.pk, error.segment.pk, cap]
        )
    if inserted is not None:
        return error, True
    if (stored := _stored_error(assignment, client_id)) is None:
        raise TaskInputError(f"at most {cap} errors per segment: mark the {cap} most serious ones")
    return stored, False


@transaction.atomic
def error_remove(*, token, client_id):
    """Remove an error by its client id; removing one already gone is fine.

    BEGIN, the opening UPDATE, one DELETE (nothing refers to an error), COMMIT."""
    assignment = assignment_opened_or_refused(token=token).assignment
    TranslationError.objects.filter(assignment_id=assignment.pk, client_id=client_id).delete()


def _score_value(study, value):
    low, high = config.scale(study)
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
        raise TaskInputError(f"'score' must be a number from {low} to {high}")
    if not low <= value <= high:
        raise TaskInputError(f"'score' must be a number from {low} to {high}, not {value}")
    return float(value)


def _errors_of_segment(severity=None):
    """RETURNING of the score's UPSERT: the errors (of one severity) of the score's assignment and
    segment, read after the lock."""
    errors, scores = table(TranslationError), table(SegmentScore)
    return (
        f"(SELECT COUNT(*) FROM {errors} e"  # noqa: S608
        f" WHERE e.{column(TranslationError, 'assignment')} = {scores}.{column(SegmentScore, 'assignment')}"
        f" AND e.{column(TranslationError, 'segment')} = {scores}.{column(SegmentScore, 'segment')}"
        + ("" if severity is None else f" AND LOWER(e.{column(TranslationError, 'severity')}) = '{severity}'")
        + ")"
    )


def _scored_segment(assignment, output, index):
    """(document pk, index) of the segment a score names, checked to be on the page and reached.
    Whether the document has that segment is left to the UPSERT, which finds it; a segment not
    reached pays for the read that says why (not in this document, or not reached yet)."""
    document = _output(assignment, output)
    if index_param(index) is None:
        raise TaskInputError(f"segment {index!r} is not in this document")
    if index > furthest_segment(assignment):
        _reachable_segment(assignment, document, index)
    return document, index


@transaction.atomic
def score_save(*, token, data):
    """Store (or change) the worker's score of one segment: {"segment": index, "score": number},
    and on a contrastive page {"output": its place} too. Returns (score, the page's warning).

    BEGIN, the opening UPDATE, one UPSERT that finds the segment (by the page's
    document and the index sent: no read first, on a page of one translation or
    several) and returns how many errors, and how many Major ones, the segment
    has for the warning, COMMIT.
    """
    if not isinstance(data, dict) or set(data) - set(SCORE_FIELDS):
        raise TaskInputError('send {"segment": index, "score": number} (and "output" on a page of several)')
    assignment = assignment_opened_or_refused(token=token).assignment
    study = assignment.study
    if scheme(study.protocol) not in WITH_SCORES:
        raise TaskInputError("this study marks errors and gives no segment score")
    document, index = _scored_segment(assignment, data.get("output"), data.get("segment"))
    score = _score_value(study, data.get("score"))
    saved = SegmentScore(assignment=assignment, score=score)
    counted = upsert(
        saved, unique=("assignment", "segment"), update=("score", "updated_at"),
        returning=[_errors_of_segment(), _errors_of_segment("major")],
        from_row=FromRow("segment", Segment, {"document": document, "index": index}),
    )  # fmt: skip
    if counted is None:  # the document has no such segment: nothing stored
        raise TaskInputError(f"segment {index!r} is not in this document")
    saved.segment = Segment(id=saved.segment_id, document_id=document, index=index)
    errors, majors = counted
    return saved, segment_warning(study, score, errors=errors, majors=majors)


def _move_refusal(assignment, segment):
    """Why the move to `segment` is refused (only a refusal pays for these reads)."""
    count = segment_count(assignment)
    if not is_whole_number(segment) or not 0 <= segment < count:
        return f"segment must be a whole number from 0 to {count - 1}"
    if segment > furthest_segment(assignment) + 1:
        return "segments are done in order: finish the current one first"
    return "score this segment before going on"


@transaction.atomic
def assignment_move(*, token, segment):
    """Go to segment `segment`: back to any seen one, or on to the next; returns the segment. An ESA
    or DA segment is scored before the next one opens.

    BEGIN, the opening UPDATE, one UPDATE that stores the segment (and the
    visit) only if every translation on the page has that segment and, going
    forward on a scored page, a score of the current one, COMMIT. The checks are
    in that second statement, after the lock, so a score saved in another tab
    counts; a refused move changes nothing and reads what it needs to say why.
    """
    assignment = assignment_opened_or_refused(token=token).assignment
    if not is_whole_number(segment) or not 0 <= segment <= furthest_segment(assignment) + 1:
        raise TaskInputError(_move_refusal(assignment, segment))
    documents = outputs(assignment)
    gates = [Exists(Segment.objects.filter(document_id=document, index=segment)) for document in documents]
    if not documents:
        raise TaskInputError(_move_refusal(assignment, segment))
    if segment > assignment.current_segment and scheme(assignment.study.protocol) in WITH_SCORES:
        scored = SegmentScore.objects.filter(assignment_id=assignment.pk).values("segment_id")
        unscored = Segment.objects.filter(
            document_id__in=documents, index=assignment.current_segment
        ).exclude(id__in=scored)
        gates.append(~Exists(unscored))
    if not move_stored(assignment, segment, gates):
        raise TaskInputError(_move_refusal(assignment, segment))
    return segment


def translation_complete(assignment):
    """For submit's UPDATE, the condition under which translation_missing finds nothing left: every
    segment of every translation scored. None where the check needs no query of scores (MQM, whose
    check is the furthest segment alone) or already fails in Python (a segment not yet read)."""
    count = segment_count(assignment)
    if scheme(assignment.study.protocol) not in WITH_SCORES or furthest_segment(assignment) < count - 1:
        return None
    scores = SegmentScore.objects.filter(assignment=OuterRef("pk"), segment__index__lt=count)
    return rows_at_least(scores, count * len(outputs(assignment)))


def translation_missing(assignment):
    """Why the assignment cannot be submitted yet, or ""."""
    count = segment_count(assignment)
    if furthest_segment(assignment) < count - 1:
        return "read every segment before submitting"
    if scheme(assignment.study.protocol) in WITH_SCORES:
        needed = count * len(outputs(assignment))
        scored = assignment.segment_scores.filter(segment__index__lt=count).count()
        if scored < needed:
            return f"score every segment before submitting ({needed - scored} left)"
    return ""


def score_warning(study, score, errors):
    """The ESA page's soft check of one segment: a message, or "" (never blocks a submit).
    `errors` are the segment's severities."""
    majors = sum(1 for severity in errors if severity.lower() == "major")
    return segment_warning(study, score, errors=len(errors), majors=majors)


def segment_warning(study, score, *, errors, majors):
    """`score_warning` from how many errors, and how many Major ones, the segment has."""
    bounds = config.score_warnings(study)
    if bounds is None or score is None:
        return ""
    low, high = bounds
    if score < low and not errors:
        return f"A score below {low:g} with no error marked: mark what is wrong, or raise the score."
    if score > high and majors:
        return f"A score above {high:g} with a Major error marked: check the score or the severity."
    return ""
