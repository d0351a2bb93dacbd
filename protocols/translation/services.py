"""What a worker does on a translation page: mark and remove errors, score a segment, move on.

Every write locks the assignment first (annotations.services.task.locked_open), so a
double click or two tabs cannot interleave; an error carries a client-made id, so a
retried save stores nothing twice, and a score is one row per segment, so sending it
again changes nothing.
"""

from django.db import transaction

from annotations.services.task import TaskInputError, furthest_segment, locked_open, touch
from studies.models import Segment
from studies.spans import is_whole_number, span_error

from . import config
from .keys import MISSING, MQM, SIDES, SOURCE, SOURCES, TARGET, WITH_SCORES, WITH_SPANS, scheme
from .models import SegmentScore, TranslationError

MAX_COMMENT = 2000
MAX_VISITS_KEPT = 5000
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


def _category(study, value):
    if scheme(study.protocol) != MQM:
        if value not in (None, ""):
            raise TaskInputError("an ESA error has a severity only, no category")
        return None
    category = (
        study.taxonomy.categories.filter(key=value).first()
        if isinstance(value, str) and value and study.taxonomy_id
        else None
    )
    if category is None:
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


@transaction.atomic
def error_add(*, assignment, data):
    """Store one error from the page; returns (error, created). The same client_id again returns
    the stored error (a retried save), even if the retry's body no longer fits."""
    if not isinstance(data, dict):
        raise TaskInputError("send a JSON object")
    if unknown := sorted(str(key) for key in data if key not in ERROR_FIELDS):
        raise TaskInputError(f"unknown field '{unknown[0]}' (send {', '.join(ERROR_FIELDS)})")
    client_id = data.get("client_id")
    if not isinstance(client_id, str) or not 1 <= len(client_id) <= 64:
        raise TaskInputError("'client_id' must be text of 1 to 64 characters")
    assignment = locked_open(assignment)
    stored = (
        assignment.translation_errors.filter(client_id=client_id)
        .select_related("segment", "category")
        .first()
    )
    if stored is not None:
        return stored, False
    study = assignment.study
    if scheme(study.protocol) not in WITH_SPANS:
        raise TaskInputError("this study scores segments and marks no errors")
    segment = _reachable_segment(assignment, _output(assignment, data.get("output")), data.get("segment"))
    category = _category(study, data.get("category"))
    severity = _severity(study, data.get("severity"))
    side, start, end, text = _placed(study, segment, data, category)
    comment = data.get("comment") or ""
    if not isinstance(comment, str) or len(comment) > MAX_COMMENT:
        raise TaskInputError(f"'comment' must be text of at most {MAX_COMMENT} characters")
    cap = config.max_errors(study)
    if cap is not None and assignment.translation_errors.filter(segment=segment).count() >= cap:
        raise TaskInputError(f"at most {cap} errors per segment: mark the {cap} most serious ones")
    error = TranslationError.objects.create(
        assignment=assignment, segment=segment, side=side, start=start, end=end, text=text,
        category=category, severity=severity, comment=comment, client_id=client_id,
    )  # fmt: skip
    touch(assignment)
    return error, True


@transaction.atomic
def error_remove(*, assignment, client_id):
    """Remove an error by its client id; removing one already gone is fine."""
    assignment = locked_open(assignment)
    assignment.translation_errors.filter(client_id=client_id).delete()
    touch(assignment)


def _score_value(study, value):
    low, high = config.scale(study)
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
        raise TaskInputError(f"'score' must be a number from {low} to {high}")
    if not low <= value <= high:
        raise TaskInputError(f"'score' must be a number from {low} to {high}, not {value}")
    return float(value)


@transaction.atomic
def score_save(*, assignment, data):
    """Store (or change) the worker's score of one segment: {"segment": index, "score": number},
    and on a contrastive page {"output": its place} too."""
    if not isinstance(data, dict) or set(data) - set(SCORE_FIELDS):
        raise TaskInputError('send {"segment": index, "score": number} (and "output" on a page of several)')
    assignment = locked_open(assignment)
    study = assignment.study
    if scheme(study.protocol) not in WITH_SCORES:
        raise TaskInputError("this study marks errors and gives no segment score")
    segment = _reachable_segment(assignment, _output(assignment, data.get("output")), data.get("segment"))
    score = _score_value(study, data.get("score"))
    saved, _ = SegmentScore.objects.update_or_create(
        assignment=assignment, segment=segment, defaults={"score": score}
    )
    touch(assignment)
    return saved


@transaction.atomic
def assignment_move(*, assignment, segment):
    """Go to segment `segment`: back to any seen one, or on to the next. An ESA or DA segment
    is scored before the next one opens."""
    assignment = locked_open(assignment)
    count = segment_count(assignment)
    if not is_whole_number(segment) or not 0 <= segment < count:
        raise TaskInputError(f"segment must be a whole number from 0 to {count - 1}")
    if segment > furthest_segment(assignment) + 1:
        raise TaskInputError("segments are done in order: finish the current one first")
    if (
        segment > assignment.current_segment
        and scheme(assignment.study.protocol) in WITH_SCORES
        and assignment.segment_scores.filter(segment__index=assignment.current_segment).count()
        < len(outputs(assignment))
    ):
        raise TaskInputError("score this segment before going on")
    if not assignment.segments_visited:
        assignment.segments_visited = [assignment.current_segment]
    if len(assignment.segments_visited) < MAX_VISITS_KEPT:
        assignment.segments_visited.append(segment)
    assignment.current_segment = segment
    touch(assignment, "current_segment", "segments_visited")
    return assignment


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
    bounds = config.score_warnings(study)
    if bounds is None or score is None:
        return ""
    low, high = bounds
    if score < low and not errors:
        return f"A score below {low:g} with no error marked: mark what is wrong, or raise the score."
    if score > high and any(s.lower() == "major" for s in errors):
        return f"A score above {high:g} with a Major error marked: check the score or the severity."
    return ""
