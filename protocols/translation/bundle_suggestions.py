"""An assisted translation study's part of a bundle (ESA-AI, MQM-AI: assistance/): the judge's
errors pre-filled for the suggestion arm, one a line of suggestions.jsonl,

    {"document": "d1#sysA", "position": 1, "segment": 0, "side": "target", "start": 4, "end": 7,
     "text": "dog", "category": "Mistranslation", "severity": "Major", "source": "evaluator judge, run 3"}

and, in assignments.jsonl, a line's `prefilled` (how many it received: assignment got them once)
and each pre-filled error's `suggestion` (the position it came from, kept while the worker kept it).
"""

from bundles.bulk import insert_rows
from bundles.checked_suggestions import CheckedSuggestions, PositionsByDocument
from bundles.exporting import json_line
from bundles.fields import is_int
from bundles.reading import read_jsonl
from bundles.references import references_checked_here
from bundles.writing import batch_document_ids, batch_ids_by_document, batch_segment_ids
from studies.batches import by_index
from studies.models import Category

from .bundle_errors import check_error
from .keys import MQM, WITH_SPANS, scheme
from .models import SuggestedError, SuggestionPrefill

FILE = "suggestions.jsonl"
FIELDS = {"document", "position", "segment", "side", "start", "end", "text", "category", "severity", "source"}
MAX_SOURCE = 200


def check_suggestions(directory, documents, rules, problems):
    """CheckedSuggestions of (position, ErrorSpec, source) by (document, position), on disk
    (bundles/checked_suggestions.py); None without the file. `documents` maps an external id to
    its DocumentSpec."""
    path = directory / FILE
    if not path.is_file():
        return None
    if rules.contrastive or rules.scheme not in WITH_SPANS:
        problems.add(FILE, 0, "suggestions are a judge's errors pre-filled in an MQM or ESA study (one translation a "
                              "page); this study has none")  # fmt: skip
        return None
    found = CheckedSuggestions()
    for record in read_jsonl(path, FILE, problems):
        value, line = record.value, record.line

        def report(message, line=line):
            problems.add(FILE, line, message)

        if not isinstance(value, dict):
            report('a suggestion must be an object {"document", "position", "segment", ...}')
            continue
        document, position = documents.get(str(value.get("document"))), value.get("position")
        if document is None:
            report(f"suggestion for unknown document {value.get('document')!r}")
            continue
        if not is_int(position) or position < 1:
            report("'position' must be a whole number from 1: it numbers a document's suggestions")
            continue
        first_line = found.line_of(document.external_id, position)
        if first_line is not None:
            report(
                f"document '{document.external_id}' has a suggestion {position} already (line {first_line})"
            )
            continue
        source = value.get("source", "")
        if not isinstance(source, str) or len(source) > MAX_SOURCE:
            report(
                f"'source' must be text of at most {MAX_SOURCE} characters (where the suggestion came from)"
            )
            continue
        error = check_error(value, f"suggestion {position}", lambda item, where, d=document: d, rules, report,
                            allowed=FIELDS)  # fmt: skip
        if error is not None:
            found.add(document.external_id, position, line, (position, error, source))
    return found


def suggestion_positions(suggestions):
    """{document: positions of its suggestions}, which a worker's error may name as its `suggestion`,
    read on look-up."""
    return PositionsByDocument(suggestions) if suggestions else {}


def check_prefilled(value, report):
    """A line's `prefilled`: how many suggestions it received (None: it received none)."""
    prefilled = value.get("prefilled")
    if prefilled is not None and (not is_int(prefilled) or prefilled < 0):
        report("'prefilled' must be a whole number: how many suggestions the assignment received")
        return False
    return prefilled


SUGGESTION_COLUMNS = ("document_id", "position", "segment_id", "side", "start", "end", "text", "category_id",
                      "severity", "source")  # fmt: skip


def write_suggestions(study, suggestions, category_ids):
    """Store the suggestions (CheckedSuggestions) through the bulk path, a batch at a time, each
    batch reading its own documents' and segments' ids. The errors pre-filled from them find their
    ids afterwards (suggestion_ids)."""
    for batch in suggestions.batches():
        document_ids = batch_document_ids(study, {error.document for _, error, _ in batch})
        segment_ids = batch_segment_ids(document_ids)
        rows = (
            (
                document_ids[e.document],
                position,
                segment_ids[(e.document, e.segment)],
                e.side,
                e.start,
                e.end,
                e.text,
                category_ids[e.category] if e.category else None,
                e.severity,
                source,
            )  # fmt: skip
            for position, e, source in batch
        )
        # They refer to this import's own documents and segments, and to the taxonomy's categories,
        # which may be older and shared: those are locked instead (bundles/references.py).
        with references_checked_here(existing=[(Category, category_ids.values())]):
            insert_rows(SuggestedError, SUGGESTION_COLUMNS, rows)


def suggestion_ids(document_ids):
    """{(document external id, position): suggestion id} of the documents of batch_document_ids."""
    return batch_ids_by_document(SuggestedError, document_ids, "position")


def write_prefilled(pairs):
    """SuggestionPrefill rows of (assignment id, how many) pairs, through the bulk path: the
    assignments are this import's own."""
    with references_checked_here():
        insert_rows(SuggestionPrefill, ("assignment_id", "suggestions"), pairs)


def export_suggestions(study, directory):
    """suggestions.jsonl, by document and position; no file for a study without suggestions."""
    rows = (
        SuggestedError.objects.filter(document__study=study)
        .order_by("document__position", "document_id", "position")
        .values_list("document__external_id", "position", "segment__index", "side", "start", "end", "text",
                     "category__key", "severity", "source")
    )  # fmt: skip
    if not rows.exists():
        return
    with open(directory / FILE, "w", encoding="utf-8") as handle:
        for document, position, index, side, start, end, text, category, severity, source in rows.iterator():
            record = {"document": document, "position": position, "segment": index, "side": side, "start": start,
                      "end": end, "text": text}  # fmt: skip
            if scheme(study.protocol) == MQM:
                record["category"] = category
            record.update(severity=severity, source=source)
            handle.write(json_line(record))


def prefilled_counts(ids):
    """{assignment id: how many suggestions it was given} of the assignments `ids` (a chunk)."""
    with by_index():
        return dict(
            SuggestionPrefill.objects.filter(assignment_id__in=ids)
            .order_by()
            .values_list("assignment_id", "suggestions")
        )
