"""Pairwise-comparison metrics on a small study computed by hand, and Bradley-Terry against an own fit.

The hand-computed study (STUDY below), outputs numbered in order a1 b1 c1
a2 b2 c2, systems A, B, C, one block:

    input 1   x: a1|b1 left  -> A beats B     y: b1|a1 right -> A beats B
              x: b1|c1 tie   -> B ties C      y: b1|c1 left  -> B beats C
              x: c1|a1 right -> A beats C     y: a1|c1 right -> C beats A
    input 2   x: a2|b2 right -> B beats A
              x: a2|c2 left  -> A beats C
              x: b2|c2 left  -> B beats C
"""

import subprocess
import sys
from itertools import combinations
from pathlib import Path

import krippendorff
import numpy as np
import pytest
from scipy.optimize import minimize

from reports.metrics.pairwise import (
    Choice,
    Comparisons,
    Output,
    PairwiseStudy,
    agreement_pct,
    average_rank,
    bradley_terry,
    change_rate_pct,
    pair_alpha,
    pairwise_report,
    win_rate_shr,
    win_rates,
)

ROOT = Path(__file__).resolve().parents[2]

OUTPUTS = [
    Output(f"{system.lower()}{number}", f"i{number}", system, "b1") for number in (1, 2) for system in "ABC"
]
MAIN_CHOICES = [
    Choice("x", "a1", "b1", "left", None, "b1"),
    Choice("x", "b1", "c1", "tie", None, "b1"),
    Choice("x", "c1", "a1", "right", None, "b1"),
    Choice("y", "b1", "a1", "right", None, "b1"),
    Choice("y", "b1", "c1", "left", None, "b1"),
    Choice("y", "a1", "c1", "right", None, "b1"),
    Choice("x", "a2", "b2", "right", None, "b1"),
    Choice("x", "a2", "c2", "left", None, "b1"),
    Choice("x", "b2", "c2", "left", None, "b1"),
]
STUDY = PairwiseStudy(OUTPUTS, MAIN_CHOICES, allow_ties=True, bootstrap_draws=50)


def main_of(study):
    return Comparisons(study)


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


# Win rates ------------------------------------------------------------------


def test_win_rates_count_a_tie_as_half_a_win():
    # A: beats B (x1, y1), loses to B (x2); beats C (x1, x2), loses to C (y1): 4 W, 2 L -> 4/6.
    # B: 1 W 2 L against A; against C a tie (x1) and two wins (y1, x2): 3 W 2 L 1 T -> 3.5/6.
    # C: 1 W 2 L against A; 0 W 2 L 1 T against B: 1 W 4 L 1 T -> 1.5/6.
    systems = win_rates(main_of(STUDY))["systems"]
    assert systems["A"] == {
        "wins": 4,
        "losses": 2,
        "ties": 0,
        "comparisons": 6,
        "win_rate": pytest.approx(4 / 6),
    }
    assert systems["B"] == {
        "wins": 3,
        "losses": 2,
        "ties": 1,
        "comparisons": 6,
        "win_rate": pytest.approx(7 / 12),
    }
    assert systems["C"] == {
        "wins": 1,
        "losses": 4,
        "ties": 1,
        "comparisons": 6,
        "win_rate": pytest.approx(0.25),
    }


def test_head_to_head_is_read_from_the_row_systems_side():
    head_to_head = win_rates(main_of(STUDY))["head_to_head"]
    assert head_to_head["A"]["B"] == {
        "wins": 2,
        "losses": 1,
        "ties": 0,
        "comparisons": 3,
        "win_rate": pytest.approx(2 / 3),
    }
    assert head_to_head["B"]["A"]["win_rate"] == pytest.approx(1 / 3)
    # B against C: 2 wins and a tie -> 2.5 / 3.
    assert head_to_head["B"]["C"] == {
        "wins": 2,
        "losses": 0,
        "ties": 1,
        "comparisons": 3,
        "win_rate": pytest.approx(5 / 6),
    }
    assert "A" not in head_to_head["A"]


def test_a_system_never_compared_has_a_null_win_rate_with_a_reason():
    study = PairwiseStudy([*OUTPUTS, Output("d1", "i1", "D", "b1")], MAIN_CHOICES)
    rates = win_rates(main_of(study))
    assert rates["systems"]["D"]["win_rate"] is None
    assert rates["systems"]["D"]["win_rate_reason"] == "no comparisons"
    assert rates["head_to_head"]["A"]["D"]["comparisons"] == 0


