"""System rankings with significance, for any protocol that scores systems on shared items.

The input is one score per (system, item): an MQM segment's error weight, an ESA or DA
segment score (averaged over its raters), a Likert item's mean, a pairwise item's win
share. From it (../shared/METRICS.md, "Translation studies ... and rankings with
significance"):

- each system's mean with a percentile bootstrap interval (items resampled with
  replacement; the same draws for every system, so the intervals are comparable);
- a two-sided test for every pair of systems over the items both were scored on:
  paired approximate randomisation (each item's two scores swapped with probability
  1/2; p = (hits + 1) / (R + 1)) or the Wilcoxon signed-rank test; or, for systems
  scored on different items (WMT's DA campaigns), the unpaired one-sided Wilcoxon
  rank-sum (Mann-Whitney U) test of the better system's item scores against the worse's;
- WMT-style clusters: a boundary between ranks k and k+1 when every system at or above
  k is significantly better than every system at or below k+1.

Everything is seeded, so a report computed twice gives the same figures. The resamples
are drawn in chunks and applied to all systems (or all pairs) at once as matrix
products, so memory is bounded by the chunk, not by the number of resamples.
"""

from dataclasses import dataclass
from itertools import combinations

import numpy as np
from scipy import stats

PERMUTATION = "paired approximate randomisation"
WILCOXON = "Wilcoxon signed-rank"
RANK_SUM = "one-sided Wilcoxon rank-sum (unpaired)"
TESTS = {"permutation": PERMUTATION, "wilcoxon": WILCOXON, "ranksum": RANK_SUM}

# Resamples drawn at once: a chunk x items matrix of float64 (8 MB at 100 x 10,000 items).
CHUNK = 100


def ranks_two_or_more(ranking):
    """Whether a stored ranking compares anything: one system alone is not shown or published."""
    return bool(ranking) and len(ranking.get("systems") or ()) >= 2


def item_means(scores, systems=()):
    """``{system: {item: mean}}`` from ``(system, item, score)`` rows: an item scored several
    times for one system (by several raters) counts once, with its mean. Every one of
    `systems` is a key, scored or not (rank_systems lists an unscored one apart)."""
    sums, counts = {}, {}
    for system, item, score in scores:
        key = (system, item)
        sums[key] = sums.get(key, 0.0) + score
        counts[key] = counts.get(key, 0) + 1
    by_system = {system: {} for system in systems}
    for (system, item), total in sums.items():
        by_system.setdefault(system, {})[item] = total / counts[system, item]
    return by_system


