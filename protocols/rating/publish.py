"""The rating reports' headline figure and tables for a paper (exports/publish.py writes them)."""

from exports.publish import Column, Table, ranking_tables

from .report_page import RELIABILITY_LABELS, Z_SCORE


def rating_headline(result):
    value = result.get("alpha_ordinal")
    return {"label": "ordinal α", "value": value, "reason": result.get("alpha_ordinal_reason", "")}


def rating_tables(result):
    scores = result.get("system_scores") or {}
    if not scores:
        return []
    bws = result.get("protocol") == "bws"
    key, label = ("counting", "Counting score") if bws else ("mean", "Mean rating")
    tables = [Table(
        name="system-scores", caption=f"System scores ({label.lower()}), with their standard deviation.",
        columns=[Column("System"), Column(label, digits=3), Column("SD", digits=3), Column("n", digits=0)],
        rows=[(system, v.get(key), v.get("sd"), v.get("n")) for system, v in sorted(scores.items())],
    )]  # fmt: skip
    tables += ranking_tables(result, score_label=label)
    tables += ranking_tables(result, score_label=Z_SCORE, key="ranking_z")
    names = [
        n for n in ("alpha_ordinal", "alpha_interval", "change_rate_pct", "scale_overlap") if n in result
    ]
    if names:
        tables.append(Table(
            name="reliability", caption="Reliability of the ratings.",
            columns=[Column("Figure"), Column("Value", digits=3)],
            rows=[(RELIABILITY_LABELS.get(n, n.replace("_", " ")), result.get(n)) for n in names],
            notes=[f"n/a ({n}): {result[n + '_reason']}." for n in names if result.get(n) is None and result.get(n + "_reason")],
        ))  # fmt: skip
    return tables
