"""A translation judge's run as the suggestions of an assisted MQM or ESA study (ESA-AI): every
error the run placed becomes a suggestion pre-filled for the suggestion arm; errors it could
not place (or past the study's cap) are left out, as they were never stored."""

from protocols.translation.assistance.sources import Suggestion, suggested_errors_replace

from ..answers import FOUND
from ..models import EvaluatorResult


def run_errors(run):
    errors = []
    results = run.results.filter(status=EvaluatorResult.Status.OK).order_by("document_id")
    for document_id, items in results.values_list("document_id", "items"):
        for item in items:
            if item.get("status") != FOUND:
                continue
            for segment, start, end in item["locations"]:
                errors.append(
                    Suggestion(
                        document_id, segment, item["side"], start, end, item.get("category"), item["severity"]
                    )
                )
    return errors


def use_run_as_suggested_errors(run):
    """Make the run's errors the study's suggestions; returns (suggestions, documents)."""
    errors = run_errors(run)
    count = suggested_errors_replace(
        study=run.evaluator.study, errors=errors, source=f"evaluator {run.evaluator.key}, run {run.pk}"
    )
    return count, len({error.document_id for error in errors})
