"""Spending ratings where the ranking is uncertain, replayed on a finished study's ratings.

A finished comparison study is a set of cells: system s rated on item i, with a score. A
*policy* decides the order in which a study would have bought those cells; replaying the
finished study's cells in that order shows, at every budget fraction, how close the
ranking from the cells bought so far is to the ranking from all of them.

- `uniform` (what a study does today): items in a random order, each item rated for every
  system at once.
- `uncertain`: after a warm-up of `warmup` items rated for every system, the next cells go
  to the adjacent pair of systems (in the current order) whose order is least certain: the
  smallest |difference of means| over the standard error of the difference. Both systems
  are rated on the next item in the random order that the two have not both been rated on,
  so the pair is compared on shared items, as the ranking's paired tests want.

Everything is seeded: a policy's order of cells depends only on the cells and the seed.
"""

from dataclasses import dataclass
from itertools import combinations

import numpy as np
from scipy import stats

from .ranking import rank_systems

POLICIES = ("uniform", "uncertain")
FRACTIONS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


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


def uniform_order(scores, rng):
    """Cells (item row, system column) item by item in a random order, every system of an item."""
    rows = rng.permutation(scores.shape[0])
    order = []
    for row in rows:
        columns = [int(c) for c in rng.permutation(scores.shape[1]) if not np.isnan(scores[row, c])]
        order.extend((int(row), c) for c in columns)
    return order


class _Running:
    """Each system's count, sum and sum of squares over the cells bought."""

    def __init__(self, systems):
        self.n = np.zeros(systems)
        self.total = np.zeros(systems)
        self.squares = np.zeros(systems)

    def add(self, column, score):
        self.n[column] += 1
        self.total[column] += score
        self.squares[column] += score * score

    def means(self):
        with np.errstate(invalid="ignore", divide="ignore"):
            return self.total / self.n

    def variances_of_mean(self):
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = self.total / self.n
            variance = (self.squares - self.n * mean * mean) / np.maximum(self.n - 1, 1)
            return np.maximum(variance, 1e-12) / self.n


def uncertain_order(scores, rng, *, warmup=5):
    """Cells in the order the `uncertain` policy buys them (module docstring)."""
    items, systems = scores.shape
    rows = [int(r) for r in rng.permutation(items)]
    bought = np.zeros(scores.shape, dtype=bool)
    running = _Running(systems)
    order = []

    def buy(row, column):
        if bought[row, column] or np.isnan(scores[row, column]):
            return
        bought[row, column] = True
        running.add(column, scores[row, column])
        order.append((row, column))

    for row in rows[:warmup]:
        for column in rng.permutation(systems):
            buy(row, int(column))
    next_row = {}  # (a, b) -> where in `rows` the pair's search goes on
    exhausted = set()
    available = int((~np.isnan(scores)).sum())
    while len(order) < available:
        means = running.means()
        ranked = [int(c) for c in np.argsort(-np.nan_to_num(means, nan=-np.inf), kind="stable")]
        spread = running.variances_of_mean()
        pairs = []
        for a, b in zip(ranked, ranked[1:], strict=False):
            pair = (min(a, b), max(a, b))
            if pair in exhausted:
                continue
            gap = abs(means[a] - means[b]) if running.n[a] and running.n[b] else 0.0
            pairs.append((gap / np.sqrt(spread[a] + spread[b]) if running.n[a] > 1 and running.n[b] > 1 else 0.0,
                          rng.random(), pair))  # fmt: skip
        if not pairs:  # every adjacent pair has all its shared items: buy what is left, item by item
            for row in rows:
                for column in range(systems):
                    buy(row, column)
            break
        _, _, (a, b) = min(pairs)
        position = next_row.get((a, b), 0)
        while position < items:
            row = rows[position]
            lacking = [c for c in (a, b) if not bought[row, c] and not np.isnan(scores[row, c])]
            if lacking:
                for column in lacking:
                    buy(row, column)
                break
            position += 1
        next_row[(a, b)] = position
        if position >= items:
            exhausted.add((a, b))
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
