"""A run in a few lines of figures (the command's output, admin's run page)."""

from collections import Counter

from .answers import FOUND


def item_counts(run):
    """Counts of the run's items by status, and of documents by result status."""
    items, documents = Counter(), Counter()
    for status, placed in run.results.values_list("status", "items"):
        documents[status] += 1
        for item in placed or ():
            items[item.get("status", "invalid")] += 1
    return items, documents


def run_summary(run):
    items, documents = item_counts(run)
    listed = sum(items.values())
    not_found = listed - items[FOUND]
    lines = [
        f"run {run.pk} of {run.evaluator.key}: {run.status}, {run.finished} of {run.total} documents",
        "documents: "
        + (", ".join(f"{count} {status}" for status, count in sorted(documents.items())) or "none"),
        f"errors listed: {listed}, placed in the text: {items[FOUND]}, not placed: {not_found}"
        + (
            f" ({', '.join(f'{n} {s}' for s, n in sorted(items.items()) if s != FOUND)})" if not_found else ""
        ),
    ]
    if run.evaluator.kind == "llm":
        lines.append(
            f"calls: {run.calls}, answered from the cache: {run.cached}, tokens: {run.prompt_tokens:,} in / "
            f"{run.completion_tokens:,} out, cost: {run.cost:.4f}"
        )
    return lines
