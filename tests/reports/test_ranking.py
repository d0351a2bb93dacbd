"""System rankings with significance (reports/metrics/ranking.py), against brute force and
hand-worked examples."""

from itertools import product

import numpy as np
import pytest
from scipy import stats

from reports.metrics.ranking import (
    PERMUTATION,
    WILCOXON,
    ScoreTable,
    adjacent_separation,
    bootstrap_intervals,
    clusters,
    paired_differences,
    randomisation_p_values,
    rank_stability,
    rank_systems,
    wilcoxon_p_values,
    z_normalised,
)


def exact_randomisation_p(differences):
    """Every one of the 2^n swaps, counted: the p the approximate test estimates."""
    observed = abs(sum(differences))
    sums = [
        abs(sum(sign * d for sign, d in zip(signs, differences, strict=True)))
        for signs in product((1, -1), repeat=len(differences))
    ]
    return sum(total >= observed - 1e-12 for total in sums) / len(sums)


def exact_wilcoxon_p(differences):
    """Two-sided exact signed-rank p from all 2^n sign patterns of the ranks (no ties, no zeros)."""
    ranks = stats.rankdata(np.abs(differences))
    observed = ranks[np.asarray(differences) > 0].sum()
    totals = [
        sum(rank for rank, positive in zip(ranks, signs, strict=True) if positive)
        for signs in product((0, 1), repeat=len(ranks))
    ]
    below = sum(total <= observed for total in totals) / len(totals)
    above = sum(total >= observed for total in totals) / len(totals)
    return min(1.0, 2 * min(below, above))


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_approximate_randomisation_estimates_the_exact_p_of_all_swaps(seed):
    rng = np.random.default_rng(seed)
    differences = np.round(rng.normal(0.4, 1.0, size=12), 2)
    exact = exact_randomisation_p(differences)
    resamples = 20000
    p = randomisation_p_values(differences[:, None], resamples=resamples, seed=seed)[0]
    standard_error = np.sqrt(exact * (1 - exact) / resamples)
    assert abs(p - exact) <= 4 * standard_error + 2 / resamples


def test_two_systems_with_the_same_scores_are_not_told_apart():
    table = ScoreTable.from_mapping({"A": {1: 3.0, 2: 5.0, 3: 1.0}, "B": {1: 3.0, 2: 5.0, 3: 1.0}})
    differences, shared = paired_differences(table, [(0, 1)])
    assert randomisation_p_values(differences, resamples=99)[0] == 1.0  # every resample hits
    assert wilcoxon_p_values(differences, shared)[0] == 1.0


@pytest.mark.parametrize("seed", [4, 5])
def test_wilcoxon_p_is_the_exact_signed_rank_p(seed):
    rng = np.random.default_rng(seed)
    differences = rng.permutation(
        np.arange(1, 11) * rng.choice([-1, 1], size=10) + rng.normal(0.3, 0.01, size=10)
    )
    p = wilcoxon_p_values(differences[:, None], np.array([10]))[0]
    assert p == pytest.approx(exact_wilcoxon_p(differences), abs=1e-12)


def test_a_pair_is_tested_on_the_items_both_systems_were_scored_on_only():
    by_system = {"A": {1: 9.0, 2: 8.0, 3: 7.0, 4: 100.0}, "B": {1: 1.0, 2: 2.0, 3: 3.0}}
    ranking = rank_systems(by_system, resamples=200)
    (pair,) = ranking["pairs"]
    assert pair["items"] == 3
    assert pair["difference"] == pytest.approx((8 + 6 + 4) / 3)
    assert ranking["systems"][0]["score"] == pytest.approx(31.0) and ranking["systems"][0]["items"] == 4


