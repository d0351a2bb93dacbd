"""Split-half reliability (SHR) of system scores over blocks.

Kiritchenko & Mohammad (2017), as used by Tang et al. (2022): split the
blocks into two halves, which then share neither annotators nor documents;
score every system in each half; Pearson r between the two halves' system
scores. The mean and SD of r are taken over every split when there are few
(each unordered split once), otherwise over random splits with a fixed seed.
"""

import math
from itertools import combinations

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


def split_count(blocks):
    """How many unordered splits of ``blocks`` blocks into halves of ``blocks // 2`` and the rest."""
    count = math.comb(blocks, blocks // 2)
    return count // 2 if blocks % 2 == 0 else count


def all_splits(blocks):
    """The first half of every unordered split, each once, as a splits x blocks boolean mask."""
    half = blocks // 2
    if blocks % 2 == 0:
        # Equal halves: keeping block 0 in the first half counts a split and its mirror once.
        firsts = [(0, *rest) for rest in combinations(range(1, blocks), half - 1)]
    else:
        firsts = list(combinations(range(blocks), half))
    masks = np.zeros((len(firsts), blocks), dtype=bool)
    masks[np.arange(len(firsts))[:, None], np.array(firsts, dtype=np.intp).reshape(len(firsts), half)] = True
    return masks


def random_splits(blocks, draws, seed):
    """``draws`` random first halves of ``blocks // 2`` blocks (numpy Generator with ``seed``).

    Draws are independent, so a split may come up more than once.
    """
    rng = np.random.default_rng(seed)
    order = rng.random((draws, blocks)).argsort(axis=1)
    masks = np.zeros((draws, blocks), dtype=bool)
    np.put_along_axis(masks, order[:, : blocks // 2], True, axis=1)
    return masks


def split_half_reliability(sums, counts, *, splits=1000, seed=0, method="auto"):
    """SHR from block x system ``sums`` and ``counts`` of scores; ``(result, None)`` or ``(None, reason)``.

    A system's score in a half is sum(sums) / sum(counts) over the half's
    blocks. Blocks without any score are left out. Per split, r is over the
    systems scored in both halves; it is undefined when fewer than two
    systems are, or when a half's scores are constant. Undefined splits are
    counted in ``undefined`` and left out of the mean and SD (population SD
    over the splits). ``method``: "all" splits, ``splits`` "random" ones, or
    "auto": all when there are at most ``splits`` of them.

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
    if method == "random" and splits < 1:
        raise ValueError("splits must be at least 1")
    masks = all_splits(blocks) if method == "all" else random_splits(blocks, splits, seed)
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
    result = {
        "pearson_mean": mean,
        "pearson_sd": float(defined.std()),
        "splits": len(r),
        "undefined": int(len(r) - defined.size),
        "method": method,
    }
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
