"""Per-system summaries of scores, and the block x system totals behind split-half reliability."""

import numpy as np

from reports.metrics.nullable import put_value


def score_summary(scores, what):
    """``{"mean", "sd", "n"}`` of ``scores``; ``what`` names them in the reasons ("ratings").

    The SD is the sample SD (ddof=1), so it needs two scores.
    """
    scores = np.asarray(scores, dtype=np.float64)
    summary = {}
    put_value(summary, "mean", float(scores.mean()) if scores.size else None, f"no {what}")
    sd = float(scores.std(ddof=1)) if scores.size >= 2 else None
    put_value(summary, "sd", sd, f"fewer than two {what}")
    summary["n"] = int(scores.size)
    return summary


def block_system_totals(table, item_numbers, scores):
    """Sums and counts of ``scores`` (one per entry of ``item_numbers``), blocks x systems.

    A system's score in a set of blocks is then sum of sums / sum of counts
    over those blocks: the mean of its scores there.
    """
    item_numbers = np.asarray(item_numbers, dtype=np.int64)
    cells = table.block_of[item_numbers] * len(table.systems) + table.system_of[item_numbers]
    size = len(table.blocks) * len(table.systems)
    shape = (len(table.blocks), len(table.systems))
    sums = np.bincount(cells, weights=np.asarray(scores, dtype=np.float64), minlength=size)
    counts = np.bincount(cells, minlength=size)
    return sums.reshape(shape), counts.reshape(shape)
