"""What an evaluator's runs cost and how much of what it listed could be used: the comparison's
runs table, for span and translation studies alike."""

from statistics import quantiles

from protocols.translation.keys import ESA, scheme

from .answers import FOUND
from .models import EvaluatorResult


def run_figures(study, key):
    """Calls, tokens, cost and latency over every run of the evaluator; not found over its current results."""
    evaluator = study.evaluators.filter(key=key).first()
    if evaluator is None:  # model annotations imported in a bundle without their evaluator
        return {"kind": "unknown"}
    runs = list(evaluator.runs.all())
    results = EvaluatorResult.objects.filter(run__evaluator=evaluator)
    latencies = sorted(
        results.filter(cached=False, latency_ms__isnull=False).values_list("latency_ms", flat=True)
    )
    latest = {}  # the latest result of each document: the one behind its annotations now
    rows = results.order_by("created_at", "id").values_list(
        "document_id", "status", "listed", "placed", "scores"
    )
    for document, status, listed_here, placed_here, scores in rows:
        latest[document] = (status, listed_here, placed_here, scores or ())
    listed = sum(entry[1] for entry in latest.values())
    placed = sum(entry[2] for entry in latest.values())
    statuses = {}
    for status, *_ in latest.values():
        statuses[status] = statuses.get(status, 0) + 1
    figures = {
        "kind": evaluator.kind,
        "runs": len(runs),
        "calls": sum(run.calls for run in runs),
        "cached": sum(run.cached for run in runs),
        "prompt_tokens": sum(run.prompt_tokens for run in runs),
        "completion_tokens": sum(run.completion_tokens for run in runs),
        "cost": float(sum(run.cost for run in runs)),
        "documents": statuses,
        "items": listed,
        "placed": placed,
        "not_found_rate": (listed - placed) / listed if listed else None,
        "latency_ms_p50": _percentile(latencies, 50),
        "latency_ms_p95": _percentile(latencies, 95),
    }
    if figures["not_found_rate"] is None:
        figures["not_found_rate_reason"] = "the evaluator listed no error"
    if (
        scheme(study.protocol) == ESA
    ):  # a judge's segment scores: given, and stored (on the scale, once a segment)
        given = [entry for *_, scores in latest.values() for entry in scores]
        figures["scores_given"] = len(given)
        figures["scores_stored"] = sum(1 for entry in given if entry.get("status") == FOUND)
    return figures


def _percentile(values, percent):
    if not values:
        return None
    if len(values) == 1:
        return float(values[0])
    return float(quantiles(values, n=100, method="inclusive")[percent - 1])
