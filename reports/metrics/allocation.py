"""Spending ratings where the ranking is uncertain, and replaying a finished study to see what it saves.

A comparison study is a grid of *cells*: system s rated on item i. The study plans some of the
cells (`planned`, a boolean matrix items x systems); it has bought some (`bought`), with their
scores. The questions a study asks while it runs, and that a replay asks of a finished study:

- how likely is it that two systems' order, from the cells bought so far, is not the order the
  whole plan would give (`order_doubt`)? Shared items give a paired comparison (the mean
  difference over items both systems were rated on); systems with no shared items are compared
  by their means. Both estimates carry the finite-population correction: the plan is finite, so
  a pair rated on all its planned items is settled, whatever its gap.
- which cells to buy next (`next_pair`): the items for the pair whose order is most in doubt;
- is the ranking settled (`settled`): every pair's doubt below a threshold.

Policies (replayed by `replay`):

- `uniform` (what a study does today): items in a random order, each item rated for every
  system at once.
- `uncertain`: after a warm-up of `warmup` items rated for every system, the next item goes to
  the pair of systems whose order is most in doubt, both systems rated on the next item in the
  random order that the two have not both been rated on, until no pair's doubt is above
  `settled` (then the rest, item by item, as uniform does).

Everything is seeded: a policy's order of cells depends only on the cells and the seed.
"""

from dataclasses import dataclass
from itertools import combinations

import numpy as np
from scipy import stats

from .ranking import rank_systems

POLICIES = ("uniform", "uncertain")
FRACTIONS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
SETTLED = 0.01  # a pair whose order is in doubt with probability below this is left alone


@dataclass(frozen=True)
class Checkpoint:
    fraction: float  # of the finished study's cells
    cells: int  # cells bought
    tau: float | None  # Kendall tau-b of the systems' means against the full data's
    same_clusters: bool | None  # the significance clusters are the full data's (None: not tested)


def _cells(by_system):
    """(systems, items, scores matrix with NaN where not rated)."""
    systems = sorted(by_system)
    items = sorted({item for scores in by_system.values() for item in scores}, key=str)
    place = {item: n for n, item in enumerate(items)}
    scores = np.full((len(items), len(systems)), np.nan)
    for column, system in enumerate(systems):
        for item, score in by_system[system].items():
            scores[place[item], column] = score
    return systems, items, scores


