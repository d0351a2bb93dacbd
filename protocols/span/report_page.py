"""The span protocol's section of the report page: agreement, distribution, annotators."""

from reports.charts import bar_chart, grouped_bar_chart


def span_report_context(result):
    if "categories" not in result:
        return None
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