@dataclass(frozen=True)
class ScoreTable:
    """Scores as a matrix: ``scores[i, s]`` is system s's score on item i, NaN where not scored."""

    systems: tuple
    items: tuple
    scores: np.ndarray

    @classmethod
    def from_mapping(cls, by_system):
        """From ``{system: {item: score}}``; systems and items in sorted order."""
        systems = tuple(sorted(by_system))
        items = tuple(sorted({item for scores in by_system.values() for item in scores}, key=str))
        place = {item: number for number, item in enumerate(items)}
        scores = np.full((len(items), len(systems)), np.nan)
        for column, system in enumerate(systems):
            for item, score in by_system[system].items():
                scores[place[item], column] = score
        return cls(systems, items, scores)

    @property
    def rated(self):
        return ~np.isnan(self.scores)

    def means(self):
        counts = self.rated.sum(axis=0)
        sums = np.where(self.rated, self.scores, 0.0).sum(axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            return sums / counts, counts


def bootstrap_intervals(table, *, resamples=1000, level=0.95, seed=0):
    """Per system, the (low, high) percentile interval of its mean over resampled items.

    One draw of items serves every system: a system scored on a subset of the items
    takes the drawn items it has (its mean over them). A draw with none of its items
    is left out of that system's interval.
    """
    rng = np.random.default_rng(seed)
    items = len(table.items)
    filled = np.where(table.rated, table.scores, 0.0)
    present = table.rated.astype(np.float64)
    means = []
    for start in range(0, resamples, CHUNK):
        size = min(CHUNK, resamples - start)
        drawn = rng.integers(0, items, size=(size, items))
        drawn += np.arange(size)[:, None] * items  # resample * items + item: one bincount for all
        # How often each item was drawn in each resample: a size x items count matrix.
        counts = np.bincount(drawn.ravel(), minlength=size * items).reshape(size, items).astype(np.float64)
        del drawn
        with np.errstate(invalid="ignore", divide="ignore"):
            means.append((counts @ filled) / (counts @ present))
    means = np.vstack(means)
    tail = (1.0 - level) / 2 * 100
    intervals = []
    for column in range(len(table.systems)):
        values = means[:, column]
        values = values[~np.isnan(values)]
        if values.size == 0:
            intervals.append((None, None))
        else:
            low, high = np.percentile(values, [tail, 100 - tail])
            intervals.append((float(low), float(high)))
    return intervals


def paired_differences(table, pairs):
    """An items x pairs matrix of score differences (first minus second), 0 where either
    system was not scored, and the number of shared items per pair."""
    differences = np.zeros((len(table.items), len(pairs)))
    shared = np.zeros(len(pairs), dtype=np.int64)
    for column, (first, second) in enumerate(pairs):
        both = table.rated[:, first] & table.rated[:, second]
        differences[both, column] = table.scores[both, first] - table.scores[both, second]
        shared[column] = int(both.sum())
    return differences, shared


def randomisation_p_values(differences, *, resamples=1000, seed=0):
    """Two-sided p of paired approximate randomisation for each column of ``differences``.

    Swapping an item's two scores flips the sign of its difference, so a resample is a
    vector of random signs, and the same signs serve every pair (a pair's unshared items
    have difference 0 and add nothing). A resample hits when the absolute sum of signed
    differences reaches the observed one; p = (hits + 1) / (resamples + 1).
    """
    rng = np.random.default_rng(seed)
    observed = np.abs(differences.sum(axis=0))
    # Sums of the same numbers in another order differ in the last bits: a resample equal
    # to the observed sum (e.g. all signs +) must count as a hit.
    tolerance = 1e-9 * np.maximum(1.0, np.abs(differences).sum(axis=0))
    hits = np.zeros(differences.shape[1], dtype=np.int64)
    for start in range(0, resamples, CHUNK):
        size = min(CHUNK, resamples - start)
        signs = rng.integers(0, 2, size=(size, differences.shape[0])) * 2.0 - 1.0
        hits += (np.abs(signs @ differences) >= observed - tolerance).sum(axis=0)
    return (hits + 1) / (resamples + 1)


def wilcoxon_p_values(differences, shared):
    """Two-sided p of the Wilcoxon signed-rank test per pair, over its shared items.

    Items with a difference of 0 are dropped (Wilcoxon's own rule); a pair with no
    nonzero difference has p = 1 (nothing tells the two apart).
    """
    p_values = []
    for column in range(differences.shape[1]):
        nonzero = differences[:, column][differences[:, column] != 0]
        if shared[column] == 0 or nonzero.size == 0:
            p_values.append(1.0)
        else:
            p_values.append(float(stats.wilcoxon(nonzero, zero_method="wilcox").pvalue))
    return np.asarray(p_values)


def rank_sum_p_values(table, pairs, sign):
    """One-sided p of the Wilcoxon rank-sum (Mann-Whitney U) test per (better, worse) pair:
    that the first system's item scores are stochastically better (greater when `sign` is 1,
    smaller when -1) than the second's. Unpaired: each system's own items, shared or not.
    The normal approximation with tie and continuity corrections (R's wilcox.test at these
    sizes); a pair where either system has no item has p = 1."""
    p_values = []
    for first, second in pairs:
        a = sign * table.scores[table.rated[:, first], first]
        b = sign * table.scores[table.rated[:, second], second]
        if a.size == 0 or b.size == 0 or np.ptp(np.concatenate([a, b])) == 0:
            p_values.append(1.0)
        else:
            test = stats.mannwhitneyu(a, b, alternative="greater", method="asymptotic", use_continuity=True)
            p_values.append(float(test.pvalue))
    return np.asarray(p_values)


def _unpaired_differences(table, pairs):
    """Per pair, the difference of the two systems' means over their own items."""
    means, _ = table.means()
    return [float(means[first] - means[second]) for first, second in pairs]


def clusters(order, better):
    """Cluster numbers (1 = best) for systems listed best first.

    ``better(a, b)``: a is significantly better than b. A boundary falls between
    positions k and k+1 when every system at or above k is significantly better than
    every system at or below k+1 (WMT's practice).
    """
    numbers, cluster = [], 1
    for position in range(len(order)):
        if position and all(better(above, below) for above in order[:position] for below in order[position:]):
            cluster += 1
        numbers.append(cluster)
    return dict(zip(order, numbers, strict=True))


def rank_systems(
    by_system, *, higher_is_better=True, test="permutation", resamples=1000, alpha=0.05, seed=0, level=0.95
):
    """The ranking of ``{system: {item: score}}``: scores, intervals, pairwise tests, clusters.

    Returns a dict ready for a report: the test's name and settings, one row per
    system (best first) and one row per pair of systems (better first).
    """
    if test not in TESTS:
        raise ValueError(f"unknown test {test!r}: one of {', '.join(TESTS)}")
    table = ScoreTable.from_mapping(by_system)
    means, counts = table.means()
    intervals = bootstrap_intervals(table, resamples=resamples, level=level, seed=seed)
    sign = 1.0 if higher_is_better else -1.0
    scored = [column for column in range(len(table.systems)) if counts[column]]
    order = sorted(scored, key=lambda column: (-sign * means[column], table.systems[column]))
    pairs = list(combinations(order, 2))  # (better, worse) by the observed means
    differences, shared = paired_differences(table, pairs)
    if test == "permutation":
        p_values = randomisation_p_values(differences, resamples=resamples, seed=seed)
    elif test == "wilcoxon":
        p_values = wilcoxon_p_values(differences, shared)
    else:
        p_values = rank_sum_p_values(table, pairs, sign)
        unpaired = _unpaired_differences(table, pairs)
    pair_rows, significant = [], set()
    for column, ((first, second), p, n) in enumerate(zip(pairs, p_values, shared, strict=True)):
        if test == "ranksum":
            difference, n = unpaired[column], int(counts[first] + counts[second])
        else:
            difference = float(differences[:, column].sum() / n) if n else None
        is_significant = bool(n and p < alpha and sign * (difference or 0.0) > 0)
        if is_significant:
            significant.add((first, second))
        pair_rows.append({
            "better": table.systems[first], "worse": table.systems[second], "items": int(n),
            "difference": difference, "p": float(p), "significant": is_significant,
        })  # fmt: skip
    cluster_of = clusters(order, lambda a, b: (a, b) in significant)
    system_rows = [
        {
            "system": table.systems[column],
            "rank": place + 1,
            "cluster": cluster_of[column],
            "score": float(means[column]),
            "items": int(counts[column]),
            "low": intervals[column][0],
            "high": intervals[column][1],
        }  # fmt: skip
        for place, column in enumerate(order)
    ]
    return {
        "test": TESTS[test],
        "resamples": resamples if test == "permutation" else None,
        "bootstrap_resamples": resamples,
        "level": level,
        "alpha": alpha,
        "seed": seed,
        "higher_is_better": higher_is_better,
        "systems": system_rows,
        "pairs": pair_rows,
        "unscored": [table.systems[column] for column in range(len(table.systems)) if not counts[column]],
    }


def adjacent_separation(ranking):
    """(separated, adjacent): how many of the ranking's adjacent pairs (rank k against rank k+1,
    by the observed means) differ significantly by its own test and alpha, of how many there are.

    Weaker than one cluster per system (WMT's clusters ask every system above a boundary to
    beat every one below it); this is the stopping rule "every adjacent pair separated".
    """
    order = [row["system"] for row in ranking["systems"]]
    significant = {(row["better"], row["worse"]) for row in ranking["pairs"] if row["significant"]}
    adjacent = list(zip(order[:-1], order[1:], strict=True))
    return sum(1 for pair in adjacent if pair in significant), len(adjacent)


# Up to this many raters every split into halves is used; above, random ones.
EXHAUSTIVE_RATERS = 12


def rank_stability(scores, *, splits=200, seed=0):
    """How stable the ranking is: Kendall's tau (tau-b) between the system scores of two
    disjoint halves of the raters, over many splits.

    ``scores`` are ``(system, item, rater, score)`` rows. A split puts half the raters
    (the smaller half when their number is odd) on one side; each side's system score is
    its mean over that side's rows, and tau compares the systems both sides scored. With
    at most EXHAUSTIVE_RATERS raters every split is used once, else ``splits`` random ones.
    Returns {"mean", "low", "high" (2.5th and 97.5th percentiles), "splits", "raters"}, or
    a dict with "reason" when there is nothing to compare.
    """
    rows = list(scores)
    raters = sorted({rater for _, _, rater, _ in rows}, key=str)
    systems = sorted({system for system, _, _, _ in rows}, key=str)
    if len(raters) < 2:
        return {"mean": None, "reason": "fewer than two raters", "raters": len(raters)}
    if len(systems) < 2:
        return {"mean": None, "reason": "fewer than two systems", "raters": len(raters)}
    rater_of = {rater: number for number, rater in enumerate(raters)}
    system_of = {system: number for number, system in enumerate(systems)}
    rater_numbers = np.array([rater_of[rater] for _, _, rater, _ in rows])
    system_numbers = np.array([system_of[system] for system, _, _, _ in rows])
    values = np.array([score for *_, score in rows], dtype=np.float64)
    half = len(raters) // 2
    if len(raters) <= EXHAUSTIVE_RATERS:
        # Each unordered split once: with an even number of raters, the halves holding rater 0
        # (the other half is its complement); with an odd one the smaller side names the split.
        sides = [set(side) for side in combinations(range(len(raters)), half) if len(raters) % 2 or 0 in side]
    else:
        rng = np.random.default_rng(seed)
        sides = [set(rng.choice(len(raters), size=half, replace=False).tolist()) for _ in range(splits)]
    taus = []
    for side in sides:
        on_side = np.isin(rater_numbers, list(side))
        means = []
        for chosen in (on_side, ~on_side):
            sums = np.bincount(system_numbers[chosen], weights=values[chosen], minlength=len(systems))
            counts = np.bincount(system_numbers[chosen], minlength=len(systems))
            with np.errstate(invalid="ignore", divide="ignore"):
                means.append(sums / counts)
        both = ~np.isnan(means[0]) & ~np.isnan(means[1])
        if both.sum() < 2:
            continue
        tau = stats.kendalltau(means[0][both], means[1][both]).statistic
        if not np.isnan(tau):
            taus.append(float(tau))
    if not taus:
        return {
            "mean": None,
            "reason": "no split of the raters scores two systems on both sides",
            "raters": len(raters),
        }
    low, high = np.percentile(taus, [2.5, 97.5])
    return {"mean": float(np.mean(taus)), "low": float(low), "high": float(high), "splits": len(taus),
            "raters": len(raters)}  # fmt: skip


def z_normalised(scores):
    """``(system, item, rater, score)`` rows with each rater's scores standardised: minus the
    rater's mean, over the rater's standard deviation (population SD, over all their rows;
    WMT's DA practice). A rater whose scores are all equal gets 0 for each (their scores
    tell no system apart)."""
    rows = list(scores)
    by_rater = {}
    for _, _, rater, score in rows:
        by_rater.setdefault(rater, []).append(score)
    moments = {rater: (float(np.mean(values)), float(np.std(values))) for rater, values in by_rater.items()}
    return [
        (system, item, rater, (score - moments[rater][0]) / moments[rater][1] if moments[rater][1] else 0.0)
        for system, item, rater, score in rows
    ]
