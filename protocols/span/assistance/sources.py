"""Where suggestions come from: a list of spans (an evaluator run's, a bundle's) made the
study's suggestions, replacing those it had.

Once a worker has decided on a suggestion the set is fixed: replacing it would
change what the report compares.
"""

from dataclasses import dataclass

from django.db import transaction

from studies.models import Segment
from studies.spans import span_error

from ..models import Suggestion, SuggestionDecision


class SuggestionsRefused(ValueError):
    """The spans cannot become the study's suggestions (the message says why)."""


@dataclass(frozen=True)
class SuggestedSpan:
    """One candidate span: segment indexes and code-point offsets into the document's segments."""

    document_id: int
    segment: int
    start: int
    end: int
    category: str
    paired: tuple | None = None  # (segment, start, end) of a paired category's earlier span


@transaction.atomic
def suggestions_replace(*, study, spans, source):
    """Make `spans` (SuggestedSpan) the study's suggestions; returns how many were stored."""
    if SuggestionDecision.objects.filter(suggestion__document__study=study).exists():
        raise SuggestionsRefused(
            "workers have decided on this study's suggestions already: they can no longer be replaced"
        )
    categories = dict(study.taxonomy.categories.values_list("key", "id")) if study.taxonomy_id else {}
    document_ids = {span.document_id for span in spans}
    segments = {
        (segment.document_id, segment.index): segment
        for segment in Segment.objects.filter(document__study=study, document_id__in=document_ids).only(
            "id", "document_id", "index", "text"
        )
    }
    rows, positions = [], {}
    for span in sorted(spans, key=lambda s: (s.document_id, s.segment, s.start, s.end, s.category)):
        segment = _checked_segment(segments, span.document_id, span.segment, span.start, span.end)
        if span.category not in categories:
            raise SuggestionsRefused(f"category {span.category!r} is not in the study's taxonomy")
        row = Suggestion(
            document_id=span.document_id, segment=segment, category_id=categories[span.category],
            start=span.start, end=span.end, text=segment.text[span.start : span.end], source=source,
        )  # fmt: skip
        if span.paired is not None:
            paired = _checked_segment(segments, span.document_id, *span.paired)
            row.paired_segment = paired
            row.paired_start, row.paired_end = span.paired[1], span.paired[2]
            row.paired_text = paired.text[row.paired_start : row.paired_end]
        positions[span.document_id] = row.position = positions.get(span.document_id, 0) + 1
        rows.append(row)
    Suggestion.objects.filter(document__study=study).delete()
    Suggestion.objects.bulk_create(rows, batch_size=2000)
    return len(rows)


def _checked_segment(segments, document_id, index, start, end):
    segment = segments.get((document_id, index))
    if segment is None:
        raise SuggestionsRefused(f"document {document_id} of the study has no segment {index}")
    if (problem := span_error(segment.text, start, end)) is not None:
        raise SuggestionsRefused(f"segment {index} of document {document_id}: {problem}")
    return segment
