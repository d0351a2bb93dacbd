"""Split-half reliability (SHR) of system scores over blocks.

Kiritchenko & Mohammad (2017), as used by Tang et al. (2022): split the
blocks into two halves, which then share neither annotators nor documents;
score every system in each half; Pearson r between the two halves' system
scores. As in Tang et al., the mean and SD of r are taken over every split
(each unordered split once) when there are at most a million of them (a
20-block design has 92,378), otherwise over at least 20,000 random splits
with a fixed seed, and then with the Monte Carlo standard error of the mean.
"""

import math

import numpy as np

from reports.metrics.nullable import put_value

METHODS = ("auto", "all", "random")
FEWER_THAN_TWO_BLOCKS = "fewer than two blocks with scores"
NEGATIVE_ONE = "pearson_mean is -1"
# A half whose system scores differ by less than this (relative to their
# size) has constant scores: r is undefined there, not a rounding artefact.
_RELATIVE_TOLERANCE = 1e-9
# Splits evaluated at once: keeps the splits x systems temporaries small.
_CHUNK_SPLITS = 8192
# Up to this many splits every one is used; beyond, DRAWS random ones.
MAX_EXHAUSTIVE = 1_000_000
DRAWS = 20_000


def split_count(blocks):
    """How many unordered splits of ``blocks`` blocks into halves of ``blocks // 2`` and the rest."""
    count = math.comb(blocks, blocks // 2)
    return count // 2 if blocks % 2 == 0 else count


def all_splits(blocks):
    """The first half of every unordered split, each once, as a splits x blocks boolean mask."""
    half = blocks // 2
    if blocks % 2 == 0:
        # Equal halves: keeping block 0 in the first half counts a split and its mirror once.
        rest = combination_masks(blocks - 1, half - 1)
        return np.hstack([np.ones((len(rest), 1), dtype=bool), rest])
    return combination_masks(blocks, half)


def combination_masks(n, k):
    """Every choice of ``k`` of ``n`` positions, as a C(n, k) x n boolean mask, built with numpy.

    Built from the last position to the first: the choices of j among the
    last L positions are those of j - 1 among the last L - 1 with the new
    position taken, then those of j without it. Only the counts j that can
    still reach k are kept, so the largest array is the answer itself.
    """
    if not 0 <= k <= n:
        return np.zeros((0, n), dtype=bool)
    suffixes = {0: np.zeros((1, 0), dtype=bool)}
    for length in range(1, n + 1):
        before = n - length  # positions still to place in front
        grown = {}
        for chosen in range(max(0, k - before), min(k, length) + 1):
            parts = []
            if chosen - 1 in suffixes:
                taken = suffixes[chosen - 1]
                parts.append(np.hstack([np.ones((len(taken), 1), dtype=bool), taken]))
            if chosen in suffixes:
                left = suffixes[chosen]
                parts.append(np.hstack([np.zeros((len(left), 1), dtype=bool), left]))
            grown[chosen] = np.vstack(parts)
        suffixes = grown
    return suffixes[k]


def random_splits(blocks, draws, seed):
    """``draws`` random first halves of ``blocks // 2`` blocks (numpy Generator with ``seed``).

    Draws are independent, so a split may come up more than once.
    """
    rng = np.random.default_rng(seed)
    order = rng.random((draws, blocks)).argsort(axis=1)
    masks = np.zeros((draws, blocks), dtype=bool)
    np.put_along_axis(masks, order[:, : blocks // 2], True, axis=1)
    return masks


def split_half_reliability(sums, counts, *, splits=MAX_EXHAUSTIVE, draws=DRAWS, seed=0, method="auto"):
    """SHR from block x system ``sums`` and ``counts`` of scores; ``(result, None)`` or ``(None, reason)``.

    A system's score in a half is sum(sums) / sum(counts) over the half's
    blocks. Blocks without any score are left out. Per split, r is over the
    systems scored in both halves; it is undefined when fewer than two
    systems are, or when a half's scores are constant. Undefined splits are
    counted in ``undefined`` and left out of the mean and SD (population SD
    over the splits). ``method``: "all" splits, ``draws`` "random" ones
    (numpy ``default_rng(seed)``), or "auto": all when there are at most
    ``splits`` of them (default a million), else random.

    ``exhaustive`` says whether every split was used. ``mc_standard_error``
    is the Monte Carlo standard error of ``pearson_mean`` over random splits,
    SD / sqrt(defined splits); it is null when every split was used.

    ``spearman_brown_mean`` is the Spearman-Brown correction of the mean,
    2 r / (1 + r), for a reader who wants the full-length reliability; it
    is a separate key and ``pearson_mean`` is never corrected.
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, not {method!r}")
    sums = np.asarray(sums, dtype=np.float64)
    counts = np.asarray(counts, dtype=np.float64)
    scored = counts.sum(axis=1) > 0
    sums, counts = sums[scored], counts[scored]
    blocks = len(sums)
    if blocks < 2:
        return None, FEWER_THAN_TWO_BLOCKS
    if method == "auto":
        method = "all" if split_count(blocks) <= splits else "random"
    if method == "random" and draws < 1:
        raise ValueError("draws must be at least 1")
    masks = all_splits(blocks) if method == "all" else random_splits(blocks, draws, seed)
    r = np.concatenate(
        [
            _pearson(masks[start : start + _CHUNK_SPLITS], sums, counts)
            for start in range(0, len(masks), _CHUNK_SPLITS)
        ]
    )
    defined = r[~np.isnan(r)]
    if not defined.size:
        return None, (
            f"r is undefined in all {len(r)} splits: a half has constant system scores "
            "or fewer than two systems are scored in both halves"
        )
    mean = float(defined.mean())
    sd = float(defined.std())
    result = {
        "pearson_mean": mean,
        "pearson_sd": sd,
        "splits": len(r),
        "undefined": int(len(r) - defined.size),
        "method": method,
        "exhaustive": method == "all",
    }
    put_value(
        result,
        "mc_standard_error",
        None if method == "all" else sd / math.sqrt(defined.size),
        "every split is used",
    )
    put_value(result, "spearman_brown_mean", 2 * mean / (1 + mean) if mean > -1 else None, NEGATIVE_ONE)
    return result, None


def _pearson(first, sums, counts):
    """Pearson r per split (NaN where undefined) for first-half masks ``first`` (splits x blocks)."""
    first = first.astype(np.float64)
    halves = [(mask @ sums, mask @ counts) for mask in (first, 1.0 - first)]
    both = (halves[0][1] > 0) & (halves[1][1] > 0)
    systems = both.sum(axis=1)
    x, y = (
        np.divide(half_sums, half_counts, out=np.zeros_like(half_sums), where=both)
        for half_sums, half_counts in halves
    )
    defined = (systems >= 2) & ~_constant(x, both) & ~_constant(y, both)
    x, y = _centred(x, both, systems), _centred(y, both, systems)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = (x * y).sum(axis=1) / np.sqrt((x * x).sum(axis=1) * (y * y).sum(axis=1))
    return np.where(defined, np.clip(r, -1.0, 1.0), np.nan)


def _centred(scores, both, systems):
    means = np.where(both, scores, 0.0).sum(axis=1) / np.maximum(systems, 1)
    return np.where(both, scores - means[:, None], 0.0)


def _constant(scores, both):
    """Per split: do the scores of the systems in ``both`` all agree (up to rounding)?"""
    highest = np.where(both, scores, -np.inf).max(axis=1)
    lowest = np.where(both, scores, np.inf).min(axis=1)
    size = np.maximum(1.0, np.where(both, np.abs(scores), 0.0).max(axis=1))
    with np.errstate(invalid="ignore"):
        return ~(highest - lowest > _RELATIVE_TOLERANCE * size)
