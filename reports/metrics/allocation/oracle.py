"""The oracle: how few cells *any* buying order could need, for a bound on what a policy can save.

The oracle knows the finished study (every cell's score, the full data's ranking and clusters),
so it knows which systems need many items and which need few. It does not choose items by
their scores: no live policy sees a score before buying the cell, and a subset of items picked
for its scores can reproduce any ranking with a handful of cells, which bounds nothing. So the
items still come in a random order (the seed's), and the oracle chooses only how many of them
each system is rated on: system s on the first n_s of its planned items in that order (nested
prefixes, so two systems share as many items as their sizes allow).

The sizes come from a model of what a random subset of a pair's items gives, sampling without
replacement from the full data (the argument of docs/adaptive-allocation.md, "How much it
saves"): with fractions f_a, f_b of their items, the difference of the two systems' means
varies by S_a^2 / N_a (1/f_a - 1) + S_b^2 / N_b (1/f_b - 1) - 2 S_ab N_ab / (N_a N_b)
(1 / max(f_a, f_b) - 1) around the full data's, and the pair's paired z over its g = min(f_a, f_b)
shared items is about normal with mean z sqrt(g) and variance 1 - g, z being its full-data
z, against the paired t test's critical value on those items (none below `fewest_items`). A plan succeeds when at most (1 - tau) / 2 of the pairs are out of order (Kendall tau >= tau)
and the clusters are the full data's: every pair across a boundary significant, and no boundary
where the full data have none. Starting from every cell, the oracle takes away, a step at a
time, the step of cells whose loss lowers that probability least; read backwards, the plans
are nested, and buying their cells in that order is the oracle's buying order (`oracle_order`),
which `replay` checks like any policy's on the seed's items.
"""

from itertools import combinations

import numpy as np
from scipy import stats

from .clusters import fewest_items

STEPS = 100  # the oracle takes cells away in steps of about 1 % of a system's items


