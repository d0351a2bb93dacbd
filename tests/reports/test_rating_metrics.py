"""Rating-study metrics (Likert and Best-Worst Scaling) on small studies computed by hand.

Alpha by hand: with two coders every unit (a, b) adds 1 to o[a][b] and to
o[b][a], so the observed sum is 2 * sum over units of d2(a, b), and the
expected sum over all ordered pairs of the n pooled values is
sum n_c n_k d2(c, k) = 2 n * sum_c n_c (x_c - mean)^2 (x = the value for
interval, its mid-rank M_c = sum_{g<c} n_g + n_c / 2 for ordinal).
alpha = 1 - (n - 1) * observed / expected.
"""

from itertools import combinations

import numpy as np
import pytest

from reports.metrics import krippendorff_alpha
from reports.metrics.ratings import (
    Item,
    Judgment,
    Rating,
    RatingStudy,
    all_splits,
    random_splits,
    range_overlap,
    rating_report,
    split_count,
    split_half_reliability,
)


def likert(items, ratings, **options):
    return rating_report(RatingStudy("likert", items, ratings, [], **options))


def bws(items, judgments, **options):
    return rating_report(RatingStudy("bws", items, [], judgments, **options))


# One block, inputs i1 and i2, systems A and B.
ITEMS = [
    Item("d1", "i1", "A", "b1"),
    Item("d2", "i1", "B", "b1"),
    Item("d3", "i2", "A", "b1"),
    Item("d4", "i2", "B", "b1"),
]
#        d1 d2 d3 d4
# x:     4  2  5  3
# y:     5  2  4  1
SCORES = {"x": [4, 2, 5, 3], "y": [5, 2, 4, 1]}
RATINGS = [
    Rating(annotator, f"d{number}", score, "b1")
    for annotator, scores in SCORES.items()
    for number, score in enumerate(scores, start=1)
]


# Likert: system scores ------------------------------------------------------


def test_likert_system_mean_sd_and_n():
    # A: d1, d3 -> 4, 5, 5, 4: mean 4.5, squared deviations 4 x 0.25 = 1, SD sqrt(1/3).
    # B: d2, d4 -> 2, 3, 2, 1: mean 2, squared deviations 0 + 1 + 0 + 1 = 2, SD sqrt(2/3).
    scores = likert(ITEMS, RATINGS)["system_scores"]
    assert scores["A"] == {"mean": 4.5, "sd": pytest.approx((1 / 3) ** 0.5), "n": 4}
    assert scores["B"] == {"mean": 2.0, "sd": pytest.approx((2 / 3) ** 0.5), "n": 4}


def test_likert_sd_of_one_rating_and_mean_of_none_are_null_with_reasons():
    items = [*ITEMS, Item("d5", "i3", "C", "b1")]
    scores = likert(items, [Rating("x", "d1", 4, "b1")])["system_scores"]
    assert scores["A"] == {"mean": 4.0, "sd": None, "sd_reason": "fewer than two ratings", "n": 1}
    assert scores["C"]["mean"] is None
    assert scores["C"]["mean_reason"] == "no ratings"
    assert scores["C"]["n"] == 0


def test_likert_repeated_main_rating_counts_once_with_the_last_score():
    ratings = [Rating("x", "d1", 1, "b1"), Rating("x", "d1", 5, "b1"), Rating("x", "d3", 4, "b1")]
    assert likert(ITEMS, ratings)["system_scores"]["A"]["mean"] == 4.5  # (5 + 4) / 2


# Likert: alpha and change rate ------------------------------------------------


