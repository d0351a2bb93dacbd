"""A translation judge against the people (reports/metrics/judge.py): span precision and recall
worked by hand, Kendall's tau-b and pairwise accuracy worked by hand and checked against
scipy.stats.kendalltau on random scores with ties."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from reports.metrics.judge import (
    judge_comparison,
    kendall_tau_b,
    pair_table,
    pairwise_accuracy,
    segment_tau,
    span_comparison,
    system_agreement,
)
from reports.metrics.translation import MarkedError, RatedSegment

ROOT = Path(__file__).resolve().parents[2]


def rated(rater, *errors, system="sysA", segment=0, score=None):
    return RatedSegment(system, "doc", segment, rater, score, tuple(errors))


def error(start, end, severity, category="", side="target"):
    return MarkedError(side, start, end, category, severity)


def by_name(entries):
    return {entry["name"]: entry for entry in entries}


def test_span_precision_and_recall_against_each_person_hand_worked():
    judge = [
        rated("judge", error(0, 4, "Major", "Accuracy"), error(10, 12, "Minor", "Fluency")),
        rated("judge", error(0, 9, "Major", "Accuracy"), segment=5),  # no person rated segment 5
    ]
    people = [
        rated("p1", error(2, 6, "Major", "Accuracy")),
        rated("p2", error(10, 12, "Minor", "Fluency"), error(0, 2, "Major", "Fluency")),
        rated("p3", error(0, 3, "Major", "Accuracy"), segment=1),  # the judge did not rate segment 1
    ]
    result = span_comparison(judge, people)
    assert result["units"] == 1
    # The judge marks {0-3, 10-11}: 6 characters, against p1 {2-5} (2 shared) and p2 {0-1, 10-11} (4 shared).
    overall = result["any"]
    assert (overall["judge_characters"], overall["people_characters"], overall["both_characters"]) == (
        12,
        8,
        6,
    )
    assert overall["precision"] == 0.5 and overall["recall"] == 0.75 and overall["f1"] == pytest.approx(0.6)
    severities = by_name(result["severities"])
    # Major: {0-3} against {2-5} (2) and {0-1} (2): precision 4/8, recall 4/6.
    assert severities["Major"]["precision"] == 0.5 and severities["Major"]["recall"] == pytest.approx(2 / 3)
    # Minor: {10-11} against nothing and against {10-11}.
    assert severities["Minor"]["precision"] == 0.5 and severities["Minor"]["recall"] == 1.0
    categories = by_name(result["categories"])
    # Accuracy: {0-3} against {2-5} and nothing (p2's 0-1 is Fluency): 2 of 8, 2 of 4.
    assert (categories["Accuracy"]["precision"], categories["Accuracy"]["recall"]) == (0.25, 0.5)
    # Fluency: {10-11} against nothing and {0-1, 10-11}: 2 of 4, 2 of 4.
    assert (categories["Fluency"]["precision"], categories["Fluency"]["recall"]) == (0.5, 0.5)


def test_the_missing_marker_is_one_position_and_sides_are_apart():
    judge = [rated("judge", error(0, 0, "Major", side="missing"), error(0, 4, "Minor", side="source"))]
    people = [rated("p1", error(0, 0, "Major", side="missing"), error(0, 4, "Minor", side="target"))]
    overall = span_comparison(judge, people)["any"]
    assert (overall["judge_characters"], overall["people_characters"], overall["both_characters"]) == (
        5,
        5,
        1,
    )


def test_undefined_span_figures_say_why():
    nobody = span_comparison([rated("judge", error(0, 2, "Minor"))], [rated("p1", segment=3)])
    assert nobody["any"]["precision"] is None
    assert nobody["any"]["precision_reason"] == "no segment was rated by the judge and a person"
    silent = span_comparison([rated("judge")], [rated("p1", error(0, 2, "Minor"))])["any"]
    assert silent["precision"] is None and silent["precision_reason"] == "the judge marked none"
    assert silent["recall"] == 0.0 and silent["f1"] == 0.0


def scored(rater, system, score, segment=0):
    return rated(rater, system=system, segment=segment, score=score)


def test_system_agreement_hand_worked():
    people = [scored("p", s, v) for s, v in {"A": 10, "B": 20, "C": 30, "D": 40}.items()]
    judge = [scored("judge", s, v) for s, v in {"A": 15, "B": 12, "C": 35, "D": 50}.items()]
    result = system_agreement(judge, people, higher_is_better=True)
    # Six pairs; only A-B is ordered otherwise (the people find B better, the judge A): 5 of 6 agree,
    # tau = (5 concordant - 1 discordant) / 6.
    assert (result["pairs"], result["agreeing"]) == (6, 5)
    assert result["pairwise_accuracy"] == pytest.approx(5 / 6)
    assert result["tau"] == pytest.approx(2 / 3)
    assert result["tau"] == pytest.approx(stats.kendalltau([15, 12, 35, 50], [10, 20, 30, 40]).statistic)
    assert result["disagreeing"] == [{"first": "B", "second": "A", "people": "first", "judge": "second"}]
    ranks = {row["system"]: (row["people_rank"], row["judge_rank"]) for row in result["systems"]}
    assert ranks == {"D": (1, 1), "C": (2, 2), "B": (3, 4), "A": (4, 3)}


def test_lower_is_better_ranks_the_other_way_and_ties_agree_only_with_ties():
    # MQM: lower is better. The people tie A and B; the judge separates them.
    people = [scored("p", "A", 1.0), scored("p", "B", 1.0), scored("p", "C", 5.0)]
    judge = [scored("judge", "A", 0.5), scored("judge", "B", 2.0), scored("judge", "C", 6.0)]
    result = system_agreement(judge, people, higher_is_better=False)
    assert [row["system"] for row in result["systems"]] == ["A", "B", "C"]
    assert [row["people_rank"] for row in result["systems"]] == [1, 1, 3]
    assert result["pairwise_accuracy"] == pytest.approx(2 / 3)
    assert result["disagreeing"] == [{"first": "A", "second": "B", "people": "tied", "judge": "first"}]
    assert result["tau"] == pytest.approx(stats.kendalltau([0.5, 2.0, 6.0], [1.0, 1.0, 5.0]).statistic)


@pytest.mark.parametrize("seed", range(20))
def test_tau_b_from_the_pair_table_is_scipys_on_random_scores_with_ties(seed):
    rng = np.random.default_rng(seed)
    systems = int(rng.integers(2, 16))
    judge = dict(enumerate(rng.integers(0, 5, systems).astype(float)))
    people = dict(enumerate(rng.integers(0, 5, systems).astype(float)))
    tau = kendall_tau_b(pair_table(judge, people))
    expected = stats.kendalltau(list(judge.values()), list(people.values())).statistic
    if np.isnan(expected):
        assert tau is None
    else:
        assert tau == pytest.approx(expected)


def test_pairwise_accuracy_counts_the_pairs_ordered_alike():
    pairs = pair_table({"A": 1, "B": 2, "C": 3}, {"A": 1, "B": 3, "C": 2})
    assert pairwise_accuracy(pairs) == pytest.approx(2 / 3)
    assert pairwise_accuracy([]) is None


def test_systems_are_compared_on_the_segments_both_scored():
    people = [scored("p1", "A", 50, segment=0), scored("p2", "A", 70, segment=0), scored("p1", "A", 0, segment=1),
              scored("p1", "B", 40, segment=0)]  # fmt: skip
    judge = [
        scored("judge", "A", 80, segment=0),
        scored("judge", "B", 30, segment=0),
        scored("judge", "B", 99, 2),
    ]
    result = system_agreement(judge, people, higher_is_better=True)
    scores = {row["system"]: (row["people"], row["judge"]) for row in result["systems"]}
    # Segment 1 has no judge score and segment 2 no person's: neither counts.
    assert scores == {"A": (60.0, 80.0), "B": (40.0, 30.0)}
    assert result["units"] == 2 and result["pairwise_accuracy"] == 1.0


def test_one_system_gives_no_agreement_and_says_why():
    result = system_agreement([scored("judge", "A", 1)], [scored("p", "A", 2)], higher_is_better=True)
    assert result["tau"] is None and result["pairwise_accuracy"] is None
    assert result["tau_reason"] == "fewer than two systems scored by both the judge and the people"


def test_segment_tau_against_the_people_s_mean_per_segment():
    people = [
        scored("p1", "A", 10, 0),
        scored("p2", "A", 30, 0),
        scored("p1", "A", 40, 1),
        scored("p1", "A", 30, 2),
    ]
    judge = [scored("judge", "A", 1, 0), scored("judge", "A", 2, 1), scored("judge", "A", 3, 2)]
    # People's means 20, 40, 30 against 1, 2, 3: two concordant pairs, one discordant.
    assert segment_tau(judge, people)["tau"] == pytest.approx(1 / 3)


def test_judge_comparison_puts_the_three_together():
    people = [scored("p", "A", 1.0), scored("p", "B", 2.0)]
    judge = [scored("judge", "A", 1.0), scored("judge", "B", 3.0)]
    result = judge_comparison(judge, people, higher_is_better=True)
    assert set(result) == {"spans", "systems", "segments"}
    assert result["systems"]["tau"] == 1.0


def test_module_imports_without_django():
    check = (
        "import reports.metrics.judge, sys; "
        "assert not any(m == 'django' or m.startswith('django.') for m in sys.modules)"
    )
    completed = subprocess.run([sys.executable, "-c", check], cwd=ROOT, capture_output=True, text=True)
    assert completed.returncode == 0, completed.stderr