@pytest.mark.parametrize(
    ("significant", "expected"),
    [
        ({("A", "C"), ("A", "D"), ("B", "C"), ("B", "D")}, [1, 1, 2, 2]),
        ({("A", "B"), ("A", "C"), ("A", "D"), ("B", "C"), ("B", "D")}, [1, 2, 3, 3]),
        ({("A", "B"), ("A", "C"), ("A", "D"), ("B", "C"), ("B", "D"), ("C", "D")}, [1, 2, 3, 4]),
        # A beats C and D, but B does not beat D: no boundary between B and C.
        ({("A", "B"), ("A", "C"), ("A", "D"), ("B", "C")}, [1, 2, 2, 2]),
        (set(), [1, 1, 1, 1]),
    ],
)
def test_a_cluster_boundary_needs_every_system_above_to_beat_every_system_below(significant, expected):
    found = clusters(["A", "B", "C", "D"], lambda a, b: (a, b) in significant)
    assert [found[system] for system in "ABCD"] == expected


def test_bootstrap_intervals_agree_with_scipys_percentile_bootstrap():
    rng = np.random.default_rng(7)
    scores = rng.normal(70, 15, size=60)
    table = ScoreTable.from_mapping({"A": dict(enumerate(scores))})
    ((low, high),) = bootstrap_intervals(table, resamples=20000, seed=7)
    reference = stats.bootstrap((scores,), np.mean, n_resamples=20000, method="percentile", random_state=8)
    width = high - low
    assert low == pytest.approx(reference.confidence_interval.low, abs=0.03 * width)
    assert high == pytest.approx(reference.confidence_interval.high, abs=0.03 * width)
    assert low < scores.mean() < high


def test_errors_rank_lower_first_and_clusters_separate_clearly_different_systems():
    """MQM: fewer error points is better. Three systems far apart on 200 shared segments."""
    rng = np.random.default_rng(11)
    by_system = {
        name: {segment: max(0.0, rng.normal(mean, 1.0)) for segment in range(200)}
        for name, mean in (("good", 0.5), ("middling", 2.5), ("poor", 5.0))
    }
    for test in ("permutation", "wilcoxon"):
        ranking = rank_systems(by_system, higher_is_better=False, test=test, resamples=500, seed=3)
        assert [row["system"] for row in ranking["systems"]] == ["good", "middling", "poor"]
        assert [row["cluster"] for row in ranking["systems"]] == [1, 2, 3]
        assert all(row["significant"] and row["p"] < 0.01 for row in ranking["pairs"])
        assert ranking["test"] == {"permutation": PERMUTATION, "wilcoxon": WILCOXON}[test]


def test_the_same_seed_gives_the_same_ranking():
    rng = np.random.default_rng(12)
    by_system = {name: {i: float(rng.normal(0, 1)) for i in range(40)} for name in "ABC"}
    assert rank_systems(by_system, seed=5, resamples=300) == rank_systems(by_system, seed=5, resamples=300)


def test_a_system_with_no_scores_is_listed_apart_not_ranked():
    ranking = rank_systems({"A": {1: 1.0}, "B": {}}, resamples=50)
    assert [row["system"] for row in ranking["systems"]] == ["A"] and ranking["unscored"] == ["B"]


def test_an_unknown_test_is_refused_by_name():
    with pytest.raises(ValueError, match="unknown test 'sign'"):
        rank_systems({"A": {1: 1.0}}, test="sign")


def brute_force_stability(rows, raters):
    """Every split of four raters into two pairs, by hand: tau between the pairs' system means."""
    taus = []
    for side in ({raters[0], raters[1]}, {raters[0], raters[2]}, {raters[0], raters[3]}):
        halves = []
        for inside in (True, False):
            sums = {}
            for system, _, rater, score in rows:
                if (rater in side) == inside:
                    total, count = sums.get(system, (0.0, 0))
                    sums[system] = (total + score, count + 1)
            halves.append([sums[system][0] / sums[system][1] for system in sorted(sums)])
        taus.append(stats.kendalltau(*halves).statistic)
    return float(np.mean(taus)), len(taus)


def test_rank_stability_uses_every_split_of_a_few_raters_and_agrees_with_brute_force():
    rng = np.random.default_rng(21)
    raters = ["r1", "r2", "r3", "r4"]
    rows = [
        (system, item, rater, float(rng.normal(quality, 1.0)))
        for system, quality in (("A", 0.0), ("B", 0.3), ("C", 0.6), ("D", 2.0))
        for item in range(8) for rater in raters
    ]  # fmt: skip
    stability = rank_stability(rows)
    expected, splits = brute_force_stability(rows, raters)
    assert stability["splits"] == splits == 3 and stability["raters"] == 4
    assert stability["mean"] == pytest.approx(expected)


