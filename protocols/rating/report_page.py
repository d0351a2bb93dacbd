"""The rating protocols' section of the report page."""

from reports.charts import spread_chart
from reports.ranking_page import ranking_context

RELIABILITY_LABELS = {
    "scale_overlap": "scale overlap (Tang et al. 2022: overlap length / overall range length, mean over pairs)",
    "scale_overlap_points": "scale overlap counted in scale points (not the paper's figure)",
}


Z_SCORE = "Mean z-score"


def rating_report_context(result):
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
    rated = any((values.get("n") or 0) > 0 for values in scores.values())
    return {
        "empty": ""
        if rated
        else "Scores and reliability come from submitted ratings; this report found none.",
        "system_scores": sorted(scores.items()),
        "reliability": reliability,
        "shr": result.get("shr"),
        "binarised": result.get("binarised"),
        "test_retest": result.get("test_retest"),
        "ranking": ranking_context(
            result.get("ranking"), score_label="Counting score" if protocol == "bws" else "Mean rating"
        ),
        "ranking_z": ranking_context(
            result.get("ranking_z"),
            score_label=Z_SCORE,
            key="ranking-z",
            title="Ranking on z-scores (each annotator's ratings standardised)",
        ),
        "scores_chart": spread_chart(
            rows,
            title=f"System scores ({'counting score' if protocol == 'bws' else 'mean rating'}) ± 1 SD",
            axis_label="counting score (-1 to 1)" if protocol == "bws" else "mean rating",
        ),
    }
