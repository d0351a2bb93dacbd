"""Token, sentence and segment agreement of a span study (SNaC, Goyal et al. 2022).

Each annotation is a coder; a unit's value for a coder is 1 when one of the
coder's spans touches the unit (shares at least one character), else 0.
Units are the tokens (sentences, segments) of documents with two or more
submitted main annotations, and every annotation of such a document codes
every unit of it, marked or not.

Every figure here depends on the units only through their *kinds*: how many
units have m coders of whom k marked them. That m x k table of counts is the
sufficient statistic of binary alpha and of two-agree: it adds up over
documents, so a report computed in parts (reports/metrics/spans/tallies.py)
merges the parts' tables and gets the very figures of one pass.
"""

import numpy as np

from reports.metrics.alpha import alpha_from_counts
from reports.metrics.nullable import put_value
from reports.metrics.spans.ranges import components, distinct_cover

NOTHING_MARKED = "no token marked by any annotator on documents with two or more annotators"


def unit_kinds(marked, coders):
    """``kinds[m, k]``: how many units have ``m`` coders of whom ``k`` marked the unit."""
    width = int(coders.max(initial=0)) + 1
    kinds = np.bincount(coders.astype(np.int64) * width + marked, minlength=width * width)
    return kinds.reshape(width, width)


def add_kinds(first, second):
    """The sum of two kinds tables of any sizes."""
    width = max(first.shape[0], second.shape[0])
    total = np.zeros((width, width), dtype=np.int64)
    total[: first.shape[0], : first.shape[1]] += first
    total[: second.shape[0], : second.shape[1]] += second
    return total


def kinds_alpha(kinds):
    """Nominal alpha of 0/1 values from a kinds table: each kind passed once, its units as the weight.

    Kinds go in (coders, marked) order, whatever the table's size, so equal
    tables give bit-identical alphas.
    """
    kinds = np.asarray(kinds, dtype=np.int64)
    kind_coders, kind_marked = np.nonzero(kinds)
    counts = np.stack([kind_coders - kind_marked, kind_marked], axis=1)
    return alpha_from_counts(counts, (0, 1), "nominal", weights=kinds[kind_coders, kind_marked])


def kinds_two_agree(kinds):
    """100 x units marked by >= 2 coders / units marked by >= 1 coder, or (None, reason)."""
    kinds = np.asarray(kinds, dtype=np.int64)
    once = int(kinds[:, 1:].sum())
    if not once:
        return None, NOTHING_MARKED
    return 100.0 * int(kinds[:, 2:].sum()) / once, None


def token_kinds(tokens, owners, starts, ends, coders):
    """The kinds tables of one category's tokens, as annotated and after union normalisation.

    ``owners``, ``starts``, ``ends``: the category's spans (annotation number,
    study coordinates); ``coders``: coders per token (0 or 1 outside the
    units). Union normalisation: spans of all annotators that overlap,
    directly or through a chain, form a component, and every annotator with
    a span in it is taken to have marked the whole component.
    """
    units = coders >= 2
    unit_coders = coders[units]
    lo, hi = tokens.touched(starts, ends)
    marked = distinct_cover(owners, lo, hi, len(tokens))[units]
    annotated = unit_kinds(marked, unit_coders)

    component, component_starts, component_ends = components(starts, ends)
    component_lo, component_hi = tokens.touched(component_starts, component_ends)
    marked = distinct_cover(owners, component_lo[component], component_hi[component], len(tokens))[units]
    return annotated, unit_kinds(marked, unit_coders)


def token_figures(annotated, union):
    """Token alpha and two-agree %, as annotated and after union normalisation, from kinds tables."""
    result = {}
    alpha = kinds_alpha(annotated)
    put_value(result, "token_alpha", alpha.alpha, alpha.reason)
    pct, reason = kinds_two_agree(annotated)
    put_value(result, "two_agree_pct", pct, reason)
    alpha = kinds_alpha(union)
    put_value(result, "token_alpha_union", alpha.alpha, alpha.reason)
    pct, reason = kinds_two_agree(union)
    put_value(result, "two_agree_pct_union", pct, reason)
    return result


def projection_kinds(units, owners, starts, ends, coders):
    """Kinds table of "the coder has a span touching this unit" over sentences or segments."""
    lo, hi = units.touched(starts, ends)
    marked = distinct_cover(owners, lo, hi, len(units))
    pairable = coders >= 2
    return unit_kinds(marked[pairable], coders[pairable])
