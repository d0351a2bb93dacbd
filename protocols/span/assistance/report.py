"""The report's `assistance` part: the span study with each annotation's arm, the study's
suggestions and the decisions of submitted assignments (reports/metrics/spans/assistance.py).

A report computed in parts (reports/parts.py) tallies each part's documents here
(assistance_part) and merges the tallies (assistance_from_parts); a one-pass report
tallies the whole study as one part, so both give the same figures bit for bit.
"""

from accounts.pseudonyms import pseudonyms_of
from annotations.models import Assignment
from reports.metrics.spans.assistance import (
    Decision,
    SuggestedSpan,
    assistance_from_tallies,
    assistance_tallies,
)

from ..models import Suggestion, SuggestionDecision
from ..report import span_categories, span_study_for

CHUNK = 20_000


def assistance_for(study):
    """The `assistance` part, or None for a study without arms and suggestions."""
    if not is_assisted(study):
        return None
    return assistance_from_parts(study, [assistance_part(study, span_study_for(study))])


def is_assisted(study):
    armed = Assignment.objects.filter(study=study).exclude(arm="").exists()
    return armed or Suggestion.objects.filter(document__study=study).exists()


def assistance_part(study, span_study, document_ids=None):
    """The tallies of `span_study` (the study, or the documents `document_ids` as loaded for a part)."""
    suggestions = Suggestion.objects.filter(document__study=study)
    decisions = SuggestionDecision.objects.filter(
        assignment__study=study, assignment__status=Assignment.Status.SUBMITTED
    )
    if document_ids is not None:
        suggestions = suggestions.filter(document_id__in=document_ids)
        decisions = decisions.filter(assignment__document_id__in=document_ids)
    spans = [
        SuggestedSpan(document=document, key=key, category=category, segment=segment, start=start, end=end)
        for document, key, category, segment, start, end in suggestions.values_list(
            "document__external_id", "id", "category__key", "segment__index", "start", "end"
        ).iterator(chunk_size=CHUNK)
    ]
    annotator_of = pseudonyms_of(study.pk)
    decided = [
        Decision(
            document=document,
            annotator=annotator_of(worker),
            suggestion=suggestion,
            action=action,
            seconds=seconds,
        )  # fmt: skip
        for document, worker, suggestion, action, seconds in decisions.values_list(
            "assignment__document__external_id", "assignment__worker_id", "suggestion_id", "action", "seconds"
        ).iterator(chunk_size=CHUNK)
    ]
    return assistance_tallies(span_study, spans, decided)


def assistance_from_parts(study, tallies):
    """The `assistance` part from its parts' tallies, in study order."""
    categories = [category.key for category in span_categories(study)]
    return assistance_from_tallies(tallies, categories)
