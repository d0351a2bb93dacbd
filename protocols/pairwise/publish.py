"""The pairwise report's headline figure and tables for a paper (exports/publish.py writes them)."""

from exports.publish import Column, Table, ranking_tables

from .report_page import RANKING_SCORE, _systems


def pairwise_headline(result):
    return {"label": "α (nominal) of the winners", "value": result.get("alpha_nominal"),
            "reason": result.get("alpha_nominal_reason", "")}  # fmt: skip


def pairwise_tables(result):
    systems = _systems(result)
    if not systems:
        return []
    level = round(100 * (result.get("bradley_terry") or {}).get("level", 0.95))
    return [Table(
        name="system-scores",
        caption=f"Win rates and Bradley-Terry scores with {level} % bootstrap intervals over inputs.",
        columns=[Column("System"), Column("Win rate", digits=3), Column("Comparisons", digits=0),
                 Column("Bradley-Terry", digits=3), Column("Interval low", digits=3), Column("Interval high", digits=3)],
        rows=[(row["system"], row.get("win_rate"), row.get("comparisons"), row["bt"].get("score"),
               row["bt"].get("ci_low"), row["bt"].get("ci_high")) for row in systems],
    )] + ranking_tables(result, score_label=RANKING_SCORE)  # fmt: skip
