"""Token, sentence and segment agreement of a span study (SNaC, Goyal et al. 2022).

Each annotation is a coder; a unit's value for a coder is 1 when one of the
coder's spans touches the unit (shares at least one character), else 0.
Units are the tokens (sentences, segments) of documents with two or more
submitted main annotations, and every annotation of such a document codes
every unit of it, marked or not.
"""

import numpy as np

from reports.metrics.alpha import alpha_from_counts
from reports.metrics.nullable import put_value
from reports.metrics.spans.ranges import components, distinct_cover

NOTHING_MARKED = "no token marked by any annotator on documents with two or more annotators"


def binary_alpha(marked, coders):
    """Nominal alpha of 0/1 values: ``marked[u]`` of the ``coders[u]`` coders of unit u gave 1.

    Units come in few kinds (coders, marked), so they are counted by kind and
    passed once per kind with its number of units as the weight.
    """
    width = int(coders.max(initial=0)) + 1
    kinds = np.bincount(coders.astype(np.int64) * width + marked, minlength=width * width)
    present = np.flatnonzero(kinds)
    kind_coders, kind_marked = np.divmod(present, width)
    counts = np.stack([kind_coders - kind_marked, kind_marked], axis=1)
    return alpha_from_counts(counts, (0, 1), "nominal", weights=kinds[present])


def two_agree_pct(marked):
    """100 x units marked by >= 2 coders / units marked by >= 1 coder, or (None, reason)."""
    once = int(np.count_nonzero(marked >= 1))
    if not once:
        return None, NOTHING_MARKED
    return 100.0 * int(np.count_nonzero(marked >= 2)) / once, None


def token_agreement(tokens, owners, starts, ends, coders):
    """Token alpha and two-agree %, as annotated and after union normalisation, for one category.

    ``owners``, ``starts``, ``ends``: the category's spans (annotation number,
    study coordinates); ``coders``: coders per token (0 or 1 outside the
    units). Union normalisation: spans of all annotators that overlap,
    directly or through a chain, form a component, and every annotator with
    a span in it is taken to have marked the whole component.
    """
    units = coders >= 2
    unit_coders = coders[units]
    result = {}
    lo, hi = tokens.touched(starts, ends)
    marked = distinct_cover(owners, lo, hi, len(tokens))[units]
    alpha = binary_alpha(marked, unit_coders)
    put_value(result, "token_alpha", alpha.alpha, alpha.reason)
    pct, reason = two_agree_pct(marked)
    put_value(result, "two_agree_pct", pct, reason)

    component, component_starts, component_ends = components(starts, ends)
    component_lo, component_hi = tokens.touched(component_starts, component_ends)
    marked = distinct_cover(owners, component_lo[component], component_hi[component], len(tokens))[units]
    alpha = binary_alpha(marked, unit_coders)
    put_value(result, "token_alpha_union", alpha.alpha, alpha.reason)
    pct, reason = two_agree_pct(marked)
    put_value(result, "two_agree_pct_union", pct, reason)
    return result


def projection_alpha(units, owners, starts, ends, coders):
    """Alpha of "the coder has a span touching this unit" over sentences or segments."""
    lo, hi = units.touched(starts, ends)
    marked = distinct_cover(owners, lo, hi, len(units))
    pairable = coders >= 2
    return binary_alpha(marked[pairable], coders[pairable])