def test_likert_interval_alpha_by_hand():
    # Units (x, y): d1 (4, 5), d2 (2, 2), d3 (5, 4), d4 (3, 1); n = 8.
    # Observed: 2 * (1 + 0 + 1 + 4) = 12.
    # Pooled values 4 2 5 3 5 2 4 1: mean 26 / 8 = 3.25; squared deviations
    # .5625 + 1.5625 + 3.0625 + .0625 + 3.0625 + 1.5625 + .5625 + 5.0625 = 15.5;
    # expected 2 * 8 * 15.5 = 248. alpha = 1 - 7 * 12 / 248 = 41/62.
    assert likert(ITEMS, RATINGS)["alpha_interval"] == pytest.approx(41 / 62)


def test_likert_ordinal_alpha_by_hand():
    # n_1 = 1, n_2 = 2, n_3 = 1, n_4 = 2, n_5 = 2; mid-ranks M_1 = .5, M_2 = 2,
    # M_3 = 3.5, M_4 = 5, M_5 = 7 (mean 32 / 8 = 4).
    # Observed: 2 * ((7-5)^2 + 0 + (7-5)^2 + (3.5-.5)^2) = 2 * 17 = 34.
    # Expected: 2 * 8 * (12.25 + 2*4 + .25 + 2*1 + 2*9) = 16 * 40.5 = 648.
    # alpha = 1 - 7 * 34 / 648 = 205/324.
    report = likert(ITEMS, RATINGS)
    assert report["alpha_ordinal"] == pytest.approx(205 / 324)
    assert report["pairable_units"] == 4


def test_likert_alpha_matches_the_coders_by_units_matrix():
    ratings = [
        *RATINGS,
        Rating("z", "d1", 3, "b1"),
        Rating("z", "d4", 2, "b1"),
        Rating("x", "d1", 4, "b1", kind="retest"),  # retests are not coded
    ]
    matrix = [[4, 2, 5, 3], [5, 2, 4, 1], [3, np.nan, np.nan, 2]]
    report = likert(ITEMS, ratings)
    assert report["alpha_ordinal"] == pytest.approx(krippendorff_alpha(matrix, "ordinal").alpha)
    assert report["alpha_interval"] == pytest.approx(krippendorff_alpha(matrix, "interval").alpha)


def test_likert_constant_scores_give_null_alpha_with_reason():
    ratings = [Rating(annotator, document, 3, "b1") for annotator in "xy" for document in ("d1", "d2")]
    report = likert(ITEMS, ratings)
    assert report["alpha_ordinal"] is None
    assert report["alpha_ordinal_reason"] == "only one value among pairable values"
    assert report["alpha_interval"] is None
    assert report["change_rate_pct"] == 0.0


def test_likert_single_annotator_has_no_pairable_unit_and_no_change_rate():
    report = likert(ITEMS, [Rating("x", "d1", 3, "b1"), Rating("x", "d2", 4, "b1")])
    assert report["alpha_ordinal"] is None
    assert report["alpha_ordinal_reason"] == "no pairable units"
    assert report["change_rate_pct"] is None
    assert report["change_rate_pct_reason"] == "no unit has two or more judgments"


def test_likert_change_rate_counts_units_with_two_or_more_ratings():
    # d1 (4, 5) changed, d2 (2, 2) same, d3 (5, 4) changed; d4 has one rating: not counted.
    ratings = [r for r in RATINGS if not (r.annotator == "y" and r.document == "d4")]
    assert likert(ITEMS, ratings)["change_rate_pct"] == pytest.approx(100 * 2 / 3)


# Likert: scale overlap -------------------------------------------------------

OVERLAP_ITEMS = [Item(f"d{n}", f"i{n}", "AB"[n % 2], "b1") for n in range(1, 5)] + [
    Item(f"e{n}", f"j{n}", "AB"[n % 2], "b2") for n in range(1, 3)
]


