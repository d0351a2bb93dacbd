"""An evaluator run as the suggestion source of an assisted study (docs/assisted-annotation.md):
every span the run placed becomes a suggestion shown to the suggestion arm. In an MQM or ESA
study every error the judge placed is pre-filled for that arm (translation/suggesting.py)."""

from protocols.span.assistance.sources import SuggestedSpan, SuggestionsRefused, suggestions_replace
from protocols.translation.assistance.sources import SuggestionsRefused as TranslationSuggestionsRefused

from . import answers
from .models import EvaluatorResult, EvaluatorRun
from .modes import TRANSLATION
from .translation.suggesting import use_run_as_suggested_errors

# What the admin action and the command catch: either protocol's refusal.
REFUSED = (SuggestionsRefused, TranslationSuggestionsRefused)


def run_suggestions(run):
    """The run's placed spans (one per location; a paired category's with its earlier span)."""
    spans = []
    results = run.results.filter(status=EvaluatorResult.Status.OK).order_by("document_id")
    for document_id, items in results.values_list("document_id", "items"):
        for item in items:
            if item.get("status") != answers.FOUND:
                continue
            earlier = tuple(item["earlier"]) if item.get("earlier") else None
            for segment, start, end in item["locations"]:
                spans.append(SuggestedSpan(document_id, segment, start, end, item["category"], earlier))
    return spans


def use_run_as_suggestions(run):
    """Make the run's spans the study's suggestions; returns (suggestions, documents)."""
    if run.status != EvaluatorRun.Status.DONE:
        raise SuggestionsRefused(
            f"run {run.pk} is {run.status}: only a finished run can be the suggestion source"
        )
    study = run.evaluator.study
    if study.protocol in TRANSLATION:
        return use_run_as_suggested_errors(run)
    spans = run_suggestions(run)
    count = suggestions_replace(
        study=study, spans=spans, source=f"evaluator {run.evaluator.key}, run {run.pk}"
    )
    return count, len({span.document_id for span in spans})


def latest_finished_run(evaluator):
    return evaluator.runs.filter(status=EvaluatorRun.Status.DONE).order_by("-finished_at", "-pk").first()
