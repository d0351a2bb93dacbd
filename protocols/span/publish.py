"""The span report's headline figure and its tables for a paper (exports/publish.py writes them)."""

from exports.publish import Column, Table, ranking_tables

ERROR_RATE = "Error spans per 100 tokens"


def in_taxonomy_order(result, by_category):
    """`by_category` (a part of the span report keyed by category) in the taxonomy's order.

    The report keeps that order in `category_order`: PostgreSQL's jsonb sorts keys by length,
    so a stored report read back would otherwise list "RepE" before "CharE".
    """
    order = {key: place for place, key in enumerate(result.get("category_order") or [])}
    return dict(sorted(by_category.items(), key=lambda item: (order.get(item[0], len(order)), item[0])))


def reason_notes(values_by_key, fields):
    """Each distinct reason a figure is missing, once, with the figures it explains."""
    found = {}
    for key, values in values_by_key.items():
        for field in fields:
            reason = values.get(f"{field}_reason")
            if values.get(field) is None and reason and key not in found.setdefault(reason, []):
                found[reason].append(key)
    return [f"n/a ({', '.join(keys)}): {reason}." for reason, keys in found.items()]


def span_headline(result):
    categories = result.get("categories") or {}
    alphas = [
        values["token_alpha"] for values in categories.values() if values.get("token_alpha") is not None
    ]
    if alphas:
        return {"label": f"token α, mean of {len(alphas)} categories", "value": sum(alphas) / len(alphas)}
    reasons = [
        values.get("token_alpha_reason") for values in categories.values() if values.get("token_alpha_reason")
    ]
    return {
        "label": "token α",
        "value": None,
        "reason": reasons[0] if reasons else "no category has a figure yet",
    }


def span_tables(result):
    categories = in_taxonomy_order(result, result.get("categories") or {})
    if not categories:
        return []
    per_document = result.get("annotators_per_document")
    agreement = Table(
        name="agreement",
        caption=f"Inter-annotator agreement per error category ({per_document} annotators per document).",
        columns=[Column("Category"), Column("Spans", digits=0), Column("Token alpha", r"Token $\alpha$", 3),
                 Column("Token alpha (union)", r"Token $\alpha$ (union)", 3), Column("Two agree %", r"Two agree (\%)", 1),
                 Column("Two agree % (union)", r"Two agree, union (\%)", 1)],
        rows=[(key, v.get("spans"), v.get("token_alpha"), v.get("token_alpha_union"), v.get("two_agree_pct"),
               v.get("two_agree_pct_union")) for key, v in categories.items()],
        notes=reason_notes(categories, ("token_alpha", "token_alpha_union", "two_agree_pct")),
    )  # fmt: skip
    tables = [agreement]
    groups = result.get("groups") or {}
    if groups:
        tables.append(Table(
            name="groups", caption="Agreement on sentences and segments, per category group.",
            columns=[Column("Group"), Column("Sentence alpha", r"Sentence $\alpha$", 3),
                     Column("Segment alpha", r"Segment $\alpha$", 3)],
            rows=[(group, v.get("sentence_alpha"), v.get("segment_alpha")) for group, v in groups.items()],
            notes=reason_notes(groups, ("sentence_alpha", "segment_alpha")),
        ))  # fmt: skip
    by_system = (result.get("distribution") or {}).get("by_system") or {}
    if by_system:
        systems = sorted(by_system)
        tables.append(Table(
            name="errors-by-system", caption="Error spans per 100 tokens, by category and system.",
            columns=[Column("Category"), *[Column(system, digits=2) for system in systems]],
            rows=[(key, *[by_system[s].get(key, {}).get("per_100_tokens") for s in systems]) for key in categories],
        ))  # fmt: skip
    return tables + ranking_tables(result, score_label=ERROR_RATE)
