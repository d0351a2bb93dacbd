"""Split-half reliability of system win rates, as for the rating studies (METRICS.md).

The blocks are split into two halves, which then share neither annotators
nor documents; each system's win rate, (wins + ties / 2) / comparisons, is
computed in each half, and Pearson r is taken across the systems, averaged
over every split (or over random ones with a fixed seed when there are too
many). The machinery is the ratings' :func:`split_half_reliability`: a
system's sum in a block is its wins + ties / 2 there and its count its
comparisons.
"""

from reports.metrics.ratings.split_half import MAX_EXHAUSTIVE, split_half_reliability


def win_rate_shr(comparisons, *, splits=MAX_EXHAUSTIVE, seed=0):
    """SHR of the systems' win rates over the blocks; ``(result, None)`` or ``(None, reason)``."""
    sums, counts = comparisons.totals(comparisons.block, len(comparisons.table.blocks))
    return split_half_reliability(sums, counts, splits=splits, seed=seed)
