"""A run in a few lines of figures (the command's output, admin's run page)."""

from collections import Counter

from protocols.translation.keys import ESA, scheme
from studies.models import Segment

from .answers import FOUND


def item_counts(run):
    """Counts of the run's items by status, of documents by result status, and of the places
    in the text the placed items were found at (an error quoted twice is placed twice)."""
    items, documents, places = Counter(), Counter(), 0
    for status, placed in run.results.values_list("status", "items"):
        documents[status] += 1
        for item in placed or ():
            items[item.get("status", "invalid")] += 1
            if item.get("status") == FOUND:
                places += len(item.get("locations") or ())
    return items, documents, places


def run_summary(run):
    items, documents, places = item_counts(run)
    listed = sum(items.values())
    not_found = listed - items[FOUND]
    # Each place becomes a span (and a suggestion), so say how many when it is not one per error.
    at_places = f" (at {places} places)" if places != items[FOUND] else ""
    lines = [
        f"run {run.pk} of {run.evaluator.key}: {run.status}, {run.finished} of {run.total} documents",
        "documents: "
        + (", ".join(f"{count} {status}" for status, count in sorted(documents.items())) or "none"),
        f"errors listed: {listed}, placed in the text: {items[FOUND]}{at_places}, not placed: {not_found}"
        + (
            f" ({', '.join(f'{n} {s}' for s, n in sorted(items.items()) if s != FOUND)})" if not_found else ""
        ),
    ]
    scores = score_counts(run)
    if scores is not None:
        stored, others, segments = scores
        lines.append(
            f"segment scores: {stored} stored of {segments} segments"
            + (f"; not stored: {', '.join(f'{n} {s}' for s, n in sorted(others.items()))}" if others else "")
        )
    if run.evaluator.kind == "llm":
        lines.append(
            f"calls: {run.calls}, answered from the cache: {run.cached}, tokens: {run.prompt_tokens:,} in / "
            f"{run.completion_tokens:,} out, cost: {run.cost:.4f}"
        )
    return lines


def score_counts(run):
    """An ESA judge's run: (scores stored, {status: count} of those not stored, segments of the
    documents with a result); None for a run that gives no scores."""
    if scheme(run.evaluator.study.protocol) != ESA:
        return None
    stored, others, documents = 0, Counter(), []
    for document, scores in run.results.values_list("document_id", "scores"):
        documents.append(document)
        for entry in scores or ():
            if entry.get("status") == FOUND:
                stored += 1
            else:
                others[entry.get("status", "invalid")] += 1
    return stored, others, Segment.objects.filter(document_id__in=documents).count()
