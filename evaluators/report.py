"""The report's `evaluator_comparison`: each evaluator against the people, per category, and what it cost.

The figures come from reports/metrics/spans/evaluators.py over the study as
the span report loads it; model annotations are named by their evaluator's
key (they are not people: no pseudonym). Calls, tokens, cost and latency
come from the evaluators' runs; the not-found rate from the results behind
the current annotations (the latest result per document).
"""

from statistics import quantiles

from annotations.models import Assignment
from protocols.span.report import span_layout_for, span_study_for
from reports.charts import grouped_bar_chart
from reports.metrics.spans.evaluators import evaluator_comparison

from .models import EvaluatorResult
from .review import reviewed_precision

REFERENCE_NAMES = ("union", "two_agree", "gold")
# The references in the report's words (docs/evaluators.md, "Read the report").
REFERENCE_LABELS = {
    "union": "any annotator marked it",
    "two_agree": "two annotators agree",
    "gold": "expert gold",
}
SEED = 0
RESAMPLES = 1000


def evaluator_comparison_for(study, *, seed=SEED, resamples=RESAMPLES, progress=None):
    """The comparison, or None when no evaluator has annotated a document of the study."""
    if study.protocol != "span":
        return None
    model_workers = dict(
        Assignment.objects.filter(study=study, kind=Assignment.Kind.MODEL, status=Assignment.Status.SUBMITTED)
        .values_list("worker_id", "worker__external_id")
        .distinct()
    )
    if not model_workers:
        return None
    span_study = span_study_for(study)  # names model annotations by their evaluator's key (pseudonyms_of)
    layout = span_layout_for(study, span_study)
    figures = evaluator_comparison(
        span_study, seed=seed, resamples=resamples, progress=progress, layout=layout
    )
    figures["runs"] = {key: _run_figures(study, key) for key in sorted(model_workers.values())}
    reviewed = reviewed_precision(study)
    if reviewed is not None:
        figures["reviewed"] = reviewed
    return figures


def _run_figures(study, key):
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
    rows = results.order_by("created_at", "id").values_list("document_id", "status", "listed", "placed")
    for document, status, listed_here, placed_here in rows:
        latest[document] = (status, listed_here, placed_here)
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
    return figures


def _percentile(values, percent):
    if not values:
        return None
    if len(values) == 1:
        return float(values[0])
    return float(quantiles(values, n=100, method="inclusive")[percent - 1])


def comparison_context(result):
    """The report page's section: per evaluator, a table per reference and a chart of F1."""
    comparison = result.get("evaluator_comparison")
    if not comparison:
        return None
    evaluators = comparison.get("evaluators", [])
    by_evaluator = comparison.get("by_evaluator", {})
    rows = []
    for key in evaluators:
        figures = by_evaluator.get(key, {})
        for category, levels in figures.get("categories", {}).items():
            rows.append({"evaluator": key, "category": category, "levels": levels})
    categories = sorted({row["category"] for row in rows})
    chart = grouped_bar_chart(
        [
            (category, {key: _f1(by_evaluator, key, category) for key in evaluators})
            for category in categories
        ],
        evaluators,
        title="Token-level F1 against the union of the annotators, by category and evaluator",
        axis_label="token-level F1 (0 to 1)",
    )
    references_chart = grouped_bar_chart(
        [
            (key, {name: _pooled_f1(by_evaluator, key, name) for name in REFERENCE_NAMES})
            for key in evaluators
        ],
        list(REFERENCE_NAMES),
        title="Token-level F1 over all categories, by evaluator and reference",
        labels=REFERENCE_LABELS,
        axis_label="token-level F1 (0 to 1)",
    )
    return {
        "evaluators": evaluators,
        "rows": rows,
        "references_chart": references_chart,
        "runs": comparison.get("runs", {}),
        "references": comparison.get("references", {}),
        "one_more": {key: by_evaluator.get(key, {}).get("one_more_annotator", {}) for key in evaluators},
        "reviewed": comparison.get("reviewed", {}),
        "chart": chart,
    }


def _pooled_f1(by_evaluator, key, reference):
    return by_evaluator.get(key, {}).get("all", {}).get("token", {}).get(reference, {}).get("f1")


def _f1(by_evaluator, key, category):
    return (
        by_evaluator.get(key, {})
        .get("categories", {})
        .get(category, {})
        .get("token", {})
        .get("union", {})
        .get("f1")
    )