def test_scale_overlap_is_the_papers_length_ratio_and_points_are_a_separate_figure():
    # scale_overlap used to count scale points (max - min + 1); it is now
    # Tang et al.'s (2022) figure, lengths as max - min over the overall
    # range of both. The point count stays as scale_overlap_points.
    # Block b1: x only 3 -> [3, 3]; y [2, 4]; z [4, 5]. Lengths:
    #   x/y: overlap 3 - 3 = 0, overall 4 - 2 = 2 -> 0
    #   x/z: disjoint -> 0
    #   y/z: overlap 4 - 4 = 0, overall 5 - 2 = 3 -> 0
    # Block b2: p [1, 5], q [1, 5]: 4 / 4 -> 1.
    # Pooled over the 4 pairs: (0 + 0 + 0 + 1) / 4 = 1/4.
    # Integer points:
    #   x/y: overlap {3} = 1, union {2,3,4} = 3 -> 1/3
    #   x/z: overlap 0, union 1 + 2 = 3 -> 0
    #   y/z: overlap {4} = 1, union {2..5} = 4 -> 1/4
    #   p/q: 1. Pooled: (1/3 + 0 + 1/4 + 1) / 4 = 19/48.
    ratings = [
        Rating("x", "d1", 3, "b1"),
        Rating("x", "d2", 3, "b1"),
        Rating("y", "d1", 2, "b1"),
        Rating("y", "d2", 4, "b1"),
        Rating("y", "d3", 3, "b1"),
        Rating("z", "d3", 4, "b1"),
        Rating("z", "d4", 5, "b1"),
        Rating("p", "e1", 1, "b2"),
        Rating("p", "e2", 5, "b2"),
        Rating("q", "e1", 5, "b2"),
        Rating("q", "e2", 1, "b2"),
    ]
    report = likert(OVERLAP_ITEMS, ratings, scale_min=1, scale_max=5)
    assert report["scale_overlap"] == pytest.approx(1 / 4)
    assert report["scale_overlap_points"] == pytest.approx(19 / 48)
    assert report["scale_overlap_pairs"] == 4
    assert report["scale_overlap_zero_length_pairs"] == 0


def test_scale_overlap_of_non_integer_scores_uses_lengths():
    # [2.5, 2.5] vs [2.5, 2.5]: same single point -> 1; [2.5, 2.5] vs [1.5, 3.5]: length 0 / 2 -> 0;
    # [1.5, 3.5] vs [2.5, 4.5]: overlap 1 / union 3.
    assert range_overlap((2.5, 2.5), (2.5, 2.5), integer_points=False) == 1.0
    assert range_overlap((2.5, 2.5), (1.5, 3.5), integer_points=False) == 0.0
    assert range_overlap((1.5, 3.5), (2.5, 4.5), integer_points=False) == pytest.approx(1 / 3)
    ratings = [Rating("x", "d1", 2.5, "b1"), Rating("y", "d1", 1.5, "b1"), Rating("y", "d2", 3.5, "b1")]
    assert likert(OVERLAP_ITEMS, ratings)["scale_overlap"] == 0.0


def test_scale_overlap_without_two_annotators_in_a_block_is_null():
    ratings = [Rating("x", "d1", 3, "b1"), Rating("y", "e1", 4, "b2")]
    report = likert(OVERLAP_ITEMS, ratings)
    assert report["scale_overlap"] is None
    assert report["scale_overlap_reason"] == "no block has two annotators with ratings"
    assert report["scale_overlap_pairs"] == 0


# Likert: test-retest ------------------------------------------------------------


def test_likert_test_retest_averages_per_worker_then_over_workers():
    # x: d1 4 -> 5 (1), d2 2 -> 2 (0): mean 0.5. y: d1 5 -> 3 (2): mean 2.
    # z retests d2 without a main rating of it: not matched.
    # Mean over workers (0.5 + 2) / 2 = 1.25; 3 pairs.
    retests = [
        Rating("x", "d1", 5, "b1", kind="retest"),
        Rating("x", "d2", 2, "b1", kind="retest"),
        Rating("y", "d1", 3, "b1", kind="retest"),
        Rating("z", "d2", 1, "b1", kind="retest"),
    ]
    report = likert(ITEMS, RATINGS + retests)
    assert report["test_retest"]["mean_abs_diff"] == pytest.approx(1.25)
    assert report["test_retest"]["workers"] == 2
    assert report["test_retest"]["pairs"] == 3
    assert report["test_retest"]["by_worker"]["x"] == {"mean_abs_diff": 0.5, "pairs": 2}
    # Retests change neither the scores nor agreement.
    plain = likert(ITEMS, RATINGS)
    assert report["system_scores"] == plain["system_scores"]
    assert report["alpha_interval"] == plain["alpha_interval"]


