"""The review protocol's section of the report page."""

from reports.charts import bar_chart


def review_report_context(result):
    """Review studies: per evaluator answer distributions, and agreement per question."""
    evaluators = sorted(result.get("evaluators", {}).items())
    reviewed = any(values.get("reviews") for _, values in evaluators)
    return {
        "empty": "" if reviewed else "Verdicts and agreement come from submitted reviews; this report found none.",
        "evaluators": evaluators,
        "questions": sorted(result.get("questions", {}).items()),
        "real_error_chart": bar_chart([(name, e.get("real_error_pct")) for name, e in evaluators],
                                      title="Judged a real error (%) per evaluator", high=100.0,
                                      axis_label="% of the evaluator's spans", digits=1),
        "not_found_chart": bar_chart([(name, e.get("not_found_pct")) for name, e in evaluators],
                                     title="Span not found in the output (%) per evaluator", high=100.0,
                                     color="#b2182b", axis_label="% of the evaluator's spans", digits=1),
    }  # fmt: skip
