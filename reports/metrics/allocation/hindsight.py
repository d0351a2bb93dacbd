"""Hindsight: how few cells a split between the systems needs when it also knows the draw.

The oracle (oracle.py) fixes each system's number of items before any is drawn, so it bounds
what a split fixed in advance can save, not what a policy that reacts to the ratings can: such
a policy stops spending on a pair as soon as *this* draw of items has settled it. Hindsight
is the reference for that. It knows the finished study and the seed's random order of items,
and chooses how many of them each system is rated on (system s on the first n_s of its items
in that order, as the oracle's plans are bought), checking every plan it considers on the cells
themselves: the plan holds when Kendall tau of its means against the full data's is at least
`tau` and its significance clusters (rank_systems, as the replay computes them) are the full
data's.

The search, per seed:

1. the smallest of the oracle's nested plans, at every 1 % of the cells, that holds on this
   draw (the oracle's own budget on this seed, had it known when to stop);
2. from there, one step of one system's items (about 1 % of them, oracle.STEPS) taken away at
   a time while the plan still holds, the steps tried in the order the oracle's model ranks
   them (the most harmless first), until no single step can be taken.

What it finds is a plan that holds, so the search shows how little a split can need with
hindsight of the draw; a plan smaller still may exist that a step at a time does not reach
(a plan can fail and a smaller one hold again, as significance comes and goes with the items).
It is no policy: it reads every score before it buys. Nor is it a strict bound seed by seed: a
policy that buys pair by pair rates a system on other items than the first n_s of the order,
and on HANNA `clusters` held sooner than the plan found in 2 seeds of 20 (36 against 50 %, 58
against 61 %); over the seeds it needed 9.5 points more (docs/benchmarks.md, "Hindsight").
"""

from dataclasses import dataclass

import numpy as np
from scipy import stats

from ..ranking import rank_systems
from .oracle import STEPS, _pair_model, _success, item_queues, oracle_plans
from .policies import _cells
from .replay import cluster_sets


@dataclass(frozen=True)
class Hindsight:
    sizes: dict  # {system: items it is rated on}
    cells: int  # cells in the plan
    fraction: float  # of the finished study's cells
    oracle_fraction: float  # the smallest oracle plan (at 1 % steps) that held on this draw
    checked: int  # plans checked on the cells


class _Draw:
    """The seed's order of items and the full data's answer; `holds(sizes)` checks a plan."""

    def __init__(self, by_system, *, seed, higher_is_better, resamples, alpha, tau):
        self.systems, self.items, self.scores = _cells(by_system)
        # The same draw as the oracle's replay (buying_order): the seed's first permutation.
        self.queue = item_queues(self.scores, np.random.default_rng(seed))
        self.settings = {
            "higher_is_better": higher_is_better,
            "resamples": resamples,
            "alpha": alpha,
            "seed": seed,
        }
        self.full_ranking = rank_systems(by_system, **self.settings)
        self.full_clusters = cluster_sets(self.full_ranking)
        self.full_means = np.nanmean(self.scores, axis=0)
        self.tau = tau
        self.checked = 0

    def holds(self, sizes):
        self.checked += 1
        if (sizes < 1).any():
            return False
        partial, means = {}, np.empty(len(self.systems))
        for column, system in enumerate(self.systems):
            rows = self.queue[column][: sizes[column]]
            partial[system] = {self.items[row]: self.scores[row, column] for row in rows}
            means[column] = self.scores[rows, column].mean()
        if stats.kendalltau(means, self.full_means).statistic < self.tau:
            return False
        return cluster_sets(rank_systems(partial, **self.settings)) == self.full_clusters


def hindsight_plan(by_system, *, seed=0, higher_is_better=True, resamples=1000, alpha=0.05, tau=0.95):
    """Hindsight for the draw of `seed` (module docstring) on ``{system: {item: score}}``."""
    draw = _Draw(
        by_system, seed=seed, higher_is_better=higher_is_better, resamples=resamples, alpha=alpha, tau=tau
    )
    scores = draw.scores
    total = int((~np.isnan(scores)).sum())
    plans = oracle_plans(scores, draw.full_ranking, draw.systems, alpha=alpha, tau=tau)
    sizes = plans[-1]
    for percent in range(1, 101):  # the first of the oracle's plans, in 1 % steps, that holds
        plan = next(plan for plan in plans if plan.sum() >= percent / 100 * total)
        if draw.holds(plan):
            sizes = plan.copy()
            break
    oracle_fraction = sizes.sum() / total
    model = _pair_model(scores, draw.full_ranking, draw.systems, alpha=alpha)
    count = model["count"].astype(float)
    step = np.maximum(1, np.round(count / STEPS)).astype(int)
    while True:
        trials = np.array(
            [np.maximum(0, sizes - step * (np.arange(len(sizes)) == s)) for s in range(len(sizes))]
        )
        probability, failures = _success(trials / np.maximum(count, 1), model, tau=tau)
        ranked = sorted(range(len(sizes)), key=lambda s: (-round(probability[s], 9), failures[s]))
        taken = next(
            (trials[s] for s in ranked if trials[s].sum() < sizes.sum() and draw.holds(trials[s])), None
        )
        if taken is None:
            break
        sizes = taken
    return Hindsight(
        sizes={system: int(n) for system, n in zip(draw.systems, sizes, strict=True)},
        cells=int(sizes.sum()),
        fraction=float(sizes.sum() / total),
        oracle_fraction=float(oracle_fraction),
        checked=draw.checked,
    )