def test_a_ranking_every_rater_agrees_on_is_perfectly_stable_and_one_rater_has_no_figure():
    rows = [(system, item, rater, quality + 0.01 * item)
            for system, quality in (("A", 1.0), ("B", 2.0), ("C", 3.0)) for item in range(5)
            for rater in ("r1", "r2", "r3", "r4", "r5")]  # fmt: skip
    stability = rank_stability(rows)
    assert stability["mean"] == 1.0 and stability["splits"] == 10  # 5 raters: C(5, 2) splits
    assert rank_stability([row for row in rows if row[2] == "r1"]) == {
        "mean": None, "reason": "fewer than two raters", "raters": 1,
    }  # fmt: skip


def test_many_raters_are_split_at_random_with_the_seed():
    rng = np.random.default_rng(22)
    rows = [(system, 0, f"r{rater}", float(rng.normal(number, 2.0)))
            for number, system in enumerate("ABCDE") for rater in range(30)]  # fmt: skip
    first = rank_stability(rows, splits=50, seed=3)
    assert first == rank_stability(rows, splits=50, seed=3) and first["splits"] == 50
    assert -1.0 <= first["low"] <= first["mean"] <= first["high"] <= 1.0


def test_z_normalisation_standardises_each_raters_scores_by_hand():
    rows = [
        ("A", 1, "r1", 1.0),
        ("B", 1, "r1", 2.0),
        ("C", 1, "r1", 3.0),
        ("A", 2, "r2", 4.0),
        ("B", 2, "r2", 4.0),
    ]
    z = {(system, rater): score for system, _, rater, score in z_normalised(rows)}
    spread = np.sqrt(2 / 3)  # r1: mean 2, population SD sqrt(((1-2)^2 + 0 + (3-2)^2) / 3)
    assert (
        z["A", "r1"] == pytest.approx(-1 / spread)
        and z["B", "r1"] == 0.0
        and z["C", "r1"] == pytest.approx(1 / spread)
    )
    assert z["A", "r2"] == z["B", "r2"] == 0.0  # all equal: nothing told apart


def test_a_harsh_and_a_lenient_rater_who_agree_on_the_order_count_alike_after_z():
    """r1 rates A 1 and B 2 on ten inputs, r2 (lenient, and rating only five of them) A 4, B 5:
    raw, r2's inputs weigh in with higher numbers; standardised, both say B > A by the same."""
    rows = [(system, n, "r1", score) for n in range(10) for system, score in (("A", 1.0), ("B", 2.0))]
    rows += [(system, n, "r2", score) for n in range(5) for system, score in (("A", 4.0), ("B", 5.0))]
    z = z_normalised(rows)
    assert {round(score, 9) for system, _, _, score in z if system == "A"} == {-1.0}
    assert {round(score, 9) for system, _, _, score in z if system == "B"} == {1.0}


def test_adjacent_pairs_are_counted_separated_by_the_rankings_own_tests():
    # A far above B; B, C and D a tenth apart each: of the three adjacent pairs only A-B is separated.
    rng = np.random.default_rng(3)
    means = {"A": 10.0, "B": 5.0, "C": 4.9, "D": 4.8}
    base = rng.normal(0, 1, 40)
    by_system = {s: {i: mean + base[i] + rng.normal(0, 0.3) for i in range(40)} for s, mean in means.items()}
    ranking = rank_systems(by_system, resamples=500)
    assert [row["system"] for row in ranking["systems"]] == ["A", "B", "C", "D"]
    assert adjacent_separation(ranking) == (1, 3)
    apart = {s: {i: 3 * place + base[i] for i in range(40)} for place, s in enumerate("ABCD")}
    assert adjacent_separation(rank_systems(apart, resamples=500)) == (3, 3)
    assert adjacent_separation(rank_systems({"A": {0: 1.0}}, resamples=100)) == (0, 0)