def test_likert_test_retest_appears_only_with_retests_and_is_null_when_unmatched():
    assert "test_retest" not in likert(ITEMS, RATINGS)
    report = likert(ITEMS, [*RATINGS, Rating("z", "d1", 2, "b1", kind="retest")])
    assert report["test_retest"]["mean_abs_diff"] is None
    assert "mean_abs_diff_reason" in report["test_retest"]
    assert report["test_retest"]["pairs"] == 0


# Split-half reliability -----------------------------------------------------------


def test_shr_on_two_blocks_is_the_pearson_of_the_two_halves():
    # Block 1: A 4, 5 (4.5); B 3; C 1, 2 (1.5). Block 2: A 5, B 2, C 2.
    # x = (4.5, 3, 1.5) - 3 = (1.5, 0, -1.5); y = (5, 2, 2) - 3 = (2, -1, -1).
    # r = (3 + 0 + 1.5) / sqrt(4.5 * 6) = 4.5 / sqrt(27) = sqrt(3)/2.
    # Spearman-Brown: 2r / (1 + r) = 4 sqrt(3) - 6.
    items = [Item(f"{s}1", "i1", s, "b1") for s in "ABC"] + [Item(f"{s}2", "i2", s, "b2") for s in "ABC"]
    ratings = [
        Rating("x", "A1", 4, "b1"),
        Rating("y", "A1", 5, "b1"),
        Rating("x", "B1", 3, "b1"),
        Rating("x", "C1", 1, "b1"),
        Rating("y", "C1", 2, "b1"),
        Rating("p", "A2", 5, "b2"),
        Rating("p", "B2", 2, "b2"),
        Rating("p", "C2", 2, "b2"),
    ]
    shr = likert(items, ratings)["shr"]
    assert shr["pearson_mean"] == pytest.approx(3**0.5 / 2)
    assert shr["pearson_sd"] == 0.0
    assert (shr["splits"], shr["undefined"], shr["method"]) == (1, 0, "all")
    assert shr["spearman_brown_mean"] == pytest.approx(4 * 3**0.5 - 6)


def test_shr_counts_constant_halves_as_undefined_and_leaves_them_out_of_the_mean():
    # Two systems, one score per block:   b1: A 5, B 1   b2: A 5, B 1   b3: A 3, B 3   b4: A 3, B 3.
    # Splits of 4 blocks into 2 + 2 (3 unordered):
    #   {b1,b2}|{b3,b4}: second half A 3, B 3 constant -> undefined
    #   {b1,b3}|{b2,b4}: A 4, B 2 vs A 4, B 2 -> r = 1
    #   {b1,b4}|{b2,b3}: the same -> r = 1
    # Mean over the defined splits = 1 (averaging the undefined one as 0 would give 2/3).
    sums = [[5, 1], [5, 1], [3, 3], [3, 3]]
    counts = np.ones((4, 2), dtype=int)
    shr, reason = split_half_reliability(sums, counts)
    assert reason is None
    assert shr["pearson_mean"] == pytest.approx(1.0)
    assert (shr["splits"], shr["undefined"], shr["method"]) == (3, 1, "all")


