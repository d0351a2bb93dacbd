"""The translation report's `assistance` part: the two arms' submitted work, the suggestions and
what the suggestion arm did with them (reports/metrics/translation_assistance.py)."""

from annotations.models import Assignment
from reports.metrics.translation import MarkedError
from reports.metrics.translation_assistance import Outcome, Suggested, assistance_comparison
from studies.models import Document

from .. import config
from ..models import SuggestedError, SuggestionPrefill, TranslationError
from . import CONTROL, SUGGESTIONS


def _submitted(study, arm):
    """An arm's submitted main work on main documents (a quality check keeps the worker's arm)."""
    return Assignment.objects.filter(
        study=study, kind=Assignment.Kind.MAIN, status=Assignment.Status.SUBMITTED, arm=arm,
        document__kind=Document.Kind.MAIN,
    )  # fmt: skip


def assistance_for(study, rated_segments):
    """The `assistance` part, or None for a study without arms and suggestions.

    rated_segments(study, submitted): the report's own loader (report.py), so both arms are
    read exactly as the people's figures read them."""
    armed = Assignment.objects.filter(study=study).exclude(arm="").exists()
    suggestions = SuggestedError.objects.filter(document__study=study)
    if not armed and not suggestions.exists():
        return None
    arms = {arm: rated_segments(study, _submitted(study, arm)) for arm in (SUGGESTIONS, CONTROL)}
    suggested = [
        Suggested(key, (system or "(no system)", input_id or external_id, index),
                  MarkedError(side, start, end, label or "", severity))
        for key, system, input_id, external_id, index, side, start, end, label, severity in suggestions.values_list(
            "id", "document__system", "document__input_id", "document__external_id", "segment__index", "side",
            "start", "end", "category__label", "severity",
        )
    ]  # fmt: skip
    prefilled = SuggestionPrefill.objects.filter(assignment__in=_submitted(study, SUGGESTIONS))
    shown_to = dict(prefilled.values_list("assignment_id", "assignment__document_id"))
    kept = set(
        TranslationError.objects.filter(assignment_id__in=shown_to, suggestion__isnull=False).values_list(
            "assignment_id", "suggestion_id"
        )
    )
    assignments_of = {}
    for assignment, document in shown_to.items():
        assignments_of.setdefault(document, []).append(assignment)
    outcomes = [
        Outcome(suggestion, str(assignment), (assignment, suggestion) in kept)
        for suggestion, document in suggestions.values_list("id", "document_id")
        for assignment in assignments_of.get(document, ())
    ]
    result = assistance_comparison(arms, suggested, outcomes, severities=config.severities(study))
    result["suggestions"] = len(suggested)
    result["assignments"] = {arm: _submitted(study, arm).count() for arm in (SUGGESTIONS, CONTROL)}
    result["prefilled"] = len(shown_to)
    return result