def test_the_last_main_choice_of_a_worker_on_a_pair_counts_whatever_its_sides():
    # x first picks b1 over a1, then sees the pair swapped and picks a1 (left): A beats B once.
    choices = [Choice("x", "a1", "b1", "right", None, "b1"), Choice("x", "b1", "a1", "right", None, "b1")]
    systems = win_rates(main_of(PairwiseStudy(OUTPUTS, choices)))["systems"]
    assert (systems["A"]["wins"], systems["A"]["losses"], systems["B"]["wins"]) == (1, 0, 0)


# Average rank ---------------------------------------------------------------


def test_average_rank_ranks_systems_by_win_share_within_each_input():
    # Input 1: A won 3 of 4 (0.75); B 0 + 1.5 of 4 (0.375); C 1 + 0.5 of 4 (0.375):
    #   A 1, B and C level on ranks 2 and 3 -> 2.5 each.
    # Input 2: B 2/2, A 1/2, C 0/2 -> B 1, A 2, C 3.
    # Means: A (1 + 2) / 2 = 1.5, B (2.5 + 1) / 2 = 1.75, C (2.5 + 3) / 2 = 2.75.
    ranks = average_rank(main_of(STUDY))
    assert ranks == {
        "A": {"average_rank": 1.5, "inputs": 2},
        "B": {"average_rank": 1.75, "inputs": 2},
        "C": {"average_rank": 2.75, "inputs": 2},
    }


def test_average_rank_of_a_system_compared_nowhere_is_null():
    study = PairwiseStudy([*OUTPUTS, Output("d1", "i1", "D", "b1")], MAIN_CHOICES)
    assert average_rank(main_of(study))["D"] == {
        "average_rank": None,
        "average_rank_reason": "not compared in any input",
        "inputs": 0,
    }


# Agreement ------------------------------------------------------------------


def test_alpha_by_hand_reads_the_winning_document_not_the_side():
    # Pairs judged by x and y (input 1), value relative to the pair's first document
    # (a1 < b1 < c1): {a1,b1} x 1, y 1 (y saw b1|a1 and chose right: still a1);
    # {b1,c1} x 0.5 (tie), y 1; {a1,c1} x 1, y 0. Mirrored units: (0,0), (0.5,0), (0,1).
    # Coincidences (each two-value unit adds 1 to o[a][b] and o[b][a]):
    #   o[1][1] = 2, o[0][0] = 2, o[0][1] = o[1][0] = 2, o[h][1] = o[h][0] = 1 (and transposed).
    #   n_0 = 5, n_h = 2, n_1 = 5, n = 12; disagreeing pairs: 12 - 4 = 8.
    #   expected: n^2 - sum n_c^2 = 144 - 54 = 90.
    # alpha = 1 - (n - 1) * 8 / 90 = 1 - 88 / 90 = 1 / 45.
    result = pair_alpha(main_of(STUDY))
    assert result.alpha == pytest.approx(1 / 45, abs=1e-12)
    assert result.pairable_units == 6  # three pairs, each also mirrored


def test_agreement_pct_counts_pairs_where_every_annotator_chose_the_same_winner():
    # Three pairs have two annotators; only {a1, b1} has one winner (a1) for both.
    agreement = agreement_pct(main_of(STUDY))
    assert agreement.pct == pytest.approx(100 / 3)
    assert agreement.pairs == 3


def test_same_document_on_swapped_sides_is_perfect_agreement():
    # x and y always pick the same document, y seeing every pair with the sides swapped.
    outputs = [Output(f"{s}{n}", f"i{n}", s, "b1") for n in range(4) for s in "AB"]
    winners = ["A", "B", "A", "B"]
    choices = []
    for n, winner in enumerate(winners):
        choices.append(Choice("x", f"A{n}", f"B{n}", "left" if winner == "A" else "right", None, "b1"))
        choices.append(Choice("y", f"B{n}", f"A{n}", "right" if winner == "A" else "left", None, "b1"))
    comparisons = main_of(PairwiseStudy(outputs, choices))
    assert pair_alpha(comparisons).alpha == pytest.approx(1.0)
    assert agreement_pct(comparisons).pct == 100.0


