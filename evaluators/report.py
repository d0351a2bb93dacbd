"""The report's `evaluator_comparison`: each evaluator against the people, per category, and what it cost.

In a span study the figures come from reports/metrics/spans/evaluators.py over the study as
the span report loads it; in an MQM or ESA study from reports/metrics/judge.py
(translation/report.py); model annotations are named by their evaluator's
key (they are not people: no pseudonym). Calls, tokens, cost and latency
come from the evaluators' runs; the not-found rate from the results behind
the current annotations (the latest result per document).
"""

from annotations.models import Assignment
from protocols.span.report import part_study, span_categories, span_layout_for, span_study_for
from reports.charts import grouped_bar_chart
from reports.metrics.spans.evaluators import evaluator_comparison
from reports.metrics.spans.evaluators.comparison import comparison_from_tallies, comparison_tallies
from reports.metrics.spans.layout import StudyLayout

from .modes import TRANSLATION
from .review import reviewed_precision
from .run_figures import run_figures
from .translation.report import translation_comparison_context, translation_comparison_for

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
    if study.protocol in TRANSLATION:
        return translation_comparison_for(study)
    if study.protocol != "span":
        return None
    model_workers = _model_workers(study)
    if not model_workers:
        return None
    span_study = span_study_for(study)  # names model annotations by their evaluator's key (pseudonyms_of)
    layout = span_layout_for(study, span_study)
    figures = evaluator_comparison(
        span_study, seed=seed, resamples=resamples, progress=progress, layout=layout
    )
    return _with_runs(study, figures, model_workers)


def evaluator_comparison_part(study, part):
    """A span study's part's tallies of the comparison (reports/parts.py), or None when no evaluator
    has annotated a document of the study (or the study is not a span study)."""
    if study.protocol != "span" or not _model_workers(study):
        return None
    span_study = part_study(study, part)
    return comparison_tallies(span_study, layout=StudyLayout(span_study.documents))


def evaluator_comparison_from_parts(study, tallies, *, seed=SEED, resamples=RESAMPLES):
    """The comparison from every part's tallies, as evaluator_comparison_for gives it in one pass."""
    model_workers = _model_workers(study)
    keys = [category.key for category in span_categories(study)]
    figures = comparison_from_tallies(tallies, keys, seed=seed, resamples=resamples)
    return _with_runs(study, figures, model_workers)


def _model_workers(study):
    return dict(
        Assignment.objects.filter(study=study, kind=Assignment.Kind.MODEL, status=Assignment.Status.SUBMITTED)
        .values_list("worker_id", "worker__external_id")
        .distinct()
    )


def _with_runs(study, figures, model_workers):
    figures["runs"] = {key: run_figures(study, key) for key in sorted(model_workers.values())}
    reviewed = reviewed_precision(study)
    if reviewed is not None:
        figures["reviewed"] = reviewed
    return figures


def comparison_context(result):
    """The report page's section: per evaluator, a table per reference and a chart of F1."""
    comparison = result.get("evaluator_comparison")
    if not comparison:
        return None
    if comparison.get("protocol") in TRANSLATION:
        return translation_comparison_context(comparison)
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