def _variance(count, total, squares):
    """Sample variance from count, sum and sum of squares (floored: a pair of identical scores
    still has some doubt until the plan is done)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = total / count
        return np.maximum((squares - count * mean * mean) / np.maximum(count - 1, 1), 1e-12)


SUM_KEYS = ("shared", "difference", "squares", "shared_planned", "count", "total", "total_squares",
            "planned_count")  # fmt: skip


def pair_sums(scores, bought, planned):
    """The sums `order_doubt` needs, as arrays: per pair of system columns, the items both were
    rated on (`shared`), the sum of the differences over them (`difference`, [a, b]: x_a - x_b)
    and of their squares (`squares`), the items both are planned on (`shared_planned`); per
    system, the items rated (`count`), the sum and sum of squares of their scores, the items
    planned. A few systems-by-systems matrices, whatever the number of items: a live study
    keeps them between ratings instead of its grid."""
    b, p = bought.astype(float), planned.astype(float)
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
    }


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
    with np.errstate(invalid="ignore", divide="ignore"):
        paired_gap = np.abs(difference / shared)
        paired_spread = _variance(shared, difference, squares) / shared
        paired_spread *= np.clip(1 - shared / np.maximum(shared_planned, 1), 0, 1)
        # By the systems' own means, for pairs with (almost) no items in common.
        mean = total / count
        own = _variance(count, total, total_squares) / count * np.clip(1 - count / planned_count, 0, 1)
        gap = np.where(shared > 1, paired_gap, np.abs(mean[:, None] - mean[None, :]))
        spread = np.where(shared > 1, paired_spread, own[:, None] + own[None, :])
        doubt = np.where(spread > 1e-12, stats.norm.cdf(-gap / np.sqrt(spread)), 0.0)
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
    doubt = np.triu(order_doubt(scores, bought, planned), 1)
    most = doubt.max() if doubt.size else 0.0
    if most <= settled:
        return None
    candidates = np.argwhere(doubt == most)
    a, b = candidates[rng.integers(len(candidates))]
    return int(a), int(b)


def uniform_order(scores, rng):
    """Cells (item row, system column) item by item in a random order, every system of an item."""
    rows = rng.permutation(scores.shape[0])
    order = []
    for row in rows:
        columns = [int(c) for c in rng.permutation(scores.shape[1]) if not np.isnan(scores[row, c])]
        order.extend((int(row), c) for c in columns)
    return order


def uncertain_order(scores, rng, *, warmup=5, settled=SETTLED):
    """Cells in the order the `uncertain` policy buys them (module docstring)."""
    items, systems = scores.shape
    planned = ~np.isnan(scores)
    rows = [int(r) for r in rng.permutation(items)]
    bought = np.zeros(scores.shape, dtype=bool)
    order = []

    def buy(row, column):
        if planned[row, column] and not bought[row, column]:
            bought[row, column] = True
            order.append((row, column))

    for row in rows[:warmup]:
        for column in rng.permutation(systems):
            buy(row, int(column))
    searched = {}  # (a, b) -> where in `rows` the pair's search for an item goes on
    while (pair := next_pair(scores, bought, planned, rng, settled=settled)) is not None:
        position = searched.get(pair, 0)
        while position < items and not any(planned[rows[position], c] and not bought[rows[position], c]
                                           for c in pair):  # fmt: skip
            position += 1
        searched[pair] = position
        if position == items:  # cannot happen: a pair with nothing left to buy is settled
            break
        for column in pair:
            buy(rows[position], column)
    for row in rows:  # settled: the rest in the uniform order, for a replay to reach 100 %
        for column in range(systems):
            buy(row, column)
    return order


def _means(scores, cells):
    sums = np.zeros(scores.shape[1])
    counts = np.zeros(scores.shape[1])
    for row, column in cells:
        sums[column] += scores[row, column]
        counts[column] += 1
    with np.errstate(invalid="ignore", divide="ignore"):
        return sums / counts


def _cluster_sets(ranking):
    groups = {}
    for row in ranking["systems"]:
        groups.setdefault(row["cluster"], set()).add(row["system"])
    return sorted(frozenset(group) for group in groups.values()) if ranking["systems"] else []


def replay(by_system, *, policy, seed=0, fractions=FRACTIONS, higher_is_better=True, warmup=5,
           test_resamples=200, alpha=0.05):  # fmt: skip
    """[Checkpoint] of `policy` replayed on ``{system: {item: score}}`` (the finished study).

    At each fraction, tau compares the systems' means over the cells bought with their means
    over all cells; with `test_resamples`, the significance clusters of the cells bought
    (reports/metrics/ranking.rank_systems, paired randomisation) are compared with the full
    data's (None skips the clusters)."""
    if policy not in POLICIES:
        raise ValueError(f"unknown policy {policy!r}: one of {', '.join(POLICIES)}")
    systems, items, scores = _cells(by_system)
    rng = np.random.default_rng(seed)
    order = uniform_order(scores, rng) if policy == "uniform" else uncertain_order(scores, rng, warmup=warmup)
    full = _means(scores, order)
    settings = {
        "higher_is_better": higher_is_better,
        "resamples": test_resamples or 0,
        "alpha": alpha,
        "seed": seed,
    }
    full_clusters = _cluster_sets(rank_systems(by_system, **settings)) if test_resamples else None
    checkpoints = []
    for fraction in fractions:
        spent = max(1, round(fraction * len(order)))
        bought = order[:spent]
        means = _means(scores, bought)
        scored = ~np.isnan(means)
        tau = stats.kendalltau(means[scored], full[scored]).statistic if scored.sum() >= 2 else np.nan
        same = None
        if test_resamples:
            partial = {}
            for row, column in bought:
                partial.setdefault(systems[column], {})[items[row]] = scores[row, column]
            same = _cluster_sets(rank_systems(partial, **settings)) == full_clusters and len(partial) == len(
                systems
            )
        checkpoints.append(Checkpoint(fraction, spent, None if np.isnan(tau) else float(tau), same))
    return checkpoints


def pair_spending(by_system, *, policy, seed=0, fraction=0.5, warmup=5):
    """{(system, system): items both were rated on} after `fraction` of the cells: where a
    policy spent its budget."""
    systems, _items, scores = _cells(by_system)
    rng = np.random.default_rng(seed)
    order = uniform_order(scores, rng) if policy == "uniform" else uncertain_order(scores, rng, warmup=warmup)
    bought = np.zeros(scores.shape, dtype=bool)
    for row, column in order[: max(1, round(fraction * len(order)))]:
        bought[row, column] = True
    return {
        (systems[a], systems[b]): int((bought[:, a] & bought[:, b]).sum())
        for a, b in combinations(range(len(systems)), 2)
    }


def budget_needed(checkpoints, *, tau=0.95):
    """The smallest fraction from which on every checkpoint has Kendall tau >= `tau` and the
    full data's clusters (when tested), or None."""
    needed = None
    for checkpoint in reversed(checkpoints):
        if checkpoint.tau is None or checkpoint.tau < tau or checkpoint.same_clusters is False:
            break
        needed = checkpoint.fraction
    return needed