def random_study(seed, inputs=60, systems="ABCD", annotators=3, tie=0.15, swap=0.5, strengths=None, blocks=4):
    """Every pair of every input judged by ``annotators`` workers of the input's block."""
    rng = np.random.default_rng(seed)
    strengths = strengths or dict.fromkeys(systems, 0.0)
    outputs, choices = [], []
    for number in range(inputs):
        block = f"b{number % blocks}"
        outputs += [Output(f"{s}-{number}", f"i{number}", s, block) for s in systems]
        for worker in range(annotators):
            for first, second in combinations(systems, 2):
                left, right = (first, second) if rng.random() >= swap else (second, first)
                if rng.random() < tie:
                    pick = "tie"
                else:
                    p_left = sigmoid(strengths[left] - strengths[right])
                    pick = "left" if rng.random() < p_left else "right"
                choices.append(
                    Choice(f"w{block}-{worker}", f"{left}-{number}", f"{right}-{number}", pick, None, block)
                )
    return PairwiseStudy(outputs, choices, allow_ties=True, bootstrap_draws=100, seed=seed)


def test_alpha_matches_the_krippendorff_package_with_each_pair_in_both_orientations():
    study = random_study(3, strengths={"A": 1.0, "B": 0.0, "C": -0.5, "D": 0.3})
    # Drop a third of the choices so units have 1, 2 or 3 values.
    study.choices = study.choices[::3] + study.choices[1::3]
    # Independent coding: per pair (sorted document ids) the value is 0 first won,
    # 1 tie, 2 second won; the mirrored unit swaps 0 and 2.
    annotators = sorted({choice.annotator for choice in study.choices})
    pairs = sorted({tuple(sorted((choice.left, choice.right))) for choice in study.choices})
    data = np.full((len(annotators), 2 * len(pairs)), np.nan)
    for choice in study.choices:
        pair = tuple(sorted((choice.left, choice.right)))
        winner = {"left": choice.left, "right": choice.right, "tie": None}[choice.choice]
        code = 1 if winner is None else (0 if winner == pair[0] else 2)
        unit = pairs.index(pair)
        data[annotators.index(choice.annotator), unit] = code
        data[annotators.index(choice.annotator), len(pairs) + unit] = 2 - code
    expected = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
    assert pair_alpha(main_of(study)).alpha == pytest.approx(expected, abs=1e-9)


def test_annotators_picking_at_random_get_alpha_near_zero():
    # With the value coded as the document id, chance agreement would be near 0 and alpha near 0.4 here.
    alpha = pair_alpha(main_of(random_study(5, inputs=150))).alpha
    assert abs(alpha) < 0.05


def test_alpha_and_agreement_are_null_when_nobody_shares_a_pair():
    comparisons = main_of(PairwiseStudy(OUTPUTS, MAIN_CHOICES[6:]))
    assert pair_alpha(comparisons).reason == "no pairable units"
    assert agreement_pct(comparisons).pct is None
    assert agreement_pct(comparisons).reason == "no pair was judged by two or more annotators"


# Test-retest ----------------------------------------------------------------


def test_change_rate_pct_compares_the_winning_document_of_main_and_retest():
    retest = [
        Choice("x", "b1", "a1", "right", None, "b1", "retest"),  # a1 again, sides swapped: same
        Choice("x", "c1", "b1", "left", None, "b1", "retest"),  # main was a tie, now c1: changed
        Choice("x", "a2", "c2", "right", None, "b1", "retest"),  # first c2 ...
        Choice("x", "a2", "c2", "tie", None, "b1", "retest"),  # ... then a tie (the last counts): changed
        Choice("y", "a2", "b2", "left", None, "b1", "retest"),  # y never judged {a2, b2}: not matched
    ]
    study = PairwiseStudy(OUTPUTS, MAIN_CHOICES + retest)
    change = change_rate_pct(Comparisons(study, "main"), Comparisons(study, "retest"))
    assert (change.pct, change.pairs, change.changed) == (pytest.approx(200 / 3), 3, 2)
    # Retest choices leave the main figures alone.
    assert win_rates(main_of(study)) == win_rates(main_of(STUDY))


def test_change_rate_without_retest_is_null():
    change = change_rate_pct(main_of(STUDY), Comparisons(STUDY, "retest"))
    assert change.pct is None
    assert change.reason == "no retest choice matches a main choice of the same worker and pair"


