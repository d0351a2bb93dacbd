"""An assisted translation study's part of a bundle (ESA-AI, MQM-AI: assistance/): the judge's
errors pre-filled for the suggestion arm, one a line of suggestions.jsonl,

    {"document": "d1#sysA", "position": 1, "segment": 0, "side": "target", "start": 4, "end": 7,
     "text": "dog", "category": "Mistranslation", "severity": "Major", "source": "evaluator judge, run 3"}

and, in assignments.jsonl, a line's `prefilled` (how many it received: assignment got them once)
and each pre-filled error's `suggestion` (the position it came from, kept while the worker kept it).
"""

from bundles.exporting import json_line
from bundles.fields import is_int
from bundles.reading import read_jsonl
from studies.models import Segment

from .bundle_errors import check_error
from .keys import MQM, WITH_SPANS, scheme
from .models import SuggestedError, SuggestionPrefill

FILE = "suggestions.jsonl"
FIELDS = {"document", "position", "segment", "side", "start", "end", "text", "category", "severity", "source"}
MAX_SOURCE = 200


def check_suggestions(directory, documents, rules, problems):
    """[(position, ErrorSpec, source)] of suggestions.jsonl (none without the file); `documents`
    maps an external id to its DocumentSpec."""
    path = directory / FILE
    if not path.is_file():
        return []
    if rules.contrastive or rules.scheme not in WITH_SPANS:
        problems.add(FILE, 0, "suggestions are a judge's errors pre-filled in an MQM or ESA study (one translation a "
                              "page); this study has none")  # fmt: skip
        return []
    found, first_line = [], {}
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
        if (document.external_id, position) in first_line:
            report(f"document '{document.external_id}' has a suggestion {position} already (line "
                   f"{first_line[(document.external_id, position)]})")  # fmt: skip
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
            first_line[(document.external_id, position)] = line
            found.append((position, error, source))
    return found


def suggestion_positions(suggestions):
    """{document: positions of its suggestions}, which a worker's error may name as its `suggestion`."""
    positions = {}
    for position, error, _ in suggestions:
        positions.setdefault(error.document, set()).add(position)
    return positions


def check_prefilled(value, report):
    """A line's `prefilled`: how many suggestions it received (None: it received none)."""
    prefilled = value.get("prefilled")
    if prefilled is not None and (not is_int(prefilled) or prefilled < 0):
        report("'prefilled' must be a whole number: how many suggestions the assignment received")
        return False
    return prefilled


def write_suggestions(study, suggestions, category_ids):
    """Store the suggestions; returns {(document, position): SuggestedError} for the errors taken."""
    document_ids = dict(study.documents.values_list("external_id", "id"))
    segment_ids = {
        (document, index): pk
        for document, index, pk in Segment.objects.filter(document__study=study).values_list(
            "document__external_id", "index", "pk"
        )
    }
    rows = SuggestedError.objects.bulk_create(
        SuggestedError(
            document_id=document_ids[e.document],
            position=position,
            segment_id=segment_ids[(e.document, e.segment)],
            side=e.side,
            start=e.start,
            end=e.end,
            text=e.text,
            category_id=category_ids[e.category] if e.category else None,
            severity=e.severity,
            source=source,
        )  # fmt: skip
        for position, e, source in suggestions
    )
    return {(e.document, position): row for (position, e, _), row in zip(suggestions, rows, strict=True)}


def write_prefilled(pairs):
    """SuggestionPrefill rows of (assignment, how many) pairs."""
    SuggestionPrefill.objects.bulk_create(
        SuggestionPrefill(assignment=assignment, suggestions=count) for assignment, count in pairs
    )


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
    """{assignment id: how many suggestions it was given} of the assignments `ids`."""
    return dict(
        SuggestionPrefill.objects.filter(assignment_id__in=ids).values_list("assignment_id", "suggestions")
    )
