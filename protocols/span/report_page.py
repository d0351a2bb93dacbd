"""The span protocol's section of the report page: agreement, distribution, annotators,
and the answers about the whole document."""

from reports.charts import bar_chart, grouped_bar_chart
from reports.ranking_page import ranking_context

from .publish import ERROR_RATE, in_taxonomy_order, reason_notes


def span_report_context(result):
    if "categories" not in result:
        return None
    categories = in_taxonomy_order(result, result.get("categories", {}))
    distribution = result.get("distribution", {})
    by_system = distribution.get("by_system", {})
    systems = sorted(by_system)
    rows = [{"key": key, **values} for key, values in categories.items()]
    tokens_by_category = distribution.get("tokens_by_category", {})
    return {
        # Before any submitted work every figure is missing for the same reason: say it once.
        "empty": not result.get("annotators") and not any(values.get("spans") for values in categories.values()),
        "category_notes": reason_notes(categories, ("token_alpha", "token_alpha_union", "two_agree_pct", "two_agree_pct_union")),
        "group_notes": reason_notes(result.get("groups", {}), ("sentence_alpha", "segment_alpha")),
        "assistance": assistance_figures(result.get("assistance")),
        "document_questions": document_question_figures(result.get("document_questions") or {}),
        "categories": rows,
        "groups": result.get("groups", {}),
        "experts": result.get("experts") and {
            **result["experts"], "categories": in_taxonomy_order(result, result["experts"].get("categories", {}))
        },
        "distribution_rows": [
            (key, values, tokens_by_category.get(key, {}))
            for key, values in in_taxonomy_order(result, distribution.get("by_category", {})).items()
        ],
        "annotators": result.get("annotators", {}),
        "ranking": ranking_context(result.get("ranking"), score_label=ERROR_RATE),
        "by_category": distribution.get("by_category", {}),
        "annotators_per_document": result.get("annotators_per_document"),
        "reference_kind": result.get("reference_kind"),
        "alpha_chart": bar_chart(
            [(key, values.get("token_alpha")) for key, values in categories.items()],
            title="Token-level alpha per category", low=0.0, high=1.0,
            axis_label="Krippendorff's α over tokens (1: full agreement, 0: chance)",
        ),
        "two_agree_chart": bar_chart(
            [(key, values.get("two_agree_pct")) for key, values in categories.items()],
            title="Two-agree % per category", high=100.0, color="#1b7837",
            axis_label="% of marked tokens that two annotators marked", digits=1,
        ),
        "distribution_chart": grouped_bar_chart(
            [
                (key, {system: by_system[system].get(key, {}).get("per_100_tokens") for system in systems})
                for key in categories
            ],
            systems,
            title="Errors per 100 tokens, by category and system",
            axis_label="error spans per 100 tokens", digits=2,
        ),
    }  # fmt: skip


CORRELATION_FIELDS = ("pearson_r", "pearson_p", "spearman_rho", "spearman_p")


def document_question_figures(questions):
    """Per question (in the study's order): its answer counts as a table and a chart, and for
    a Likert question its mean and the correlations of error counts with the ratings."""
    figures = []
    for key, values in sorted(questions.items(), key=lambda item: item[1].get("position", 0)):
        counts = values.get("counts", {})
        if values.get("kind") == "likert":
            scale = values.get("scale", {})
            low, high = scale.get("min", 1), scale.get("max", 5)
            labels = [str(point) for point in range(low, high + 1)]
        else:
            labels = list(values.get("options", counts))
        rows = [(label, counts.get(label, 0)) for label in labels]
        correlations = values.get("correlations", {})
        # "all" first, then the categories (a jsonb column keeps no key order of its own).
        ordered = sorted(correlations, key=lambda name: name != "all")
        figures.append({
            "key": key,
            **values,
            "count_rows": rows,
            "chart": bar_chart(rows, title=f"Answers to {values.get('label') or key}") if rows else "",
            "correlation_rows": [
                {
                    "key": name,
                    **correlations[name],
                    "reason": next(
                        (correlations[name][f"{field}_reason"] for field in CORRELATION_FIELDS
                         if f"{field}_reason" in correlations[name]), "",
                    ),
                }
                for name in ordered
            ],
        })  # fmt: skip
    return figures


def assistance_figures(assistance):
    """The assistance part as table rows and charts (docs/assisted-annotation.md), or None."""
    if not assistance:
        return None
    scores = assistance.get("scores", {})
    by_arm = {}
    for row in scores.get("rows", []):
        by_arm.setdefault(row["category"], {})[row["arm"]] = row
    differences = {row["category"]: row for row in scores.get("differences", [])}
    score_rows = [
        {"category": category, "suggestions": arms.get("suggestions", {}), "control": arms.get("control", {}),
         "difference": differences.get(category, {})}
        for category, arms in by_arm.items()
    ]  # fmt: skip
    anchoring = assistance.get("anchoring", [])
    return {
        **assistance,
        "score_rows": score_rows,
        "f1_chart": grouped_bar_chart(
            [
                (
                    row["category"],
                    {arm: (row[arm].get("f1") or {}).get("value") for arm in ("suggestions", "control")},
                )
                for row in score_rows
            ],
            ["suggestions", "control"],
            title="F1 per category, by arm",
            labels={"suggestions": "with suggestions", "control": "control (no suggestions)"},
            axis_label="F1 against the reference (0 to 1)",
        ),  # fmt: skip
        "anchoring_chart": grouped_bar_chart(
            [
                (
                    row["category"],
                    {kind: row[kind]["acceptance"]["value"] for kind in ("correct", "incorrect")},
                )
                for row in anchoring
            ],
            ["correct", "incorrect"],
            title="Acceptance of correct and incorrect suggestions",
            labels={"correct": "correct suggestions", "incorrect": "incorrect suggestions"},
            axis_label="share accepted (0 to 1)",
        ),  # fmt: skip
    }