# Split-half reliability -----------------------------------------------------


def test_shr_correlates_win_rates_of_the_two_halves_of_the_blocks():
    # Block b1 (input i1): A beats B and C, B beats C -> A 1, B 0.5, C 0.
    # Block b2 (input i2): A beats B and C, C beats B -> A 1, B 0, C 0.5.
    # One split: deviations (0.5, 0, -0.5) and (0.5, -0.5, 0): r = 0.25 / sqrt(0.5 * 0.5) = 0.5.
    outputs = [Output(f"{s.lower()}{n}", f"i{n}", s, f"b{n}") for n in (1, 2) for s in "ABC"]
    choices = [
        Choice("x", "a1", "b1", "left", None, "b1"),
        Choice("x", "a1", "c1", "left", None, "b1"),
        Choice("x", "b1", "c1", "left", None, "b1"),
        Choice("y", "a2", "b2", "left", None, "b2"),
        Choice("y", "c2", "a2", "right", None, "b2"),
        Choice("y", "b2", "c2", "right", None, "b2"),
    ]
    result, reason = win_rate_shr(main_of(PairwiseStudy(outputs, choices)))
    assert reason is None
    assert result["pearson_mean"] == pytest.approx(0.5)
    assert result["splits"] == 1


def test_shr_of_one_block_is_null_with_the_ratings_reason():
    assert win_rate_shr(main_of(STUDY)) == (None, "fewer than two blocks with scores")


# Bradley-Terry --------------------------------------------------------------


def own_bradley_terry(study):
    """Maximum likelihood over log-strengths with scipy, ties half a win each way, centred."""
    systems = sorted({output.system for output in study.outputs})
    system_of = {output.document: systems.index(output.system) for output in study.outputs}
    latest = {}
    for choice in study.choices:
        if choice.kind == "main":
            latest[(choice.annotator, frozenset((choice.left, choice.right)))] = choice
    won = np.zeros((len(systems), len(systems)))
    for choice in latest.values():
        left, right = system_of[choice.left], system_of[choice.right]
        share = {"left": 1.0, "right": 0.0, "tie": 0.5}[choice.choice]
        won[left, right] += share
        won[right, left] += 1.0 - share

    def negative_log_likelihood(theta):
        differences = theta[:, None] - theta[None, :]
        return np.sum(won * np.logaddexp(0.0, -differences))

    def gradient(theta):
        p = sigmoid(theta[:, None] - theta[None, :])
        # d/dtheta_i of -sum won_ij log p_ij: -sum_j won_ij (1 - p_ij) + sum_j won_ji (1 - p_ji)
        pressure = won * (1.0 - p)
        return -pressure.sum(axis=1) + pressure.sum(axis=0)

    theta = minimize(
        negative_log_likelihood, np.zeros(len(systems)), jac=gradient, method="BFGS", options={"gtol": 1e-10}
    ).x
    return dict(zip(systems, theta - theta.mean(), strict=True))


def test_bradley_terry_matches_an_own_maximum_likelihood_fit():
    study = random_study(
        11, inputs=30, systems="ABCDE", strengths={"A": 0.8, "B": 0.4, "C": 0, "D": -0.2, "E": -1}
    )
    expected = own_bradley_terry(study)
    scores = bradley_terry(main_of(study), draws=20)["scores"]
    for system, score in expected.items():
        assert scores[system]["score"] == pytest.approx(score, abs=1e-3)
    assert sum(entry["score"] for entry in scores.values()) == pytest.approx(0.0, abs=1e-9)


def test_bradley_terry_recovers_known_strengths_on_a_large_study():
    truth = {"A": 1.0, "B": 0.5, "C": 0.0, "D": -0.5, "E": -1.0}
    study = random_study(7, inputs=600, systems="ABCDE", annotators=2, tie=0.0, strengths=truth)
    result = bradley_terry(main_of(study), draws=200, seed=1)
    for system, strength in truth.items():
        entry = result["scores"][system]
        assert entry["score"] == pytest.approx(strength, abs=0.1)
        assert entry["ci_low"] < entry["score"] < entry["ci_high"]
        assert entry["ci_high"] - entry["ci_low"] < 0.4
        assert entry["strength"] == pytest.approx(np.exp(entry["score"]))
    assert result["draws"] == result["draws_used"] == 200
    assert result["p_beats"]["A"]["E"] == pytest.approx(
        sigmoid(result["scores"]["A"]["score"] - result["scores"]["E"]["score"])
    )
    assert result["p_beats"]["A"]["E"] + result["p_beats"]["E"]["A"] == pytest.approx(1.0)