def test_shr_with_every_split_undefined_is_null_with_reason():
    # Two blocks: b1 A 3, B 3 (constant) and b2 A 5, B 1: the only split is undefined.
    items = [Item("A1", "i1", "A", "b1"), Item("B1", "i1", "B", "b1")]
    items += [Item("A2", "i2", "A", "b2"), Item("B2", "i2", "B", "b2")]
    ratings = [
        Rating("x", "A1", 3, "b1"),
        Rating("x", "B1", 3, "b1"),
        Rating("y", "A2", 5, "b2"),
        Rating("y", "B2", 1, "b2"),
    ]
    report = likert(items, ratings)
    assert report["shr"] is None
    assert report["shr_reason"].startswith("r is undefined in all 1 splits")


def test_shr_needs_two_blocks_and_two_systems():
    report = likert(ITEMS, RATINGS)
    assert report["shr"] is None
    assert report["shr_reason"] == "fewer than two blocks with scores"
    # One system: r is undefined in the only split.
    assert split_half_reliability([[4.0], [2.0]], [[1], [1]])[0] is None


def test_shr_pearson_of_minus_one_has_no_spearman_brown():
    shr, _ = split_half_reliability([[5, 1], [1, 5]], np.ones((2, 2), dtype=int))
    assert shr["pearson_mean"] == pytest.approx(-1.0)
    assert shr["spearman_brown_mean"] is None
    assert shr["spearman_brown_mean_reason"] == "pearson_mean is -1"


