"""The pairwise protocol's section of the report page: system scores, agreement, reliability."""

from reports.charts import bar_chart, interval_chart
from reports.ranking_page import ranking_context

# Draws that break the existence condition can push an interval's ends far out
# (bradley_terry.py): the axis stops there, and the chart's table keeps the real ends.
AXIS_LIMIT = 6.0


def _systems(result):
    """One row per system, the highest win rate first (systems without comparisons last)."""
    rates = result.get("win_rates", {}).get("systems", {})
    bt = result.get("bradley_terry", {}).get("scores") or {}
    ranks = result.get("average_rank", {})
    rows = []
    for system, entry in rates.items():
        rows.append({
            "system": system, **entry,
            "bt": bt.get(system, {}),
            "average_rank": ranks.get(system, {}).get("average_rank"),
        })  # fmt: skip
    return sorted(rows, key=lambda row: (row["win_rate"] is None, -(row["win_rate"] or 0), row["system"]))


def _head_to_head(result, systems):
    """Rows of the head-to-head table: each system's win rate against every other one (None on the diagonal)."""
    table = result.get("win_rates", {}).get("head_to_head", {})
    return [(system, [table.get(system, {}).get(other) for other in systems]) for system in systems]


def _agreement(result):
    rows = [
        ("alpha_nominal", f"Krippendorff's α (nominal) of the winners, over the {result.get('pairable_pairs', 0)} "
                          "pairs judged by two or more annotators"),
        ("agreement_pct", f"agreement: % of the {result.get('agreement_pairs', 0)} pairs judged by two or more "
                          "annotators on which all chose the same winner (or all a tie)"),
        ("change_rate_pct", f"retest change: % of the {result.get('retest_pairs', 0)} pairs a worker judged again "
                            "in the retest whose winner changed (a tie against a winner is a change)"),
    ]  # fmt: skip
    return [(label, result.get(key), result.get(f"{key}_reason", "")) for key, label in rows if key in result]


RANKING_SCORE = "Win rate per input"


def pairwise_report_context(result):
    """Win rates, Bradley-Terry scores with their intervals, head to head, agreement, SHR, retest change."""
    systems = _systems(result)
    names = [row["system"] for row in systems]
    bt = result.get("bradley_terry", {})
    level = round(100 * bt.get("level", 0.95))
    return {
        "empty": ""
        if result.get("choices")
        else "Win rates and scores come from submitted choices; this report found none.",
        "counts": {
            key: result.get(key) for key in ("choices", "annotators", "blocks", "inputs", "pairs", "ties")
        },
        "allow_ties": result.get("allow_ties"),
        "strength_counts": sorted(
            (result.get("strength_counts") or {}).items(), key=lambda item: int(item[0])
        ),
        "without_strength": result.get("decisive_choices_without_strength"),
        "systems": systems,
        "system_names": names,
        "head_to_head": _head_to_head(result, names),
        "bt": bt,
        "bt_level": level,
        "agreement": _agreement(result),
        "shr": result.get("shr"),
        "shr_reason": result.get("shr_reason", ""),
        "ranking": ranking_context(result.get("ranking"), score_label=RANKING_SCORE),
        "win_rate_chart": bar_chart(
            [(row["system"], row["win_rate"]) for row in systems],
            low=0.0,
            high=1.0,
            title="Win rate: (wins + ties / 2) / comparisons",
            axis_label="win rate (0 to 1)",
        ),
        "bt_chart": interval_chart(
            [
                (row["system"], row["bt"].get("score"), row["bt"].get("ci_low"), row["bt"].get("ci_high"))
                for row in systems
            ],
            title=f"Bradley-Terry score (log-strength, mean 0) with {level} % bootstrap intervals over inputs",
            axis_label="log-strength (0: the average system)",
            limit=AXIS_LIMIT,
        ),
    }
