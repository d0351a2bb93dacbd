"""How likely two systems' order, from the cells bought so far, is not the order the whole plan
would give (the package docstring says what a cell, a plan and a pair's doubt are)."""

import numpy as np
from scipy import special

SETTLED = 0.01  # a pair whose order is in doubt with probability below this is left alone


def _variance(count, total, squares):
    """Sample variance from count, sum and sum of squares (floored: a pair of identical scores
    still has some doubt until the plan is done)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = total / count
        return np.maximum((squares - count * mean * mean) / np.maximum(count - 1, 1), 1e-12)


SUM_KEYS = ("shared", "difference", "squares", "shared_planned", "count", "total", "total_squares",
            "planned_count")  # fmt: skip


def pair_sums(scores, bought, planned, done=None):
    """The sums `order_doubt` needs, as arrays: per pair of system columns, the items both were
    rated on (`shared`), the sum of the differences over them (`difference`, [a, b]: x_a - x_b)
    and of their squares (`squares`), the items both are planned on (`shared_planned`); per
    system, the items rated (`count`), the sum and sum of squares of their scores, the items
    planned. A few systems-by-systems matrices, whatever the number of items: a live study
    keeps them between ratings instead of its grid.

    `done` (a float matrix, 0 to 1; default `bought`): the share of each cell's planned ratings
    given so far. A live study plans K ratings of each output (annotators per document or
    block) and a cell has a score from its first one, so the plan is done on a pair's item only
    when both cells have all K: `shared_done` sums the product of the two shares over items,
    `count_done` a system's shares (both as `shared` and `count` when every cell is whole)."""
    b, p = bought.astype(float), planned.astype(float)
    w = b if done is None else np.where(bought, done, 0.0)
    x = np.where(bought, scores, 0.0)
    return {
        "shared": b.T @ b,
        "difference": x.T @ b - b.T @ x,
        "squares": (x * x).T @ b + b.T @ (x * x) - 2 * (x.T @ x),
        "shared_planned": p.T @ p,
        "count": b.sum(0),
        "total": x.sum(0),
        "total_squares": (x * x).sum(0),
        "planned_count": p.sum(0),
        "shared_done": w.T @ w,
        "count_done": w.sum(0),
    }


class RunningSums:
    """`pair_sums` of a replay kept up to date one bought cell at a time (every cell whole), so a
    policy that asks after each pair it buys costs the systems it touches, not the whole grid."""

    def __init__(self, scores, planned):
        p = planned.astype(float)
        systems = scores.shape[1]
        self.scores = scores
        self.bought = np.zeros(scores.shape, dtype=bool)
        self.sums = {key: np.zeros((systems, systems)) for key in ("shared", "difference", "squares")}
        self.sums.update({key: np.zeros(systems) for key in ("count", "total", "total_squares")})
        self.sums.update(shared_planned=p.T @ p, planned_count=p.sum(0))
        self.sums.update(shared_done=self.sums["shared"], count_done=self.sums["count"])

    def add(self, row, column):
        """Count cell (row, column) as bought."""
        sums, x = self.sums, self.scores[row, column]
        others = np.flatnonzero(self.bought[row])
        differences = x - self.scores[row, others]
        sums["shared"][column, others] += 1
        sums["shared"][others, column] += 1
        sums["shared"][column, column] += 1
        sums["difference"][column, others] += differences
        sums["difference"][others, column] -= differences
        sums["squares"][column, others] += differences * differences
        sums["squares"][others, column] += differences * differences
        sums["count"][column] += 1
        sums["total"][column] += x
        sums["total_squares"][column] += x * x
        self.bought[row, column] = True


def done_sums(sums):
    """(shared_done, count_done) of `pair_sums`, as `shared` and `count` for sums stored before
    these were kept (every cell then counted as whole)."""
    return tuple(
        np.asarray(sums.get(key, sums[fallback]), dtype=float)
        for key, fallback in (("shared_done", "shared"), ("count_done", "count"))
    )


def order_doubt(scores, bought, planned):
    """Systems x systems matrix: the probability that the pair's order from the bought cells is
    not the order of all planned cells (normal approximation, finite-population corrected).

    `scores` holds the bought cells' scores (anything elsewhere); `bought` and `planned` are
    boolean matrices of the same shape, bought within planned.
    """
    return doubt_from_sums(pair_sums(scores, bought, planned))


def doubt_from_sums(sums):
    """`order_doubt` from `pair_sums` (arrays or the lists a JSON copy of them holds). With
    ``sums["judged_together"]`` true, the systems' own means are not compared (a score that says
    how an output fared against the outputs judged with it means nothing against another's)."""
    shared, difference, squares, shared_planned, count, total, total_squares, planned_count = (
        np.asarray(sums[key], dtype=float) for key in SUM_KEYS
    )
    shared_done, count_done = done_sums(sums)
    with np.errstate(invalid="ignore", divide="ignore"):
        paired_gap = np.abs(difference / shared)
        paired_spread = _variance(shared, difference, squares) / shared
        # Finite population: what is left of the plan is its items not rated yet and the ratings
        # still to come on those rated (done_sums).
        paired_spread *= np.clip(1 - shared_done / np.maximum(shared_planned, 1), 0, 1)
        # By the systems' own means, for pairs with (almost) no items in common.
        mean = total / count
        own = _variance(count, total, total_squares) / count * np.clip(1 - count_done / planned_count, 0, 1)
        gap = np.where(shared > 1, paired_gap, np.abs(mean[:, None] - mean[None, :]))
        spread = np.where(shared > 1, paired_spread, own[:, None] + own[None, :])
        # special.ndtr is stats.norm.cdf without its argument checks, which cost more than this.
        doubt = np.where(spread > 1e-12, special.ndtr(-gap / np.sqrt(spread)), 0.0)
    if sums.get("judged_together"):
        # Scores relative to the outputs judged with them (BWS, pairwise): two systems compare only
        # on items they share, so a pair with fewer than two is in doubt while it has more planned.
        doubt = np.where(shared > 1, doubt, np.where(shared_planned > shared, 0.5, 0.0))
    unrated = (count < 2)[:, None] | (count < 2)[None, :]
    doubt = np.where(unrated & (planned_count[:, None] > 0) & (planned_count[None, :] > 0), 0.5, doubt)
    doubt = np.nan_to_num(doubt, nan=0.5)
    np.fill_diagonal(doubt, 0.0)
    return doubt


def next_pair(scores, bought, planned, rng, *, settled=SETTLED):
    """(a, b): the pair of system columns whose order is most in doubt, ties drawn by `rng`;
    None when every pair's doubt is at most `settled` (the ranking is settled)."""
    return most_doubtful_pair(order_doubt(scores, bought, planned), rng, settled=settled)


def most_doubtful_pair(doubt, rng, *, settled=SETTLED):
    """(a, b), a < b: the pair of a systems x systems doubt matrix most in doubt, ties drawn by
    `rng`; None when no pair's doubt is above `settled`."""
    doubt = np.triu(doubt, 1)
    most = doubt.max() if doubt.size else 0.0
    if most <= settled:
        return None
    candidates = np.argwhere(doubt == most)
    a, b = candidates[rng.integers(len(candidates))]
    return int(a), int(b)
