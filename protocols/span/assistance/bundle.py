"""Suggestions and decisions in a bundle (docs/bundle-format.md).

suggestions.jsonl holds one line per suggestion: {document, position, segment,
start, end, text, category, paired?, source}. An assignments.jsonl line of the
suggestion arm carries "suggestion_decisions": [{suggestion: position, action,
seconds, annotation: the client_id of the annotation it stored (not for
reject)}], and each such annotation keeps its client_id.
"""

from dataclasses import dataclass

from bundles.bulk import insert_rows
from bundles.checked_suggestions import CheckedSuggestions
from bundles.fields import is_int, unknown_fields
from bundles.reading import read_jsonl
from bundles.references import references_checked_here
from bundles.writing import batch_document_ids, batch_ids_by_document, batch_segment_ids
from studies.batches import by_index
from studies.models import Category
from studies.spans import span_error

from ..models import Suggestion, SuggestionDecision
from .decisions import MAX_DECIDE_SECONDS, action_of

SUGGESTION_FIELDS = {
    "document",
    "position",
    "segment",
    "start",
    "end",
    "text",
    "category",
    "paired",
    "source",
}
DECISION_FIELDS = {"suggestion", "action", "seconds", "annotation", "decided_at"}


@dataclass(frozen=True)
class SuggestionLine:
    document: str
    position: int
    category: str
    segment: int
    start: int
    end: int
    paired: tuple | None
    source: str
    text: str = ""
    paired_text: str = ""

    def shape(self):
        return (self.category, self.segment, self.start, self.end, self.paired)


def check_suggestions(directory, segments_of, categories, problems):
    """suggestions.jsonl as CheckedSuggestions of SuggestionLines by (document, position), on disk
    (bundles/checked_suggestions.py); None without the file."""
    path = directory / "suggestions.jsonl"
    if not path.is_file():
        return None
    found = CheckedSuggestions()
    for record in read_jsonl(path, "suggestions.jsonl", problems):
        line = _check_suggestion(record, segments_of, categories, problems)
        if line is None:
            continue
        if (line.document, line.position) in found:
            problems.add(
                record.file, record.line, f"suggestion {line.position} of {line.document!r} is given twice"
            )
            continue
        found.add(line.document, line.position, record.line, line)
    return found


def _check_suggestion(record, segments_of, categories, problems):
    value, file, line = record.value, record.file, record.line
    if not isinstance(value, dict):
        problems.add(
            file, line, "a suggestion must be an object {document, position, segment, start, end, ...}"
        )
        return None
    unknown_fields(value, SUGGESTION_FIELDS, file, problems, line)
    document = str(value["document"]) if is_int(value.get("document")) else value.get("document")
    if document not in segments_of:
        problems.add(file, line, f"suggestion for unknown document {document!r}")
        return None
    position, category = value.get("position"), value.get("category")
    if not is_int(position) or position < 1:
        problems.add(file, line, "'position' must be a whole number from 1")
        return None
    if category not in categories:
        problems.add(file, line, f"unknown category {category!r}")
        return None
    segments = segments_of[document]
    span = _span(value, segments, file, line, problems, "suggestion")
    if span is None:
        return None
    paired = None
    if value.get("paired") is not None:
        if categories[category] != "paired":
            problems.add(file, line, f"category {category} is singleton but the suggestion has a paired span")
            return None
        paired = _span(value["paired"], segments, file, line, problems, "paired span")
        if paired is None:
            return None
    source = value.get("source", "")
    if not isinstance(source, str) or len(source) > 200:
        problems.add(file, line, "'source' must be text of at most 200 characters")
        return None
    texts = (
        segments[span[0]][span[1] : span[2]],
        segments[paired[0]][paired[1] : paired[2]] if paired else "",
    )
    return SuggestionLine(document, position, category, *span, paired, source, *texts)


def _span(raw, segments, file, line, problems, where):
    if not isinstance(raw, dict):
        problems.add(file, line, f"{where}: give segment, start, end and text")
        return None
    index = raw.get("segment")
    if not is_int(index) or not 0 <= index < len(segments):
        problems.add(file, line, f"{where}: segment {index!r} is not in the document")
        return None
    error = span_error(segments[index], raw.get("start"), raw.get("end"), raw.get("text"))
    if error:
        problems.add(file, line, f"{where}: {error}")
        return None
    return index, raw["start"], raw["end"]