def _pair_model(scores, full_ranking, systems, *, alpha):
    """Per pair of system columns (a, b): what the success model needs of the full data."""
    planned = ~np.isnan(scores)
    count = planned.sum(0)
    filled = np.where(planned, scores, 0.0)
    means = filled.sum(0) / np.maximum(count, 1)
    centred = np.where(planned, scores - means, 0.0)
    spread = (centred**2).sum(0) / np.maximum(count - 1, 1)
    pairs = list(combinations(range(len(systems)), 2))
    a, b = (np.array(side) for side in zip(*pairs, strict=True))
    both = planned[:, a] & planned[:, b]
    shared = both.sum(0)
    differences = np.where(both, filled[:, a] - filled[:, b], 0.0)
    paired_mean = differences.sum(0) / np.maximum(shared, 1)
    paired_spread = (np.where(both, differences - paired_mean, 0.0) ** 2).sum(0) / np.maximum(shared - 1, 1)
    covariance = (np.where(both, centred[:, a] * centred[:, b], 0.0)).sum(0) / np.maximum(shared - 1, 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        z = np.abs(paired_mean) / np.sqrt(paired_spread / shared)
    model = {
        "a": a, "b": b, "count": count, "spread": spread, "covariance": covariance, "shared": shared,
        "gap": np.abs(means[a] - means[b]), "z": np.nan_to_num(z, nan=0.0, posinf=1e6),
        "alpha": alpha, "boundary": [], "inside": [],
    }  # fmt: skip
    if full_ranking is None:
        return model
    column = {system: place for place, system in enumerate(systems)}
    order = [column[row["system"]] for row in full_ranking["systems"]]
    cluster = {column[row["system"]]: row["cluster"] for row in full_ranking["systems"]}
    significant = {
        frozenset((column[r["better"]], column[r["worse"]]))
        for r in full_ranking["pairs"]
        if r["significant"]
    }
    model["significant"] = np.array([frozenset(pair) in significant for pair in pairs])
    place = {pair: n for n, pair in enumerate(pairs)}
    for position in range(1, len(order)):
        across = [place[tuple(sorted((up, down)))] for up in order[:position] for down in order[position:]]
        boundary = cluster[order[position - 1]] != cluster[order[position]]
        model["boundary" if boundary else "inside"].append(np.array(across))
    return model


def _success(fractions, model, *, tau):
    """(probability that the plan gives tau >= `tau` and the full clusters, expected failures) for
    each row of `fractions` (candidate plans x systems)."""
    fa, fb = fractions[:, model["a"]], fractions[:, model["b"]]
    n_a, n_b = model["count"][model["a"]], model["count"][model["b"]]
    rated = (fa * n_a >= 2) & (fb * n_b >= 2)
    with np.errstate(invalid="ignore", divide="ignore"):
        variance = (
            model["spread"][model["a"]] / n_a * (1 / fa - 1)
            + model["spread"][model["b"]] / n_b * (1 / fb - 1)
            - 2 * model["covariance"] * model["shared"] / (n_a * n_b) * (1 / np.maximum(fa, fb) - 1)
        )
        wrong = np.where(variance > 1e-15, stats.norm.cdf(-model["gap"] / np.sqrt(variance)), 0.0)
        shared = np.minimum(fa, fb)
        tail = np.sqrt(np.maximum(1 - shared, 1e-12))
        items = shared * model["shared"]
        critical = stats.t.isf(model["alpha"] / 2, np.maximum(items - 1, 1))
        significant = stats.norm.cdf((model["z"] * np.sqrt(shared) - critical) / tail)
        significant = np.where(items >= fewest_items(model["alpha"]), significant, 0.0)
    wrong = np.where(rated, np.nan_to_num(wrong, nan=0.5), 0.5)
    if "significant" in model:  # all the pair's items: the full data's own decision
        significant = np.where(shared >= 1, model["significant"], significant)
    significant = np.where(rated & (model["shared"] > 1), np.nan_to_num(significant), 0.0)
    allowed = int(np.floor((1 - tau) * len(model["a"]) / 2 + 1e-9))
    # Poisson-binomial: the chance of at most `allowed` pairs out of order.
    out_of_order = np.zeros((fractions.shape[0], allowed + 1))
    out_of_order[:, 0] = 1.0
    for pair in range(wrong.shape[1]):
        q = wrong[:, pair : pair + 1]
        shifted = np.hstack([np.zeros((len(q), 1)), out_of_order[:, :-1]])
        out_of_order = out_of_order * (1 - q) + shifted * q
    probability = out_of_order.sum(1)
    failures = wrong.sum(1)
    for across in model["boundary"]:
        holds = significant[:, across].prod(1)
        probability, failures = probability * holds, failures + (1 - significant[:, across]).sum(1)
    for across in model["inside"]:
        spurious = significant[:, across].prod(1)
        probability, failures = probability * (1 - spurious), failures + spurious
    return probability, failures


def oracle_plans(scores, full_ranking, systems, *, alpha=0.05, tau=0.95):
    """[cells per system], from every planned cell down to none, each plan the one before less a
    step of one system's cells: the step whose loss keeps the success probability highest (then
    the fewest expected failures: pairs out of order, boundary pairs not significant, spurious
    boundaries). `full_ranking` is rank_systems of the full data (None: tau alone)."""
    model = _pair_model(scores, full_ranking, systems, alpha=alpha)
    planned_count = model["count"].astype(float)
    size = np.maximum(1, np.round(planned_count / STEPS)).astype(int)
    sizes = model["count"].astype(int).copy()
    plans = [sizes.copy()]
    while sizes.sum():
        candidates = [s for s in range(len(sizes)) if sizes[s]]
        trial = np.tile(sizes, (len(candidates), 1))
        for row, s in enumerate(candidates):
            trial[row, s] = max(0, sizes[s] - size[s])
        probability, failures = _success(trial / np.maximum(planned_count, 1), model, tau=tau)
        # Probabilities that differ in the last bits are a tie: then fewer expected failures.
        best = min(range(len(candidates)), key=lambda row: (-round(probability[row], 9), failures[row]))
        sizes = trial[best]
        plans.append(sizes.copy())
    return plans[::-1]


def item_queues(scores, rng):
    """[each system column's planned item rows, in one random order of the items (rng's next
    permutation)]: the order in which the oracle's plans, and hindsight's, rate a system."""
    planned = ~np.isnan(scores)
    rows = rng.permutation(scores.shape[0])
    return [[int(row) for row in rows if planned[row, s]] for s in range(scores.shape[1])]


def oracle_order(scores, rng, plans):
    """Cells in the order the oracle buys them: the seed's random order of items, each system on
    the first items of it it is planned on, as many as the growing plans give it."""
    queue = item_queues(scores, rng)
    order = []
    for smaller, larger in zip(plans[:-1], plans[1:], strict=True):
        for s in np.flatnonzero(larger > smaller):
            order.extend((row, int(s)) for row in queue[s][smaller[s] : larger[s]])
    return order


def oracle_chances(scores, full_ranking, systems, fractions, *, alpha=0.05, tau=0.95):
    """[(fraction, the model's chance that the oracle's plan of that many cells gives tau >= `tau`
    and the full data's clusters)]: the model's answer, which the replay checks on items."""
    plans = oracle_plans(scores, full_ranking, systems, alpha=alpha, tau=tau)
    model = _pair_model(scores, full_ranking, systems, alpha=alpha)
    total = plans[-1].sum()
    counts = np.maximum(model["count"], 1)
    chosen = [next(plan for plan in plans if plan.sum() >= fraction * total) for fraction in fractions]
    probability, _failures = _success(np.array(chosen) / counts, model, tau=tau)
    return [(fraction, float(chance)) for fraction, chance in zip(fractions, probability, strict=True)]
