"""What the report page shows, taken from a finished report's JSON."""

from reports.charts import bar_chart, grouped_bar_chart, spread_chart

RELIABILITY_LABELS = {
    "scale_overlap": "scale overlap (Tang et al. 2022: overlap length / overall range length, mean over pairs)",
    "scale_overlap_points": "scale overlap counted in scale points (not the paper's figure)",
}


def rating_page_context(result):
    """Likert and BWS reports: system scores with their spread, and reliability."""
    scores = result.get("system_scores", {})
    protocol = result.get("protocol")
    key = "counting" if protocol == "bws" else "mean"
    rows = [(system, values.get(key), values.get("sd")) for system, values in sorted(scores.items())]
    reliability = [
        (RELIABILITY_LABELS.get(name, name), result.get(name), result.get(f"{name}_reason", ""))
        for name in (
            "alpha_ordinal",
            "alpha_interval",
            "change_rate_pct",
            "scale_overlap",
            "scale_overlap_points",
        )
        if name in result
    ]
    return {
        "ready": True,
        "rating": True,
        "system_scores": sorted(scores.items()),
        "reliability": reliability,
        "shr": result.get("shr"),
        "binarised": result.get("binarised"),
        "test_retest": result.get("test_retest"),
        "scores_chart": spread_chart(
            rows, title=f"System scores ({'counting score' if protocol == 'bws' else 'mean rating'}) ± 1 SD"
        ),
    }


def review_page_context(result):
    """Review studies: per evaluator answer distributions, and agreement per question."""
    evaluators = sorted(result.get("evaluators", {}).items())
    return {
        "ready": True,
        "review": True,
        "evaluators": evaluators,
        "questions": sorted(result.get("questions", {}).items()),
        "real_error_chart": bar_chart([(name, e.get("real_error_pct")) for name, e in evaluators],
                                      title="Judged a real error (%) per evaluator", high=100.0),
        "not_found_chart": bar_chart([(name, e.get("not_found_pct")) for name, e in evaluators],
                                     title="Span not found in the output (%) per evaluator", high=100.0, color="#e15759"),
    }  # fmt: skip


def report_page_context(report):
    result = report.result or {}
    if report.status != "done":
        return {"ready": False}
    if result.get("protocol") == "review":
        return review_page_context(result)
    if result.get("protocol") in ("likert", "bws"):
        return rating_page_context(result)
    if "categories" not in result:
        return {"ready": False}
    categories = result.get("categories", {})
    distribution = result.get("distribution", {})
    by_system = distribution.get("by_system", {})
    systems = sorted(by_system)
    rows = [
        {
            "key": key,
            **values,
            "reasons": "; ".join(f"{k[:-7]}: {v}" for k, v in values.items() if k.endswith("_reason")),
        }
        for key, values in categories.items()
    ]
    tokens_by_category = distribution.get("tokens_by_category", {})
    return {
        "ready": True,
        "categories": rows,
        "groups": result.get("groups", {}),
        "experts": result.get("experts"),
        "distribution_rows": [
            (key, values, tokens_by_category.get(key, {}))
            for key, values in distribution.get("by_category", {}).items()
        ],
        "annotators": result.get("annotators", {}),
        "by_category": distribution.get("by_category", {}),
        "annotators_per_document": result.get("annotators_per_document"),
        "reference_kind": result.get("reference_kind"),
        "alpha_chart": bar_chart(
            [(key, values.get("token_alpha")) for key, values in categories.items()],
            title="Token-level alpha per category", low=0.0, high=1.0,
        ),
        "two_agree_chart": bar_chart(
            [(key, values.get("two_agree_pct")) for key, values in categories.items()],
            title="Two-agree % per category", high=100.0, color="#59a14f",
        ),
        "distribution_chart": grouped_bar_chart(
            [
                (key, {system: by_system[system].get(key, {}).get("per_100_tokens") for system in systems})
                for key in categories
            ],
            systems,
            title="Errors per 100 tokens, by category and system",
        ),
    }  # fmt: skip
