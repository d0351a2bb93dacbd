"""How the errors of a span study are distributed over categories, systems and annotators.

Two measures side by side: spans (how many errors were marked) and error
tokens (how much text they cover, SNaC's Fig. 4, Goyal et al. 2022).
"""

import numpy as np

from reports.metrics.nullable import put_value
from reports.metrics.spans.ranges import merge_ranges


def _rates(counts, tokens, keys):
    result = {}
    for key, count in zip(keys, counts, strict=True):
        entry = {"count": int(count)}
        rate = 100.0 * float(count) / tokens if tokens else None
        result[key] = put_value(entry, "per_100_tokens", rate, "no token annotated")
    return result


def _token_rates(counts, tokens, keys):
    """Error tokens per category, with their rate per 100 tokens read and their share of all error tokens."""
    result = _rates(counts, tokens, keys)
    total = int(np.sum(counts))
    for key, count in zip(keys, counts, strict=True):
        share = 100.0 * float(count) / total if total else None
        put_value(result[key], "share_pct", share, "no error token")
    return result


def error_tokens(layout, table, size):
    """Per (annotation, category): how many distinct tokens that annotation's spans of the category touch.

    Returned as ``(owners, categories, counts)``: a token inside two
    overlapping spans of one annotation and category counts once.
    """
    lo, hi = layout.tokens.touched(table.starts, table.ends)
    # One "owner" per (annotation, category), so merging never joins categories.
    owners, lo, hi = merge_ranges(table.owners * size + table.categories, lo, hi)
    owners, categories = np.divmod(owners, size)
    return owners, categories, hi - lo


def distribution(documents, keys, layout, table, main):
    """Spans and error tokens per category and per system, spans per annotator.

    per_100_tokens = 100 x count / tokens annotated, where a document's
    tokens count once per main annotation of it (tokens read). Error tokens
    count per annotation: a token that two annotators marked counts twice,
    as their two spans over it count twice.
    """
    size = len(keys)
    tokens_read = layout.tokens.per_document()[table.documents]
    systems = list(dict.fromkeys(document.system for document in documents))
    system_numbers = {system: number for number, system in enumerate(systems)}
    document_systems = np.array([system_numbers[d.system] for d in documents], dtype=np.int64)
    annotation_systems = document_systems[table.documents]
    by_system_tokens = np.bincount(annotation_systems, weights=tokens_read, minlength=len(systems))

    def per_system(systems_of, categories, weights=None):
        return np.bincount(systems_of * size + categories, weights=weights, minlength=len(systems) * size)

    span_counts = per_system(annotation_systems[table.owners], table.categories)
    owners, categories, marked = error_tokens(layout, table, size)
    token_counts = per_system(annotation_systems[owners], categories, marked).astype(np.int64)
    annotators = list(dict.fromkeys(annotation.annotator for annotation in main))
    annotator_numbers = {name: number for number, name in enumerate(annotators)}
    span_annotators = np.array([annotator_numbers[a.annotator] for a in main], dtype=np.int64)[table.owners]
    by_annotator = np.bincount(span_annotators * size + table.categories, minlength=len(annotators) * size)
    read = int(tokens_read.sum())

    def by_system(counts, rates):
        return {
            system: rates(counts[number * size : (number + 1) * size], int(by_system_tokens[number]), keys)
            for number, system in enumerate(systems)
        }

    return {
        "by_category": _rates(np.bincount(table.categories, minlength=size), read, keys),
        "by_system": by_system(span_counts, _rates),
        "by_annotator": {
            name: dict(zip(keys, map(int, by_annotator[number * size : (number + 1) * size]), strict=True))
            for number, name in enumerate(annotators)
        },
        "tokens_by_category": _token_rates(
            np.bincount(categories, weights=marked, minlength=size), read, keys
        ),
        "tokens_by_system": by_system(token_counts, _token_rates),
    }
