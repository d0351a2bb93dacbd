"""Replaying a finished study's ratings in the order a policy buys them: Kendall tau and the
significance clusters at each budget fraction against the full data's."""

from dataclasses import dataclass
from itertools import combinations

import numpy as np
from scipy import stats

from ..ranking import rank_systems
from .clusters import clusters_order
from .doubt import SETTLED
from .oracle import oracle_order, oracle_plans
from .policies import _cells, uncertain_order, uniform_order

# `oracle` is no policy a study can run: it reads the finished study (oracle.py), for a bound.
POLICIES = ("uniform", "uncertain", "clusters", "oracle")
FRACTIONS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


@dataclass(frozen=True)
class Checkpoint:
    fraction: float  # of the finished study's cells
    cells: int  # cells bought
    tau: float | None  # Kendall tau-b of the systems' means against the full data's
    same_clusters: bool | None  # the significance clusters are the full data's (None: not tested)


def _means(scores, cells):
    sums = np.zeros(scores.shape[1])
    counts = np.zeros(scores.shape[1])
    for row, column in cells:
        sums[column] += scores[row, column]
        counts[column] += 1
    with np.errstate(invalid="ignore", divide="ignore"):
        return sums / counts


def cluster_sets(ranking):
    """The significance clusters of a rank_systems ranking, as sets of systems."""
    groups = {}
    for row in ranking["systems"]:
        groups.setdefault(row["cluster"], set()).add(row["system"])
    return sorted(frozenset(group) for group in groups.values()) if ranking["systems"] else []


@dataclass(frozen=True)
class Run:
    """One seed's replay: the checkpoints at the fractions asked, and `stop`, the Checkpoint where
    the policy settled (no pair's doubt above `settled`: its `settled` stopping rule would have
    closed a live study there), None for a policy that never settles by itself (uniform, oracle)."""

    checkpoints: list
    stop: Checkpoint | None


def replay(by_system, *, policy, seed=0, fractions=FRACTIONS, **settings):
    """[Checkpoint] of `policy` replayed on ``{system: {item: score}}`` (the finished study):
    replay_run's checkpoints."""
    return replay_run(by_system, policy=policy, seed=seed, fractions=fractions, **settings).checkpoints


def replay_run(by_system, *, policy, seed=0, fractions=FRACTIONS, higher_is_better=True, warmup=5,
               test_resamples=200, alpha=0.05, test="permutation", settled=SETTLED):  # fmt: skip
    """Run of `policy` replayed on ``{system: {item: score}}`` (the finished study).

    At each fraction, tau compares the systems' means over the cells bought with their means
    over all cells; with `test_resamples`, the significance clusters of the cells bought
    (reports/metrics/ranking.rank_systems by `test`, paired randomisation by default) are
    compared with the full data's (None skips the clusters). The stop is checked the same way."""
    systems, items, scores = _cells(by_system)
    settings = {
        "higher_is_better": higher_is_better,
        "test": test,
        "resamples": test_resamples or 0,
        "alpha": alpha,
        "seed": seed,
    }
    full_ranking = rank_systems(by_system, **settings) if test_resamples else None
    order = buying_order(by_system, policy=policy, seed=seed, warmup=warmup, higher_is_better=higher_is_better,
                         alpha=alpha, full_ranking=full_ranking, settled=settled)  # fmt: skip
    full = _means(scores, order)
    full_clusters = cluster_sets(full_ranking) if test_resamples else None

    def checkpoint(fraction, spent):
        bought = order[:spent]
        means = _means(scores, bought)
        scored = ~np.isnan(means)
        tau = stats.kendalltau(means[scored], full[scored]).statistic if scored.sum() >= 2 else np.nan
        same = None
        if test_resamples:
            partial = {}
            for row, column in bought:
                partial.setdefault(systems[column], {})[items[row]] = scores[row, column]
            same = cluster_sets(rank_systems(partial, **settings)) == full_clusters and len(partial) == len(
                systems
            )
        return Checkpoint(fraction, spent, None if np.isnan(tau) else float(tau), same)

    checkpoints = [checkpoint(fraction, max(1, round(fraction * len(order)))) for fraction in fractions]
    stop = None
    if getattr(order, "settled", None) is not None:
        stop = checkpoint(order.settled / len(order), order.settled)
    return Run(checkpoints, stop)