def check_decisions(raw, document, annotations, suggestions, file, line, problems):
    """A line's suggestion_decisions as [(position, action, seconds, client_id or None)]; None when wrong."""
    if raw is None:
        return []
    if not isinstance(raw, list):
        problems.add(file, line, "'suggestion_decisions' must be a list")
        return None
    taken = {a.client_id: a for a in annotations}
    decided, seen, ok = [], set(), True
    for number, item in enumerate(raw, start=1):
        where = f"suggestion_decisions[{number}]"
        if not isinstance(item, dict):
            problems.add(
                file, line, f"{where}: must be an object {{suggestion, action, seconds, annotation}}"
            )
            ok = False
            continue
        unknown_fields(item, DECISION_FIELDS, file, problems, line)
        position, action, seconds = item.get("suggestion"), item.get("action"), item.get("seconds")
        suggestion = suggestions.get((document, position))
        if suggestion is None:
            problems.add(
                file, line, f"{where}: no suggestion {position!r} for {document!r} in suggestions.jsonl"
            )
            ok = False
            continue
        if position in seen:
            problems.add(file, line, f"{where}: suggestion {position} is decided twice")
            ok = False
            continue
        seen.add(position)
        if (
            isinstance(seconds, bool)
            or not isinstance(seconds, int | float)
            or not 0 <= seconds <= MAX_DECIDE_SECONDS
        ):
            problems.add(file, line, f"{where}: 'seconds' must be a number from 0 to {MAX_DECIDE_SECONDS}")
            ok = False
            continue
        client_id = item.get("annotation")
        if action == SuggestionDecision.Action.REJECT:
            if client_id is not None:
                problems.add(file, line, f"{where}: a rejected suggestion stores no annotation")
                ok = False
                continue
        elif action in SuggestionDecision.Action.values:
            annotation = taken.get(client_id)
            if annotation is None:
                problems.add(
                    file, line, f"{where}: annotation {client_id!r} is not among this line's annotations"
                )
                ok = False
                continue
            paired = annotation.paired and (
                annotation.paired.segment,
                annotation.paired.start,
                annotation.paired.end,
            )
            stored = (
                annotation.category,
                annotation.span.segment,
                annotation.span.start,
                annotation.span.end,
                paired,
            )
            fits = str(action_of(suggestion.shape(), stored))
            if fits != action:
                problems.add(file, line, f"{where}: action {action!r} does not fit the annotation stored "
                                         f"(it is '{fits}')")  # fmt: skip
                ok = False
                continue
        else:
            problems.add(
                file,
                line,
                f"{where}: unknown action {action!r} (one of {', '.join(SuggestionDecision.Action.values)})",
            )
            ok = False
            continue
        decided.append((position, action, float(seconds), client_id))
    return decided if ok else None


SUGGESTION_COLUMNS = (
    "document_id", "position", "category_id", "segment_id", "start", "end", "text", "source",
    "paired_segment_id", "paired_start", "paired_end", "paired_text",
)  # fmt: skip


def write_suggestions(study, suggestions):
    """Suggestion rows of the bundle's suggestions.jsonl (CheckedSuggestions) through the bulk path,
    a batch at a time, each batch reading its own documents' and segments' ids. The decisions on
    them find their ids afterwards (suggestion_ids)."""
    categories = dict(study.taxonomy.categories.values_list("key", "id")) if study.taxonomy_id else {}
    for batch in suggestions.batches():
        document_ids = batch_document_ids(study, {line.document for line in batch})
        segment_ids = batch_segment_ids(document_ids)

        def rows(batch=batch, document_ids=document_ids, segment_ids=segment_ids):
            for line in batch:
                paired = line.paired
                yield (
                    document_ids[line.document], line.position, categories[line.category],
                    segment_ids[(line.document, line.segment)], line.start, line.end, line.text, line.source,
                    None if paired is None else segment_ids[(line.document, paired[0])],
                    None if paired is None else paired[1], None if paired is None else paired[2], line.paired_text,
                )  # fmt: skip

        # They refer to this import's own documents and segments, and to the taxonomy's categories,
        # which may be older and shared: those are locked instead (bundles/references.py).
        with references_checked_here(existing=[(Category, categories.values())]):
            insert_rows(Suggestion, SUGGESTION_COLUMNS, rows())


def suggestion_ids(document_ids):
    """{(document external id, position): suggestion id} of the documents of batch_document_ids."""
    return batch_ids_by_document(Suggestion, document_ids, "position")


DECISION_COLUMNS = ("assignment_id", "suggestion_id", "action", "seconds", "annotation_id")


def write_decisions(decided):
    """decided: [(assignment id, suggestion id, action, seconds, annotation id or None)], through
    the bulk path: the rows refer to this import's own assignments, suggestions and spans."""
    with references_checked_here():
        insert_rows(SuggestionDecision, DECISION_COLUMNS, decided)


def export_suggestions(study, directory, json_line):
    rows = (
        Suggestion.objects.filter(document__study=study)
        .select_related("document", "category", "segment", "paired_segment")
        .order_by("document__position", "document_id", "position")
    )
    if not rows.exists():
        return
    with open(directory / "suggestions.jsonl", "w", encoding="utf-8") as handle:
        for row in rows.iterator(chunk_size=2000):
            record = {
                "document": row.document.external_id, "position": row.position, "segment": row.segment.index,
                "start": row.start, "end": row.end, "text": row.text, "category": row.category.key,
            }  # fmt: skip
            if row.paired_segment_id is not None:
                record["paired"] = {"segment": row.paired_segment.index, "start": row.paired_start,
                                    "end": row.paired_end, "text": row.paired_text}  # fmt: skip
            record["source"] = row.source
            handle.write(json_line(record))


def decisions_by_assignment(assignment_ids):
    """{assignment id: [decision record]} of the assignments `assignment_ids` (one chunk of an
    export), in suggestion order, and the ids of the annotations they point at."""
    grouped, pointed = {}, set()
    with by_index():  # each chunk's, by its keys: a scan of the study's spans per chunk grew with its square
        rows = list(
            SuggestionDecision.objects.filter(assignment_id__in=assignment_ids)
            .order_by("assignment_id", "suggestion__position")
            .values_list("assignment_id", "suggestion__position", "action", "seconds", "annotation_id",
                         "annotation__client_id")
        )  # fmt: skip
    for assignment_id, position, action, seconds, annotation_id, client_id in rows:
        record = {"suggestion": position, "action": action, "seconds": seconds}
        if annotation_id is not None:
            record["annotation"] = client_id
            pointed.add(annotation_id)
        grouped.setdefault(assignment_id, []).append(record)
    return grouped, pointed
