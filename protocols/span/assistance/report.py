"""The report's `assistance` part: the span study with each annotation's arm, the study's
suggestions and the decisions of submitted assignments (reports/metrics/spans/assistance.py)."""

from accounts.pseudonyms import pseudonyms_of
from annotations.models import Assignment
from reports.metrics.spans.assistance import Decision, SuggestedSpan, assistance_report

from ..models import Suggestion, SuggestionDecision
from ..report import span_study_for


def assistance_for(study):
    """The `assistance` part, or None for a study without arms and suggestions."""
    armed = Assignment.objects.filter(study=study).exclude(arm="").exists()
    suggestions = Suggestion.objects.filter(document__study=study)
    if not armed and not suggestions.exists():
        return None
    spans = [
        SuggestedSpan(document=document, key=key, category=category, segment=segment, start=start, end=end)
        for document, key, category, segment, start, end in suggestions.values_list(
            "document__external_id", "id", "category__key", "segment__index", "start", "end"
        )
    ]
    annotator_of = pseudonyms_of(study.pk)
    decisions = [
        Decision(
            document=document,
            annotator=annotator_of(worker),
            suggestion=suggestion,
            action=action,
            seconds=seconds,
        )  # fmt: skip
        for document, worker, suggestion, action, seconds in SuggestionDecision.objects.filter(
            assignment__study=study, assignment__status=Assignment.Status.SUBMITTED
        ).values_list(
            "assignment__document__external_id", "assignment__worker_id", "suggestion_id", "action", "seconds"
        )
    ]
    return assistance_report(span_study_for(study), spans, decisions)