def test_all_splits_lists_each_unordered_split_once():
    # 6 blocks: C(6, 3) / 2 = 10; 5 blocks: halves of 2 and 3, C(5, 2) = 10; 2 blocks: 1.
    assert (split_count(6), split_count(5), split_count(2)) == (10, 10, 1)
    for blocks in (2, 5, 6):
        masks = all_splits(blocks)
        assert masks.shape == (split_count(blocks), blocks)
        assert (masks.sum(axis=1) == blocks // 2).all()
        halves = {frozenset(map(frozenset, (np.flatnonzero(m), np.flatnonzero(~m)))) for m in masks}
        assert len(halves) == len(masks)
    draws = random_splits(7, 50, seed=3)
    assert (draws.sum(axis=1) == 3).all()
    assert (draws == random_splits(7, 50, seed=3)).all()


SIX_BLOCK_SUMS = np.array(
    [
        [4.0, 3.0, 2.0, 3.5],
        [5.0, 2.5, 2.0, 4.0],
        [3.5, 3.5, 1.0, 3.0],
        [4.5, 2.0, 3.0, 2.5],
        [4.0, 3.0, 1.5, 4.5],
        [5.0, 1.5, 2.5, 3.0],
    ]
)


def _all_split_pearsons_by_hand(scores):
    """Independent check: numpy's corrcoef over itertools' splits (block 0 fixed in the first half)."""
    rs = []
    for rest in combinations(range(1, 6), 2):
        first = [0, *rest]
        second = [b for b in range(6) if b not in first]
        rs.append(np.corrcoef(scores[first].mean(axis=0), scores[second].mean(axis=0))[0, 1])
    return np.array(rs)


def test_shr_by_random_splits_agrees_with_shr_over_all_splits_on_a_small_design():
    counts = np.ones((6, 4), dtype=int)
    exact = _all_split_pearsons_by_hand(SIX_BLOCK_SUMS)
    every, _ = split_half_reliability(SIX_BLOCK_SUMS, counts, splits=1000)
    assert (every["method"], every["splits"], every["undefined"]) == ("all", 10, 0)
    assert every["pearson_mean"] == pytest.approx(exact.mean())
    assert every["pearson_sd"] == pytest.approx(exact.std())
    sampled, _ = split_half_reliability(SIX_BLOCK_SUMS, counts, draws=20000, seed=7, method="random")
    assert (sampled["method"], sampled["splits"]) == ("random", 20000)
    assert sampled["pearson_mean"] == pytest.approx(every["pearson_mean"], abs=0.02)
    # More splits than `splits` allows: "auto" samples `draws` of them. (`splits` used to be the
    # number of draws too; it is now only the exhaustive limit, and draws default to 20,000.)
    few, _ = split_half_reliability(SIX_BLOCK_SUMS, counts, splits=5, draws=5, seed=1)
    assert (few["method"], few["splits"]) == ("random", 5)
    assert few == split_half_reliability(SIX_BLOCK_SUMS, counts, splits=5, draws=5, seed=1)[0]


def test_shr_weighs_each_rating_and_skips_systems_missing_from_a_half():
    # Block sums / counts: a system's half score is sum of sums / sum of counts.
    # Split {b1} | {b2}: b1 A 6/2 = 3, B 1/1 = 1, C none; b2 A 5, B 2, C 4.
    # Only A and B are in both halves: (3, 1) vs (5, 2) -> r = 1.
    shr, _ = split_half_reliability([[6, 1, 0], [5, 2, 4]], [[2, 1, 0], [1, 1, 1]])
    assert shr["pearson_mean"] == pytest.approx(1.0)


# BWS --------------------------------------------------------------------------

# Block b1: two inputs, four systems; tuples T1 = d-items, T2 = e-items.
BWS_ITEMS = [Item(f"d{s}", "i1", s, "b1") for s in "ABCD"] + [Item(f"e{s}", "i2", s, "b1") for s in "ABCD"]
T1 = ("dA", "dB", "dC", "dD")
T2 = ("eA", "eB", "eC", "eD")
JUDGMENTS = [
    Judgment("x", T1, best="dA", worst="dD", value=3, block="b1"),
    Judgment("y", T1, best="dA", worst="dC", value=1, block="b1"),
    Judgment("x", T2, best="eB", worst="eD", value=2, block="b1"),
    Judgment("y", T2, best="eA", worst="eD", value=None, block="b1"),
]


def test_bws_counting_scores_by_hand():
    # Each item appears twice. (best - worst) / 2:
    # dA 2/2 = 1, dB 0, dC -1/2, dD -1/2; eA 1/2, eB 1/2, eC 0, eD -2/2 = -1.
    # A: (1, .5) mean .75; B: (0, .5) .25; C: (-.5, 0) -.25; D: (-.5, -1) -.75.
    # SD of two scores .5 apart: sqrt(2 * .25^2 / 1) = sqrt(.125).
    scores = bws(BWS_ITEMS, JUDGMENTS, value_max=3)["system_scores"]
    expected = {"A": 0.75, "B": 0.25, "C": -0.25, "D": -0.75}
    for system, counting in expected.items():
        assert scores[system]["counting"] == pytest.approx(counting)
        assert scores[system]["mean"] == pytest.approx(counting)
        assert scores[system]["sd"] == pytest.approx(0.125**0.5)
        assert scores[system]["n"] == 2


def test_bws_value_scores_weigh_picks_by_value_over_value_max():
    # A judgment without a value used to weigh 1; it is now missing for the value score
    # (neither a pick nor an appearance there), so y's T2 judgment is left out.
    # Weights v / 3: x T1 1, y T1 1/3, x T2 2/3. Valued appearances: d-items 2, e-items 1.
    # dA (1 + 1/3) / 2 = 2/3; dB 0; dC -(1/3)/2 = -1/6; dD -1/2;
    # eA 0; eB (2/3)/1 = 2/3; eC 0; eD -(2/3)/1 = -2/3.
    # A (2/3 + 0)/2 = 1/3; B (0 + 2/3)/2 = 1/3; C (-1/6 + 0)/2 = -1/12; D (-1/2 - 2/3)/2 = -7/12.
    report = bws(BWS_ITEMS, JUDGMENTS, value_max=3)
    expected = {"A": 1 / 3, "B": 1 / 3, "C": -1 / 12, "D": -7 / 12}
    for system, value in expected.items():
        assert report["system_scores"][system]["value"] == pytest.approx(value)
    assert report["judgments_without_value"] == 1


def test_bws_value_scale_defaults_to_the_largest_value_given():
    # Without value_max the top is the largest value given (3): the same weights.
    assert bws(BWS_ITEMS, JUDGMENTS)["system_scores"]["A"]["value"] == pytest.approx(1 / 3)


def test_bws_ordinal_alpha_and_change_rate_by_hand():
    # Codes (x, y), worst 0 / middle 1 / best 2, unit = (tuple, document):
    # dA (2,2) dB (1,1) dC (1,0) dD (0,1) eA (1,2) eB (2,1) eC (1,1) eD (0,0).
    # Change rate: dC, dD, eA, eB of 8 units -> 50%.
    # n_0 = 4, n_1 = 8, n_2 = 4 (n = 16); mid-ranks M_0 = 2, M_1 = 8, M_2 = 14 (mean 8).
    # Observed: 4 units each 2 * (8 - 2)^2 = 72 -> 288.
    # Expected: 2 * 16 * (4 * 36 + 0 + 4 * 36) = 9216. alpha = 1 - 15 * 288 / 9216 = 17/32.
    report = bws(BWS_ITEMS, JUDGMENTS)
    assert report["alpha_ordinal"] == pytest.approx(17 / 32)
    assert report["change_rate_pct"] == pytest.approx(50.0)
    assert report["pairable_units"] == 8
    matrix = [[2, 1, 1, 0, 1, 2, 1, 0], [2, 1, 0, 1, 2, 1, 1, 0]]
    assert report["alpha_ordinal"] == pytest.approx(krippendorff_alpha(matrix, "ordinal").alpha)


def test_bws_tuple_is_its_set_of_documents_whatever_the_order_shown():
    shuffled = [
        Judgment("y", ("dD", "dC", "dB", "dA"), best="dA", worst="dC", value=1, block="b1")
        if judgment.annotator == "y" and judgment.documents == T1
        else judgment
        for judgment in JUDGMENTS
    ]
    assert bws(BWS_ITEMS, shuffled)["alpha_ordinal"] == pytest.approx(17 / 32)


def test_bws_identical_picks_give_null_alpha_only_when_codes_do_not_vary():
    # Two annotators with the same picks still code best/middle/worst: alpha 1.
    same = [Judgment(a, T1, best="dA", worst="dD", value=None, block="b1") for a in "xy"]
    assert bws(BWS_ITEMS, same)["alpha_ordinal"] == pytest.approx(1.0)
    # A single annotator: no unit has two codes.
    report = bws(BWS_ITEMS, same[:1])
    assert report["alpha_ordinal"] is None
    assert report["alpha_ordinal_reason"] == "no pairable units"
    assert report["change_rate_pct"] is None


def test_bws_shr_on_two_blocks():
    # b1: (A1, B1, C1) best A1 worst C1 -> A 1, B 0, C -1.
    # b2: (A2, B2, C2) best B2 worst C2 -> A 0, B 1, C -1.
    # r((1, 0, -1), (0, 1, -1)): means 0, cov 0 + 0 + 1 = 1, variances 2 and 2 -> 1/2.
    items = [Item(f"{s}1", "i1", s, "b1") for s in "ABC"] + [Item(f"{s}2", "i2", s, "b2") for s in "ABC"]
    judgments = [
        Judgment("x", ("A1", "B1", "C1"), best="A1", worst="C1", value=None, block="b1"),
        Judgment("p", ("A2", "B2", "C2"), best="B2", worst="C2", value=None, block="b2"),
    ]
    shr = bws(items, judgments)["shr"]
    assert shr["pearson_mean"] == pytest.approx(0.5)
    assert (shr["splits"], shr["undefined"], shr["method"]) == (1, 0, "all")


def test_bws_test_retest_share_of_changed_picks():
    # x T1 retest: best dA worst dD, as in main -> unchanged.
    # x T2 retest (shown in another order): best eB, worst eC (main eD) -> changed.
    # y T1 retest: best dB (main dA), worst dC -> changed.
    # y over (dA, dB, dC) was never judged in main: not matched.
    # 2 of 3 pairs changed; best changed 1 of 3, worst changed 1 of 3.
    retests = [
        Judgment("x", T1, best="dA", worst="dD", value=2, block="b1", kind="retest"),
        Judgment("x", tuple(reversed(T2)), best="eB", worst="eC", value=2, block="b1", kind="retest"),
        Judgment("y", T1, best="dB", worst="dC", value=1, block="b1", kind="retest"),
        Judgment("y", ("dA", "dB", "dC"), best="dB", worst="dC", value=1, block="b1", kind="retest"),
    ]
    report = bws(BWS_ITEMS, JUDGMENTS + retests, value_max=3)
    retest = report["test_retest"]
    assert retest["changed_pct"] == pytest.approx(100 * 2 / 3)
    assert retest["best_changed_pct"] == pytest.approx(100 / 3)
    assert retest["worst_changed_pct"] == pytest.approx(100 / 3)
    assert (retest["workers"], retest["pairs"]) == (2, 3)
    assert retest["by_worker"]["x"] == {"changed_pct": 50.0, "pairs": 2}
    # Retests leave the scores alone.
    assert report["system_scores"] == bws(BWS_ITEMS, JUDGMENTS, value_max=3)["system_scores"]
    assert "test_retest" not in bws(BWS_ITEMS, JUDGMENTS)


def test_bws_unjudged_system_is_null_with_reason():
    items = [*BWS_ITEMS, Item("fE", "i3", "E", "b1")]
    entry = bws(items, JUDGMENTS)["system_scores"]["E"]
    assert entry["counting"] is None
    assert entry["counting_reason"] == "no judged outputs"
    assert entry["value"] is None
    assert entry["value_reason"] == "no judged outputs with a value"
    assert entry["average_rank"] is None
    assert entry["n"] == 0


# Inputs that cannot be scored -------------------------------------------------------


@pytest.mark.parametrize(
    "judgment",
    [
        Judgment("x", T1, best="eA", worst="dD", value=None, block="b1"),
        Judgment("x", T1, best="dA", worst="dA", value=None, block="b1"),
        Judgment("x", ("dA", "dA"), best="dA", worst="dA", value=None, block="b1"),
        Judgment("x", T1, best="dA", worst="dD", value=4, block="b1"),
        Judgment("x", ("dA", "zz"), best="dA", worst="zz", value=None, block="b1"),
        Judgment("x", T1, best="dA", worst="dD", value=None, block="b9"),
    ],
)
def test_bws_rejects_inconsistent_judgments(judgment):
    with pytest.raises(ValueError):
        bws(BWS_ITEMS, [judgment], value_max=3)


@pytest.mark.parametrize(
    "rating",
    [Rating("x", "zz", 3, "b1"), Rating("x", "d1", 3, "b2"), Rating("x", "d1", 9, "b1")],
)
def test_likert_rejects_unknown_documents_wrong_blocks_and_off_scale_scores(rating):
    with pytest.raises(ValueError):
        likert(ITEMS, [rating], scale_min=1, scale_max=5)


def test_ratings_and_judgments_of_other_kinds_are_ignored():
    other = [Rating("x", "zz", 99, "b9", kind="qualification")]
    assert likert(ITEMS, RATINGS + other, scale_min=1, scale_max=5) == likert(ITEMS, RATINGS)
    judgment = Judgment("x", ("zz", "yy"), best="zz", worst="yy", value=9, block="b9", kind="qualification")
    assert bws(BWS_ITEMS, [*JUDGMENTS, judgment]) == bws(BWS_ITEMS, JUDGMENTS)


def test_rating_report_rejects_other_protocols():
    with pytest.raises(ValueError):
        rating_report(RatingStudy("span", ITEMS, RATINGS, []))
