"""Likert figures as the papers define them: scale overlap and test-retest (Tang et al. 2022)
and the good/bad binarisation with the best alpha (Goyal et al. 2022, SNaC 4.4)."""

from itertools import combinations

import krippendorff
import numpy as np
import pytest

from reports.metrics.ratings import Item, Rating, RatingStudy, range_overlap, rating_report
from reports.metrics.ratings.binarised import binarised_alpha


def likert(items, ratings, **options):
    return rating_report(RatingStudy("likert", items, ratings, [], **options))


def block_items(block, count):
    return [Item(f"{block}-d{n}", f"{block}-i{n}", "AB"[n % 2], block) for n in range(count)]


def ratings_of(block, annotator, scores):
    return [Rating(annotator, f"{block}-d{n}", score, block) for n, score in enumerate(scores)]


# Scale overlap ------------------------------------------------------------------


def test_range_overlap_by_hand():
    # [1,3] vs [2,5]: overlap 3 - 2 = 1, overall 5 - 1 = 4 -> 1/4 (point count would say 2/5).
    assert range_overlap((1, 3), (2, 5)) == pytest.approx(0.25)
    assert range_overlap((1, 3), (2, 5), integer_points=True) == pytest.approx(0.4)
    assert range_overlap((2, 4), (2, 4)) == 1.0
    assert range_overlap((1, 2), (4, 5)) == 0.0
    # Touching ranges share a point but no length.
    assert range_overlap((1, 3), (3, 5)) == 0.0
    # Both used one and the same value: overall length 0 -> 1.
    assert range_overlap((3, 3), (3, 3)) == 1.0
    assert range_overlap((3, 3), (4, 4)) == 0.0


def test_scale_overlap_means_over_pairs_and_blocks_and_counts_zero_length_pairs():
    # Block a: x [1, 3], y [2, 5], z [1, 3] -> x/y 1/4, x/z 1, y/z 1/4.
    # Block b: p only 4, q only 4 -> overall length 0, counted as 1 (one zero-length pair).
    # Block c: r [1, 2], s [4, 5] -> disjoint, 0.
    # Mean over the 5 pairs: (1/4 + 1 + 1/4 + 1 + 0) / 5 = 2.5 / 5 = 0.5.
    items = block_items("a", 3) + block_items("b", 2) + block_items("c", 2)
    ratings = (
        ratings_of("a", "x", [1, 3, 2])
        + ratings_of("a", "y", [2, 5, 4])
        + ratings_of("a", "z", [3, 1, 1])
        + ratings_of("b", "p", [4, 4])
        + ratings_of("b", "q", [4, 4])
        + ratings_of("c", "r", [1, 2])
        + ratings_of("c", "s", [5, 4])
    )
    report = likert(items, ratings, scale_min=1, scale_max=5)
    assert report["scale_overlap"] == pytest.approx(0.5)
    assert report["scale_overlap_pairs"] == 5
    assert report["scale_overlap_zero_length_pairs"] == 1
    # Points: x/y 2/5, x/z 1, y/z 2/5, p/q 1, r/s 0 -> 2.8 / 5.
    assert report["scale_overlap_points"] == pytest.approx(2.8 / 5)


def test_scale_overlap_points_is_null_off_whole_points():
    items = block_items("a", 2)
    ratings = ratings_of("a", "x", [1.5, 3.5]) + ratings_of("a", "y", [2.5, 4.5])
    report = likert(items, ratings)
    assert report["scale_overlap"] == pytest.approx(1 / 3)
    assert report["scale_overlap_points"] is None
    assert report["scale_overlap_points_reason"]


def straightforward_scale_overlap(ratings):
    """Tang et al.'s scale overlap written out plainly: ``ratings`` = [(block, annotator, score)]."""
    ranges = {}
    for block, annotator, score in ratings:
        ranges.setdefault(block, {}).setdefault(annotator, []).append(score)
    ratios, zero = [], 0
    for annotators in ranges.values():
        for first, second in combinations(sorted(annotators), 2):
            a, b = annotators[first], annotators[second]
            overall = max(max(a), max(b)) - min(min(a), min(b))
            if overall == 0:
                ratios.append(1.0)
                zero += 1
            else:
                ratios.append(max(0, min(max(a), max(b)) - max(min(a), min(b))) / overall)
    return float(np.mean(ratios)), len(ratios), zero


def test_scale_overlap_agrees_with_a_straightforward_implementation_on_random_data():
    rng = np.random.default_rng(11)
    items, ratings, plain = [], [], []
    for block_number in range(30):
        block = f"b{block_number}"
        documents = int(rng.integers(1, 6))
        items += block_items(block, documents)
        for annotator in range(int(rng.integers(2, 5))):
            # Narrow scales and few documents so that equal single points occur.
            scores = rng.integers(1, int(rng.integers(2, 6)), size=documents)
            for n, score in enumerate(scores.tolist()):
                if rng.random() < 0.85:
                    ratings.append(Rating(f"w{annotator}", f"{block}-d{n}", score, block))
                    plain.append((block, f"w{annotator}", score))
    mean, pairs, zero = straightforward_scale_overlap(plain)
    report = likert(items, ratings, scale_min=1, scale_max=5)
    assert report["scale_overlap"] == pytest.approx(mean)
    assert report["scale_overlap_pairs"] == pairs
    assert report["scale_overlap_zero_length_pairs"] == zero
    assert zero > 0


# Test-retest ------------------------------------------------------------------------