def test_a_tie_is_half_a_win_each_way_in_bradley_terry():
    # A against B: 2 wins, 1 loss, 2 ties -> 3 against 2, so P(A beats B) = 0.6 and
    # theta_A - theta_B = log(3 / 2), centred +-log(1.5) / 2. (Dropping ties would give log 2.)
    outputs = [Output(f"{s}{n}", f"i{n}", s, "b1") for n in range(5) for s in "AB"]
    picks = ["left", "left", "right", "tie", "tie"]
    choices = [Choice("x", f"A{n}", f"B{n}", pick, None, "b1") for n, pick in enumerate(picks)]
    result = bradley_terry(main_of(PairwiseStudy(outputs, choices)), draws=10)
    assert result["scores"]["A"]["score"] == pytest.approx(np.log(1.5) / 2, abs=1e-4)
    assert result["p_beats"]["A"]["B"] == pytest.approx(0.6, abs=1e-4)
    assert result["tie_rule"] == "a tie is half a win for each system"


def test_bootstrap_resamples_inputs_not_single_choices():
    # Every input holds the same three choices (A beats B twice, B beats A once), so any
    # resample of inputs is the same data: theta_A - theta_B = log 2 in every draw and the
    # interval has no width. Resampling single choices instead would move the estimate.
    outputs = [Output(f"{s}{n}", f"i{n}", s, "b1") for n in range(20) for s in "AB"]
    choices = []
    for n in range(20):
        choices += [
            Choice("x", f"A{n}", f"B{n}", "left", None, "b1"),
            Choice("y", f"A{n}", f"B{n}", "left", None, "b1"),
            Choice("z", f"B{n}", f"A{n}", "left", None, "b1"),
        ]
    entry = bradley_terry(main_of(PairwiseStudy(outputs, choices)), draws=50)["scores"]["A"]
    assert entry["score"] == pytest.approx(np.log(2) / 2, abs=1e-4)
    assert entry["ci_low"] == pytest.approx(entry["score"], abs=1e-6)
    assert entry["ci_high"] == pytest.approx(entry["score"], abs=1e-6)


def test_bootstrap_is_reproducible_with_its_seed():
    comparisons = main_of(random_study(2, inputs=20))
    first = bradley_terry(comparisons, draws=50, seed=4)
    assert bradley_terry(comparisons, draws=50, seed=4) == first
    assert bradley_terry(comparisons, draws=50, seed=5)["scores"] != first["scores"]


def test_a_system_that_lost_every_comparison_has_no_scores():
    study = random_study(1, inputs=10)
    study.choices = [choice for choice in study.choices if "D" not in choice.left + choice.right]
    for number in range(10):
        study.choices.append(Choice("w", f"D-{number}", f"A-{number}", "right", None, f"b{number % 4}"))
    result = bradley_terry(main_of(study), draws=10)
    assert result["scores"] is None
    assert result["scores_reason"] == "no Bradley-Terry scores exist: D lost every comparison"
    assert result["p_beats"] is None


def test_a_system_that_won_every_comparison_has_no_scores():
    choices = [Choice("x", "a1", "b1", "left", None, "b1"), Choice("x", "a1", "c1", "left", None, "b1")]
    choices.append(Choice("x", "b1", "c1", "tie", None, "b1"))
    result = bradley_terry(main_of(PairwiseStudy(OUTPUTS, choices)), draws=10)
    assert result["scores_reason"] == "no Bradley-Terry scores exist: A won every comparison"


def test_disconnected_comparisons_have_no_scores():
    outputs = [Output(f"{s}{n}", f"i{n}", s, "b1") for n in range(2) for s in "ABCD"]
    choices = [
        Choice("x", "A0", "B0", "left", None, "b1"),
        Choice("x", "A1", "B1", "right", None, "b1"),
        Choice("x", "C0", "D0", "left", None, "b1"),
        Choice("x", "C1", "D1", "right", None, "b1"),
    ]
    result = bradley_terry(main_of(PairwiseStudy(outputs, choices)), draws=10)
    assert result["scores"] is None
    assert (
        result["scores_reason"] == "the systems fall into groups never compared with each other: A, B | C, D"
    )


