"""Average rank of each system over inputs, from the pairwise choices.

Within an input, every system compared there gets its win share over all
annotators' choices for that input, (wins + ties / 2) / comparisons, and
the systems are ranked by it, 1 = the highest share. Systems with equal
shares share the ranks they span, each getting their mean (two systems
level at the top both get 1.5). A system's average rank is the mean of its
ranks over the inputs where it was compared; inputs where it was not take
no part in its mean.
"""

import numpy as np

from reports.metrics.nullable import put_value

NO_INPUTS = "not compared in any input"


def input_ranks(comparisons):
    """Inputs x systems ranks (1 = best, mean ranks for equal shares), NaN where not compared."""
    sums, counts = comparisons.totals(comparisons.input, len(comparisons.table.inputs))
    present = counts > 0
    share = np.divide(
        sums, counts, out=np.zeros(sums.shape, dtype=float), where=present
    )  # float even with no choice
    # Shares are sums of halves divided by whole counts: equal fractions give equal floats.
    rivals = present[:, None, :]
    above = ((share[:, None, :] > share[:, :, None]) & rivals).sum(axis=2)
    level = ((share[:, None, :] == share[:, :, None]) & rivals).sum(axis=2)
    return np.where(present, 1.0 + above + (level - 1) / 2.0, np.nan)


def average_rank(comparisons):
    """``{system: {"average_rank", "inputs"}}``: mean rank over the inputs where it was compared."""
    ranks = input_ranks(comparisons)
    result = {}
    for number, system in enumerate(comparisons.systems):
        ranked = ranks[:, number]
        ranked = ranked[~np.isnan(ranked)]
        entry = put_value({}, "average_rank", float(ranked.mean()) if ranked.size else None, NO_INPUTS)
        entry["inputs"] = int(ranked.size)
        result[system] = entry
    return result
