"""Split-half reliability over every split up to a million, then seeded random splits (METRICS.md)."""

from dataclasses import fields
from itertools import combinations

import numpy as np
import pytest

from reports.metrics.pairwise import PairwiseStudy
from reports.metrics.ratings import RatingStudy, all_splits, split_count, split_half_reliability
from reports.metrics.ratings.split_half import DRAWS, MAX_EXHAUSTIVE


def _design(blocks, systems, seed):
    rng = np.random.default_rng(seed)
    counts = rng.integers(1, 6, size=(blocks, systems))
    sums = counts * rng.uniform(1, 5, size=(blocks, systems))
    return sums, counts


def _pearsons_by_combinations(sums, counts):
    """Independent check: itertools' splits (block 0 in the first half) and numpy.corrcoef."""
    blocks = len(sums)
    rs = []
    for rest in combinations(range(1, blocks), blocks // 2 - 1):
        first = [0, *rest]
        second = [b for b in range(blocks) if b not in first]
        x = sums[first].sum(axis=0) / counts[first].sum(axis=0)
        y = sums[second].sum(axis=0) / counts[second].sum(axis=0)
        rs.append(np.corrcoef(x, y)[0, 1])
    return np.array(rs)


def test_every_split_of_twelve_blocks_matches_combinations_and_corrcoef():
    sums, counts = _design(12, 5, seed=11)
    expected = _pearsons_by_combinations(sums, counts)
    assert len(expected) == 462  # C(12, 6) / 2
    shr, reason = split_half_reliability(sums, counts)
    assert reason is None
    assert (shr["splits"], shr["undefined"], shr["method"], shr["exhaustive"]) == (462, 0, "all", True)
    assert shr["pearson_mean"] == pytest.approx(expected.mean(), abs=1e-12)
    assert shr["pearson_sd"] == pytest.approx(expected.std(), abs=1e-12)
    assert shr["mc_standard_error"] is None
    assert shr["mc_standard_error_reason"] == "every split is used"


def test_a_twenty_block_design_uses_all_92378_splits():
    sums, counts = _design(20, 4, seed=3)
    assert split_count(20) == 92_378
    masks = all_splits(20)
    assert masks.shape == (92_378, 20)
    # Each split once: block 0 always in the first half, so no split appears with its mirror.
    assert masks[:, 0].all() and (masks.sum(axis=1) == 10).all()
    assert len(np.unique(np.packbits(masks, axis=1), axis=0)) == 92_378
    shr, _ = split_half_reliability(sums, counts)
    assert (shr["splits"], shr["method"], shr["exhaustive"]) == (92_378, "all", True)


def test_odd_blocks_use_every_split_into_the_smaller_and_larger_half():
    sums, counts = _design(9, 3, seed=5)
    shr, _ = split_half_reliability(sums, counts)
    assert shr["splits"] == split_count(9) == 126  # C(9, 4)


def test_more_than_a_million_splits_draw_seeded_random_ones_with_a_standard_error():
    sums, counts = _design(24, 4, seed=8)
    assert split_count(24) == 1_352_078 > MAX_EXHAUSTIVE
    shr, reason = split_half_reliability(sums, counts, seed=4)
    assert reason is None
    assert DRAWS >= 20_000
    assert (shr["method"], shr["exhaustive"]) == ("random", False)
    assert shr["splits"] >= 20_000
    defined = shr["splits"] - shr["undefined"]
    assert shr["mc_standard_error"] == pytest.approx(shr["pearson_sd"] / np.sqrt(defined))
    assert 0 < shr["mc_standard_error"] < 0.01
    assert shr == split_half_reliability(sums, counts, seed=4)[0]
    other = split_half_reliability(sums, counts, seed=5)[0]
    assert other["pearson_mean"] != shr["pearson_mean"]
    # Two seeds agree within a few standard errors.
    assert abs(other["pearson_mean"] - shr["pearson_mean"]) < 6 * shr["mc_standard_error"]


def test_the_exhaustive_limit_and_the_number_of_draws_can_be_set():
    sums, counts = _design(12, 5, seed=11)
    sampled, _ = split_half_reliability(sums, counts, splits=100, draws=30_000, seed=2)
    assert (sampled["method"], sampled["splits"], sampled["exhaustive"]) == ("random", 30_000, False)
    every = _pearsons_by_combinations(sums, counts)
    assert sampled["pearson_mean"] == pytest.approx(every.mean(), abs=5 * sampled["mc_standard_error"])


@pytest.mark.parametrize(
    ("limit", "method", "splits"),
    [(463, "all", 462), (462, "all", 462), (461, "random", 500)],  # 12 blocks have 462 splits
)
def test_every_split_is_used_up_to_and_at_the_limit_and_random_ones_are_drawn_past_it(limit, method, splits):
    sums, counts = _design(12, 5, seed=11)
    shr, _ = split_half_reliability(sums, counts, splits=limit, draws=500, seed=2)
    assert (shr["method"], shr["exhaustive"], shr["splits"]) == (method, method == "all", splits)
    if method == "all":
        assert shr["pearson_mean"] == pytest.approx(_pearsons_by_combinations(sums, counts).mean(), abs=1e-12)


def test_the_limit_is_a_million_splits_for_every_study_as_metrics_md_says():
    assert MAX_EXHAUSTIVE == 1_000_000
    for study in (RatingStudy, PairwiseStudy):
        assert next(f.default for f in fields(study) if f.name == "splits") == MAX_EXHAUSTIVE
