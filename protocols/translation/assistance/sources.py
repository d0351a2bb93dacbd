"""Where the suggestions come from: a judge's errors (an evaluator run's) made the study's
suggestions, replacing those it had. Once a worker has received them the set is fixed:
replacing it would change what the arms are compared on."""

from dataclasses import dataclass

from django.db import transaction

from studies.models import Segment
from studies.spans import span_error

from .. import config
from ..keys import MISSING, MQM, SIDES, TARGET, is_contrastive, scheme
from ..models import SuggestedError, SuggestionPrefill
from ..services import segment_source


class SuggestionsRefused(ValueError):
    """The errors cannot become the study's suggestions (the message says why)."""


@dataclass(frozen=True)
class Suggestion:
    """One error to suggest: the document, the segment index, where it lies (code points of its
    side's text), its category key (MQM; None for ESA) and its severity."""

    document_id: int
    segment: int
    side: str
    start: int
    end: int
    category: str | None
    severity: str


@transaction.atomic
def suggested_errors_replace(*, study, errors, source):
    """Make `errors` (Suggestion) the study's suggestions; returns how many were stored."""
    if is_contrastive(study.protocol):
        raise SuggestionsRefused("a contrastive study draws no arms: suggestions are for MQM and ESA studies")
    if SuggestionPrefill.objects.filter(assignment__study=study).exists():
        raise SuggestionsRefused(
            "workers have received this study's suggestions already: they can no longer be replaced"
        )
    categories = dict(study.taxonomy.categories.values_list("key", "id")) if study.taxonomy_id else {}
    severities = config.severities(study)
    segments = {
        (segment.document_id, segment.index): segment
        for segment in Segment.objects.filter(
            document__study=study, document_id__in={error.document_id for error in errors}
        ).select_related("document")
    }
    rows, positions = [], {}
    for error in sorted(errors, key=lambda e: (e.document_id, e.segment, e.side, e.start, e.end)):
        segment = segments.get((error.document_id, error.segment))
        if segment is None:
            raise SuggestionsRefused(
                f"document {error.document_id} of the study has no segment {error.segment}"
            )
        if error.severity not in severities:
            raise SuggestionsRefused(f"severity {error.severity!r} is not one of {', '.join(severities)}")
        if scheme(study.protocol) == MQM and error.category not in categories:
            raise SuggestionsRefused(f"category {error.category!r} is not in the study's taxonomy")
        text = _checked_text(segment, error)
        positions[error.document_id] = positions.get(error.document_id, 0) + 1
        rows.append(
            SuggestedError(
                document_id=error.document_id,
                position=positions[error.document_id],
                segment=segment,
                side=error.side,
                start=error.start,
                end=error.end,
                text=text,
                category_id=categories.get(error.category) if scheme(study.protocol) == MQM else None,
                severity=error.severity,
                source=source[:200],
            )  # fmt: skip
        )
    SuggestedError.objects.filter(document__study=study).delete()
    SuggestedError.objects.bulk_create(rows, batch_size=2000)
    return len(rows)


def _checked_text(segment, error):
    if error.side not in SIDES:
        raise SuggestionsRefused(f"side {error.side!r} is not one of {', '.join(SIDES)}")
    if error.side == MISSING:
        return ""
    text = segment.text if error.side == TARGET else segment_source(segment.document, segment.index)
    if (problem := span_error(text, error.start, error.end)) is not None:
        raise SuggestionsRefused(f"segment {error.segment} of document {error.document_id}: {problem}")
    return text[error.start : error.end]