def test_no_choices_give_no_scores_without_crashing():
    result = bradley_terry(main_of(PairwiseStudy(OUTPUTS, [])), draws=10)
    assert result["scores_reason"] == "fewer than two systems have comparisons"


def test_a_system_never_compared_gets_null_scores_and_the_others_are_fitted():
    study = random_study(4, inputs=20, systems="ABC")
    study.outputs.append(Output("D-0", "i0", "D", "b0"))
    scores = bradley_terry(main_of(study), draws=20)["scores"]
    assert scores["D"]["score"] is None
    assert scores["D"]["score_reason"] == "no comparisons"
    assert scores["D"]["ci_low"] is None
    assert sum(scores[system]["score"] for system in "ABC") == pytest.approx(0.0, abs=1e-9)


def test_degenerate_bootstrap_draws_are_counted():
    # C wins only in input 0: a resample without input 0 has C losing everything.
    outputs = [Output(f"{s}{n}", f"i{n}", s, "b1") for n in range(4) for s in "ABC"]
    choices = [Choice("x", "C0", "A0", "left", None, "b1"), Choice("x", "C0", "B0", "left", None, "b1")]
    for n in range(4):
        choices += [
            Choice("x", f"A{n}", f"B{n}", "left" if n % 2 else "right", None, "b1"),
            Choice("y", f"A{n}", f"C{n}", "left", None, "b1"),
        ]
    result = bradley_terry(main_of(PairwiseStudy(outputs, choices)), draws=200)
    # P(input 0 missing from a resample of 4) = (3/4)^4, about 32%.
    assert 0.2 < result["degenerate_draws"] / 200 < 0.45
    assert result["draws_used"] == 200


# Checks on the data ---------------------------------------------------------


@pytest.mark.parametrize(
    ("choice", "options", "message"),
    [
        (Choice("x", "a1", "b1", "tie", None, "b1"), {"allow_ties": False}, "the study allows none"),
        (Choice("x", "a1", "b1", "left", 3, "b1"), {"strength_max": 2}, "outside 1..2"),
        (Choice("x", "a1", "b1", "left", 1, "b1"), {}, "asks for none"),
        (Choice("x", "a1", "b1", "tie", 1, "b1"), {"strength_max": 2}, "a tie has no strength"),
        (Choice("x", "a1", "b2", "left", None, "b1"), {}, "different inputs"),
        (Choice("x", "a1", "a1", "left", None, "b1"), {}, "the same document"),
        (Choice("x", "a1", "b1", "up", None, "b1"), {}, "choice must be one of"),
        (Choice("x", "a1", "z9", "left", None, "b1"), {}, "not an item of the study"),
        (Choice("x", "a1", "b1", "left", None, "b7"), {}, "judged in block"),
    ],
)
def test_invalid_choices_are_refused(choice, options, message):
    with pytest.raises(ValueError, match=message):
        Comparisons(PairwiseStudy(OUTPUTS, [choice], **options))


def test_two_outputs_of_one_system_are_refused():
    outputs = [Output("a1", "i1", "A", "b1"), Output("a1bis", "i1", "A", "b1")]
    with pytest.raises(ValueError, match="both documents come from system 'A'"):
        Comparisons(PairwiseStudy(outputs, [Choice("x", "a1", "a1bis", "left", None, "b1")]))


# The report -----------------------------------------------------------------


def test_report_puts_the_hand_computed_figures_together():
    choices = [*MAIN_CHOICES, Choice("x", "c1", "b1", "left", None, "b1", "retest")]
    report = pairwise_report(PairwiseStudy(OUTPUTS, choices, allow_ties=True, bootstrap_draws=30))
    assert report["protocol"] == "pairwise"
    assert (report["choices"], report["annotators"], report["blocks"], report["inputs"]) == (9, 2, 1, 2)
    assert (report["pairs"], report["ties"]) == (6, 1)
    assert report["win_rates"]["systems"]["B"]["win_rate"] == pytest.approx(7 / 12)
    assert report["average_rank"]["C"]["average_rank"] == 2.75
    assert report["alpha_nominal"] == pytest.approx(1 / 45)
    assert report["pairable_pairs"] == 3
    assert report["agreement_pct"] == pytest.approx(100 / 3)
    assert report["shr"] is None
    assert report["shr_reason"] == "fewer than two blocks with scores"
    assert (report["change_rate_pct"], report["retest_pairs"]) == (100.0, 1)
    assert report["system_scores"]["A"]["win_rate"] == pytest.approx(4 / 6)
    assert report["system_scores"]["A"]["n"] == 6
    assert report["system_scores"]["A"]["bt"] == report["bradley_terry"]["scores"]["A"]["score"]