def buying_order(by_system, *, policy, seed=0, warmup=5, higher_is_better=True, alpha=0.05, full_ranking=None,
                 settled=SETTLED):  # fmt: skip
    """[(item row, system column)]: every cell of the finished study, in the order `policy` buys
    them (rows and columns of `_cells`); for `uncertain` and `clusters` a BuyingOrder, which says
    where the policy settled (no pair's doubt above `settled`). `oracle` reads `full_ranking`
    (rank_systems of the full data; None: it aims at tau alone)."""
    if policy not in POLICIES:
        raise ValueError(f"unknown policy {policy!r}: one of {', '.join(POLICIES)}")
    systems, _items, scores = _cells(by_system)
    rng = np.random.default_rng(seed)
    if policy == "uniform":
        return uniform_order(scores, rng)
    if policy == "uncertain":
        return uncertain_order(scores, rng, warmup=warmup, settled=settled)
    if policy == "clusters":
        return clusters_order(scores, rng, warmup=warmup, settled=settled, alpha=alpha,
                              higher_is_better=higher_is_better)  # fmt: skip
    return oracle_order(scores, rng, oracle_plans(scores, full_ranking, systems, alpha=alpha))


def pair_spending(by_system, *, policy, seed=0, fraction=0.5, warmup=5, higher_is_better=True, resamples=200):
    """{(system, system): items both were rated on} after `fraction` of the cells: where a
    policy spent its budget."""
    systems, _items, scores = _cells(by_system)
    full_ranking = None
    if policy == "oracle":
        full_ranking = rank_systems(
            by_system, higher_is_better=higher_is_better, resamples=resamples, seed=seed
        )
    order = buying_order(by_system, policy=policy, seed=seed, warmup=warmup, higher_is_better=higher_is_better,
                         full_ranking=full_ranking)  # fmt: skip
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
        if not holds(checkpoint, tau=tau):
            break
        needed = checkpoint.fraction
    return needed


@dataclass(frozen=True)
class Summary:
    """`policy` replayed over several seeds: per fraction the mean tau and the share of seeds with
    the full data's clusters, each seed's budget needed, and each seed's stop (Run.stop)."""

    policy: str
    fractions: tuple
    mean_tau: tuple  # None where no seed had a tau (fewer than two systems bought)
    same_clusters: tuple  # share of the seeds, 0 to 1 (None: clusters not tested)
    needed: tuple  # per seed: budget_needed, None where the seed never got there
    stops: tuple = ()  # per seed: the Checkpoint where the policy settled, None where it does not settle

    @property
    def mean_needed(self):
        """The budget needed averaged over the seeds that get there, or None."""
        reached = [fraction for fraction in self.needed if fraction is not None]
        return sum(reached) / len(reached) if reached else None

    @property
    def mean_stop(self):
        """Where the policy settled, as a share of the cells, averaged over the seeds; None for a
        policy that does not settle by itself."""
        stops = [stop.fraction for stop in self.stops if stop is not None]
        return sum(stops) / len(stops) if stops else None

    @property
    def stops_right(self):
        """How many seeds' stops have tau >= 0.95 and the full data's clusters (when tested)."""
        return sum(holds(stop) for stop in self.stops if stop is not None)


def holds(checkpoint, *, tau=0.95):
    """The checkpoint has Kendall tau >= `tau` and the full data's clusters (when tested)."""
    return checkpoint.tau is not None and checkpoint.tau >= tau and checkpoint.same_clusters is not False


def summarise(by_system, *, policy, seeds=20, fractions=FRACTIONS, **settings):
    """Summary of `policy` replayed with seeds 0 to `seeds` - 1 (`settings` as `replay_run` takes them)."""
    runs = [
        replay_run(by_system, policy=policy, seed=seed, fractions=fractions, **settings)
        for seed in range(seeds)
    ]
    return summary_of(policy, runs, fractions)


def summary_of(policy, runs, fractions=FRACTIONS):
    """Summary of `policy` from its seeds' Runs, read at `fractions` only: a replay at finer steps
    gives the same summary as one at `fractions`, every checkpoint being computed on its own cells."""
    at = [{round(checkpoint.fraction, 6): checkpoint for checkpoint in run.checkpoints} for run in runs]
    read = [[checkpoints[round(fraction, 6)] for fraction in fractions] for checkpoints in at]
    mean_tau, same = [], []
    for place in range(len(fractions)):
        taus = [run[place].tau for run in read if run[place].tau is not None]
        mean_tau.append(sum(taus) / len(taus) if taus else None)
        tested = [run[place].same_clusters for run in read if run[place].same_clusters is not None]
        same.append(sum(tested) / len(tested) if tested else None)
    return Summary(
        policy,
        tuple(fractions),
        tuple(mean_tau),
        tuple(same),
        tuple(budget_needed(run) for run in read),
        tuple(run.stop for run in runs),
    )