def test_retest_pooled_change_differs_from_the_per_worker_mean():
    # x re-rates 4 documents, changes 1, 0, 0, 1 -> mean 0.5.
    # y re-rates 1 document, changes 3 -> mean 3.
    # Per worker then over workers: (0.5 + 3) / 2 = 1.75.
    # Pooled over the 5 re-annotated units (the paper's average change): (1 + 0 + 0 + 1 + 3) / 5 = 1.
    items = block_items("a", 4)
    main = ratings_of("a", "x", [1, 2, 3, 4]) + ratings_of("a", "y", [5, 5, 5, 5])
    retest = [
        Rating(rating.annotator, rating.document, rating.score, "a", kind="retest")
        for rating in ratings_of("a", "x", [2, 2, 3, 5]) + ratings_of("a", "y", [2])
    ]
    result = likert(items, main + retest)["test_retest"]
    assert result["mean_abs_change_pooled"] == pytest.approx(1.0)
    assert result["mean_abs_diff"] == pytest.approx(1.75)
    assert (result["workers"], result["pairs"]) == (2, 5)
    assert result["by_worker"]["y"] == {"mean_abs_diff": 3.0, "pairs": 1}


def test_retest_pooled_change_is_null_when_nothing_matches():
    items = block_items("a", 2)
    ratings = [*ratings_of("a", "x", [1, 2]), Rating("y", "a-d0", 3, "a", kind="retest")]
    result = likert(items, ratings)["test_retest"]
    assert result["mean_abs_change_pooled"] is None
    assert result["mean_abs_change_pooled_reason"]


# Binarisation ----------------------------------------------------------------------


def test_binarised_alpha_by_hand():
    # Two coders, four units, scale 1..4.
    #   x: 1 2 3 4
    #   y: 1 3 3 4
    # t = 2: x bad good good good, y bad good good good -> perfect agreement, alpha 1.
    # t = 3: x bad bad good good, y bad good good good -> one disagreeing unit of four.
    #   Pooled values: 3 bad, 5 good, n = 8. Observed: the one unit adds 2 off-diagonal.
    #   Expected: 2 * 3 * 5 = 30. alpha = 1 - (8 - 1) * 2 / 30 = 1 - 14/30 = 8/15.
    # t = 4: x bad bad bad good, y bad bad bad good -> alpha 1; the tie goes to t = 2.
    items = block_items("a", 4)
    ratings = ratings_of("a", "x", [1, 2, 3, 4]) + ratings_of("a", "y", [1, 3, 3, 4])
    binarised = likert(items, ratings, scale_min=1, scale_max=4)["binarised"]
    assert binarised["threshold"] == 2
    assert binarised["alpha"] == pytest.approx(1.0)
    assert binarised["by_threshold"] == pytest.approx({"2": 1.0, "3": 8 / 15, "4": 1.0})


def test_binarised_alpha_is_null_with_a_reason_where_undefined():
    # On 1..5 with scores only 2 and 3: t = 2 calls everything good, t = 4 and 5 everything bad.
    items = block_items("a", 2)
    ratings = ratings_of("a", "x", [2, 3]) + ratings_of("a", "y", [2, 3])
    binarised = likert(items, ratings, scale_min=1, scale_max=5)["binarised"]
    assert binarised["threshold"] == 3
    assert binarised["alpha"] == pytest.approx(1.0)
    assert binarised["by_threshold"]["2"] is None
    assert binarised["by_threshold_reasons"]["2"] == "only one value among pairable values"
    # Everybody gave the same score: undefined everywhere.
    constant = ratings_of("a", "x", [3, 3]) + ratings_of("a", "y", [3, 3])
    binarised = likert(items, constant, scale_min=1, scale_max=5)["binarised"]
    assert (binarised["threshold"], binarised["alpha"]) == (None, None)
    assert binarised["alpha_reason"] == "only one value among pairable values"
    assert set(binarised["by_threshold"]) == {"2", "3", "4", "5"}


def test_binarised_alpha_agrees_with_the_krippendorff_package_on_random_data():
    rng = np.random.default_rng(5)
    coders, units = 4, 300
    data = rng.integers(1, 8, size=(coders, units)).astype(np.float64)
    # Correlated coders, so that alpha varies with the threshold.
    data = np.clip(np.round(data * 0.3 + rng.integers(1, 8, size=units) * 0.7), 1, 7)
    data[rng.random(data.shape) < 0.25] = np.nan
    coder_index, unit_index = np.nonzero(~np.isnan(data))
    scores = data[coder_index, unit_index]
    result = binarised_alpha(unit_index, coder_index, scores, 1, 7)
    expected = {}
    for threshold in range(2, 8):
        good = np.where(np.isnan(data), np.nan, (data >= threshold).astype(np.float64))
        expected[str(threshold)] = krippendorff.alpha(reliability_data=good, level_of_measurement="nominal")
    assert result["by_threshold"] == pytest.approx(expected)
    best = max(expected, key=expected.get)
    assert result["threshold"] == int(best)
    assert result["alpha"] == pytest.approx(expected[best])


def test_binarised_thresholds_off_whole_points_are_the_observed_scores():
    items = block_items("a", 3)
    ratings = ratings_of("a", "x", [1.5, 2.5, 4.0]) + ratings_of("a", "y", [1.5, 3.0, 4.0])
    binarised = likert(items, ratings)["binarised"]
    assert set(binarised["by_threshold"]) == {"2.5", "3", "4"}


def test_report_page_labels_scale_overlap_as_the_papers_figure():
    from protocols.rating.report_page import rating_report_context as rating_page_context

    context = rating_page_context({"protocol": "likert", "system_scores": {}, "scale_overlap": 0.25})
    [(label, value, _)] = context["reliability"]
    assert label.startswith("scale overlap (Tang et al. 2022") and value == 0.25
