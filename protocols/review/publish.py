"""The review report's headline figure and tables for a paper (exports/publish.py writes them)."""

from exports.publish import Column, Table


def review_headline(result):
    alphas = [q["alpha"] for q in (result.get("questions") or {}).values() if q.get("alpha") is not None]
    if not alphas:
        return {
            "label": "nominal α per question",
            "value": None,
            "reason": "no question has two reviewers of one item yet",
        }
    return {"label": f"nominal α, mean of {len(alphas)} questions", "value": sum(alphas) / len(alphas)}


def review_tables(result):
    evaluators = sorted((result.get("evaluators") or {}).items())
    if not evaluators:
        return []
    return [Table(
        name="evaluators", caption="Reviewed error annotations per evaluator.",
        columns=[Column("Evaluator"), Column("Items", digits=0), Column("Real error %", digits=1),
                 Column("Span not found %", digits=1)],
        rows=[(name, e.get("items"), e.get("real_error_pct"), e.get("not_found_pct")) for name, e in evaluators],
    )]  # fmt: skip