def test_report_carries_reasons_where_values_are_undefined():
    study = PairwiseStudy([*OUTPUTS, Output("d1", "i1", "D", "b1")], MAIN_CHOICES[6:])
    report = pairwise_report(study)
    assert report["alpha_nominal"] is None
    assert report["alpha_nominal_reason"] == "no pairable units"
    assert report["agreement_pct"] is None
    assert "agreement_pct_reason" in report
    assert report["change_rate_pct"] is None
    assert "change_rate_pct_reason" in report
    # On input 2 alone B won and C lost everything: no Bradley-Terry scores at all.
    reason = "no Bradley-Terry scores exist: B won every comparison; C lost every comparison"
    assert report["system_scores"]["B"] == {"win_rate": 1.0, "bt": None, "bt_reason": reason, "n": 2}
    assert report["system_scores"]["D"] == {
        "win_rate": None,
        "win_rate_reason": "no comparisons",
        "bt": None,
        "bt_reason": reason,
        "n": 0,
    }


def test_report_counts_strengths_of_decisive_choices():
    choices = [
        Choice("x", "a1", "b1", "left", 2, "b1"),
        Choice("x", "a1", "c1", "right", 1, "b1"),
        Choice("x", "b1", "c1", "tie", None, "b1"),
        Choice("x", "a2", "b2", "left", None, "b1"),
    ]
    report = pairwise_report(PairwiseStudy(OUTPUTS, choices, strength_max=2, bootstrap_draws=5))
    assert report["strength_counts"] == {"1": 1, "2": 1}
    assert report["decisive_choices_without_strength"] == 1


def test_pairwise_metrics_and_design_import_without_django():
    check = (
        "import reports.metrics.pairwise, protocols.pairwise.design, sys; "
        "assert not any(m == 'django' or m.startswith('django.') for m in sys.modules)"
    )
    completed = subprocess.run([sys.executable, "-c", check], cwd=ROOT, capture_output=True, text=True)
    assert completed.returncode == 0, completed.stderr


def test_without_bootstrap_draws_the_intervals_are_null_and_the_scores_stay():
    entry = bradley_terry(main_of(random_study(6, inputs=10)), draws=0)["scores"]["A"]
    assert entry["score"] is not None
    assert (entry["ci_low"], entry["ci_low_reason"]) == (None, "no bootstrap draw was fitted")
    assert entry["ci_high"] is None


def test_systems_are_ranked_by_their_win_rate_input_by_input():
    """Ten inputs, every pair judged once: A beats B and C everywhere, B beats C on six inputs
    and loses on four. Per input A has 1.0; B 0.5 or 0; C 0 or 0.5. B and C are not told
    apart (6 to 4), A is."""
    outputs = [Output(f"{s}{n}", f"i{n}", s.upper(), "b1") for n in range(10) for s in "abc"]
    choices = []
    for n in range(10):
        choices += [Choice("x", f"a{n}", f"b{n}", "left", None, "b1"), Choice("x", f"c{n}", f"a{n}", "right", None, "b1"),
                    Choice("x", f"b{n}", f"c{n}", "left" if n < 6 else "right", None, "b1")]  # fmt: skip
    ranking = pairwise_report(PairwiseStudy(outputs, choices, bootstrap_draws=20))["ranking"]
    assert [(row["system"], row["cluster"], row["items"]) for row in ranking["systems"]] == [
        ("A", 1, 10), ("B", 2, 10), ("C", 2, 10),
    ]  # fmt: skip
    assert [row["score"] for row in ranking["systems"]] == pytest.approx([1.0, 0.3, 0.2])
    by_pair = {(pair["better"], pair["worse"]): pair for pair in ranking["pairs"]}
    assert by_pair["A", "B"]["significant"] and not by_pair["B", "C"]["significant"]
