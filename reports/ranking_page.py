"""A ranking with significance (reports/metrics/ranking.py) on the report page: the table
of systems by cluster, the pairs the test separates, and the scores with their intervals
as a chart. Protocols' report sections include reports/_ranking.html with this context."""

from reports.charts import interval_chart
from reports.metrics.ranking import ranks_two_or_more


def ranking_context(ranking, *, score_label, key="ranking", title="Ranking of the systems"):
    """The template's context; `key` names the section's element ids (a page may show two
    rankings), `title` its heading."""
    if not ranks_two_or_more(ranking):
        return None
    direction = "higher is better" if ranking["higher_is_better"] else "lower is better"
    return {
        **ranking,
        "key": key,
        "title": title,
        "score_label": score_label,
        "direction": direction,
        "level_pct": round(ranking["level"] * 100),
        "separated": [pair for pair in ranking["pairs"] if pair["significant"]],
        "not_separated": [pair for pair in ranking["pairs"] if not pair["significant"]],
        "chart": interval_chart(
            [(row["system"], row["score"], row["low"], row["high"]) for row in ranking["systems"]],
            title=f"{score_label} per system, best first, with {round(ranking['level'] * 100)}% intervals",
            axis_label=f"{score_label} ({direction})",
        ),
    }
