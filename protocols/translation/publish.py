"""The translation report's headline figure and tables for a paper (exports/publish.py writes them)."""

from exports.publish import Column, Table, ranking_tables

from .report_page import score_label


def translation_headline(result):
    agreement = result.get("score_agreement") or {}
    return {"label": "α (interval) of the segment scores", "value": agreement.get("alpha"),
            "reason": agreement.get("alpha_reason") or agreement.get("reason") or result.get("reason", "")}  # fmt: skip


def translation_tables(result):
    systems = result.get("systems") or []
    if not systems:
        return []
    label = score_label(result)
    severities = result.get("severities") or []
    table = Table(
        name="system-scores",
        caption=f"{label} per system ({'higher' if result.get('higher_is_better') else 'lower'} is better): the mean "
                "over rated segments" + (", and the errors marked by severity." if severities else "."),
        columns=[Column("System"), Column(label, digits=3), Column("Segments", digits=0),
                 *[Column(s, digits=0) for s in severities]],
        rows=[(row["system"], row["score"], row["segments"], *[row["errors"].get(s, 0) for s in severities])
              for row in systems],
    )  # fmt: skip
    return [table, *ranking_tables(result, score_label=label), *ranking_tables(result, score_label="DA z-score",
                                                                               key="ranking_z")]  # fmt: skip
