"""The quality checks' pure parts: the Mann-Whitney U test against scipy (exact and asymptotic)
and by hand, each rater's reliability, the detection rule, and the degradations themselves."""

import random

import pytest
from scipy import stats

from protocols.translation.degrade import DROP, REPLACE, degrade, drop, phrase_length, replace, units
from reports.metrics.quality_checks import (
    CheckedSegment,
    Injected,
    check_caught,
    check_verdict,
    detected,
    lowest_p,
    mann_whitney_u,
    rater_reliability,
)
from reports.metrics.translation import MarkedError

# --- the Mann-Whitney U test ---------------------------------------------------------------------


@pytest.mark.parametrize("alternative", ["less", "greater", "two-sided"])
@pytest.mark.parametrize(
    "x, y",
    [
        ([20, 35, 10, 41], [80, 75, 90, 66, 71]),  # small, no ties: exact
        ([3, 1, 4, 15, 9, 2, 6], [5, 35, 8, 97, 93, 23]),  # exact, overlapping
        ([1.5], [2.5]),  # one value each
        ([10, 20, 20, 30], [20, 40, 40, 50, 60]),  # ties: asymptotic
        ([50, 50, 50], [50, 50]),  # every value tied
        (list(range(0, 40, 3)), list(range(1, 60, 4))),  # both above 8: asymptotic
    ],
)
def test_the_u_test_is_scipys(x, y, alternative):
    expected = stats.mannwhitneyu(x, y, alternative=alternative)
    mine = mann_whitney_u(x, y, alternative)
    assert mine.statistic == pytest.approx(expected.statistic)
    assert mine.p == pytest.approx(expected.pvalue, abs=1e-12)


@pytest.mark.parametrize("method", ["exact", "asymptotic"])
@pytest.mark.parametrize("continuity", [True, False])
def test_the_method_and_the_continuity_correction_are_scipys_when_forced(method, continuity):
    x, y = [12, 31, 7, 19, 44, 3, 28, 15, 9, 40], [33, 52, 47, 21, 60, 38, 55, 25, 49]
    expected = stats.mannwhitneyu(x, y, alternative="less", method=method, use_continuity=continuity)
    mine = mann_whitney_u(x, y, "less", method=method, continuity=continuity)
    assert mine.method == method
    assert mine.p == pytest.approx(expected.pvalue, abs=1e-12)


def test_random_samples_match_scipy():
    rng = random.Random(7)
    for _ in range(300):
        values = rng.choice([range(100), range(4)])  # many ties in the second
        x = [rng.choice(values) for _ in range(rng.randint(1, 11))]
        y = [rng.choice(values) for _ in range(rng.randint(1, 11))]
        for alternative in ("less", "greater"):
            assert mann_whitney_u(x, y, alternative).p == pytest.approx(
                stats.mannwhitneyu(x, y, alternative=alternative).pvalue, abs=1e-12
            )


def test_the_u_test_by_hand():
    # Degraded 10, 30 against originals 20, 40, 50. U of the degraded = pairs where degraded > original:
    # 30 > 20, so U = 1. No ties and small samples: the exact distribution over the C(5, 2) = 10
    # equally likely ways to place the two degraded values among five ranks. U counts, for U = 0..6:
    # 1, 1, 2, 2, 2, 1, 1. One-sided "less": P(U <= 1) = (1 + 1) / 10 = 0.2.
    result = mann_whitney_u([10, 30], [20, 40, 50], "less")
    assert result.statistic == 1 and result.method == "exact"
    assert result.p == pytest.approx(0.2)
    # Four degraded segments all below four originals: P(U = 0) = 1 / C(8, 4) = 1 / 70.
    assert mann_whitney_u([1, 2, 3, 4], [5, 6, 7, 8], "less").p == pytest.approx(1 / 70)
    # With ties, the normal approximation: degraded 1, 2, 2 against 2, 3. Ranks of 1, 2, 2, 2, 3:
    # 1, 3, 3, 3, 5; R1 = 7, U1 = 7 - 6 = 1, U2 = 5. Mean 3; ties (1, 3, 1) give sum(t^3 - t) = 24;
    # variance = 3 * 2 / 12 * (6 - 24 / 20) = 2.4. z = (5 - 3 - 0.5) / sqrt(2.4) = 0.968.
    tied = mann_whitney_u([1, 2, 2], [2, 3], "less")
    assert tied.method == "asymptotic" and tied.statistic == 1
    assert tied.p == pytest.approx(stats.norm.sf(1.5 / 2.4**0.5))


def test_a_sample_that_cannot_be_tested_says_so():
    with pytest.raises(ValueError):
        mann_whitney_u([], [1])
    with pytest.raises(ValueError):
        mann_whitney_u([1], [2], alternative="lower")


def test_fewer_than_four_pairs_can_never_pass():
    assert lowest_p(3, 3) == pytest.approx(1 / 20)  # 0.05 is not below 0.05
    assert lowest_p(4, 4) == pytest.approx(1 / 70)
    assert lowest_p(4, 4, "greater") == pytest.approx(1 / 70)


# --- per rater ---------------------------------------------------------------------------------


def test_each_raters_reliability_hand_worked():
    careful = [CheckedSegment("r1", d, o, det) for d, o, det in
               [(20, 80, True), (35, 75, True), (10, 90, False), (41, 66, True)]]  # fmt: skip
    careless = [CheckedSegment("r2", 80, 80, False) for _ in range(4)]
    unpaired = [CheckedSegment("r3", 50, None, True)]  # never rated the original
    rows = rater_reliability(careful + careless + unpaired, higher_is_better=True)
    by = {row["rater"]: row for row in rows}
    assert [row["rater"] for row in rows] == ["r1", "r2", "r3"]
    assert by["r1"]["pairs"] == 4 and by["r1"]["u"] == 0 and by["r1"]["p"] == pytest.approx(1 / 70)
    assert by["r1"]["passed"] and by["r1"]["reachable"] and by["r1"]["worse_share"] == 1.0
    assert by["r1"]["detected"] == 3 and by["r1"]["detection_rate"] == 0.75
    # Every score tied: the test cannot tell the two apart, p = 1.
    assert by["r2"]["p"] == 1.0 and not by["r2"]["passed"] and by["r2"]["worse_share"] == 0.0
    assert by["r3"]["pairs"] == 0 and by["r3"]["p"] is None and by["r3"]["detection_rate"] == 1.0


def test_mqm_scores_flip_the_direction():
    rows = [CheckedSegment("r", d, o) for d, o in [(5, 0), (6, 1), (5, 0), (10, 0), (5, 1)]]
    (entry,) = rater_reliability(rows, higher_is_better=False)  # a higher MQM score is worse
    assert entry["worse_share"] == 1.0
    assert entry["p"] == pytest.approx(stats.mannwhitneyu([5, 6, 5, 10, 5], [0, 1, 0, 0, 1],
                                                          alternative="greater").pvalue)  # fmt: skip
    assert entry["passed"]


def test_detection_counts_an_overlap_in_the_translation_and_for_a_drop_an_omission():
    replaced = Injected(10, 18, 10, 18, "replace")
    assert detected([MarkedError("target", 15, 25, "", "Minor")], replaced)
    assert not detected([MarkedError("target", 0, 10, "", "Major")], replaced)  # touches, no overlap
    assert not detected([MarkedError("target", 12, 14, "", "Neutral")], replaced)  # not an error
    assert not detected([MarkedError("source", 0, 4, "", "Major")], replaced)
    dropped = Injected(4, 4, 0, 7, "drop")
    assert detected([MarkedError("missing", 0, 0, "", "Major")], dropped)
    assert detected([MarkedError("source", 3, 9, "", "Major")], dropped)
    assert detected([MarkedError("target", 6, 7, "", "Minor")], dropped)
    assert not detected([MarkedError("target", 8, 12, "", "Minor")], dropped)


def test_a_check_is_caught_by_the_protocols_rule():
    assert check_caught("detected", was_detected=True, was_worse=False) is True
    assert check_caught("worse", was_detected=None, was_worse=None) is None  # DA before the original
    assert check_caught("detected_or_worse", was_detected=False, was_worse=True) is True
    assert check_caught("detected_or_worse", was_detected=False, was_worse=None) is False
    assert check_verdict([True, False], 0.5) == (True, 2, 1)
    assert check_verdict([False], 0.5) == (False, 1, 0)
    assert check_verdict([None, None], 0.5) == (None, 0, 0)


# --- the degradations --------------------------------------------------------------------------


def test_phrases_are_words_or_in_text_without_spaces_characters():
    assert units("The cat  sat.") == [(0, 3), (4, 7), (9, 13)]
    assert units("猫が寝ている。") == [(i, i + 1) for i in range(7)]
    assert units("😀 ok") == [(0, 1), (2, 4)]  # code points: the emoji counts one
    assert [phrase_length(n) for n in (1, 2, 5, 6, 8, 9, 15, 16, 20, 21, 40)] == [
        1,
        2,
        2,
        3,
        3,
        4,
        4,
        5,
        5,
        5,
        10,
    ]


def test_a_replaced_phrase_has_as_many_words_and_its_span_is_recorded_in_code_points():
    text = "The 😀 cat sleeps on the old red sofa."
    result = replace(text, ["A dog barked at the moon all night long."], random.Random(3))
    assert result.text[: result.start] == text[: result.start]
    assert result.text[result.start : result.end] == result.inserted
    assert result.text[result.end :] == text[result.start + len(result.removed) :]
    assert len(units(result.inserted)) == len(units(result.removed)) == phrase_length(len(units(text)))
    assert result.inserted in "A dog barked at the moon all night long." and result.donor == 0
    again = replace(text, ["A dog barked at the moon all night long."], random.Random(3))
    assert again == result  # the same seed, the same check


def test_a_dropped_phrase_leaves_no_double_space_and_its_window_covers_the_gap():
    rng = random.Random(0)
    for _ in range(50):
        text = "one two three four five six seven"
        result = drop(text, rng)
        assert "  " not in result.text and result.text == result.text.strip()
        assert result.start == result.end  # nothing inserted: the place the phrase was
        assert len(units(result.removed)) == 3
        assert text.replace(result.removed, "", 1).strip() == result.text or result.text in text
        assert result.window_start <= result.start <= result.window_end
    assert drop("alone", rng) is None  # one word: nothing can go and leave a translation


def test_chinese_text_is_degraded_by_characters():
    result = degrade("我们明天去北京开会。", REPLACE, ["他昨天在上海吃饭了。"], random.Random(1))
    assert result is not None and " " not in result.text
    assert len(result.inserted) == len(result.removed) == 4  # 10 characters: a phrase of 4
    dropped = degrade("我们明天去北京开会。", DROP, [], random.Random(1))
    assert len(dropped.text) == 6


class CountingDonors:
    """A study's donor texts, counting how many are read and how often their number is asked."""

    def __init__(self, texts):
        self.texts, self.read, self.sized = texts, 0, 0

    def __len__(self):
        self.sized += 1
        return len(self.texts)

    def __getitem__(self, i):
        self.read += 1
        return self.texts[i]


def test_a_replacement_reads_the_donors_it_tries_whatever_the_size_of_the_study():
    # 200,000 segments, every one a good donor: the first donor drawn gives the phrase, so the
    # check reads one donor and asks their number once, as in a study of ten segments.
    texts = [f"Segment {n} says something about the weather today." for n in range(200_000)]
    donors = CountingDonors(texts)
    result = replace("The cat sleeps on the old red sofa.", donors, random.Random(5))
    assert result is not None and result.inserted in texts[result.donor]
    assert donors.read == 1 and donors.sized == 1
    small = replace("The cat sleeps on the old red sofa.", CountingDonors(texts[:10]), random.Random(5))
    assert small is not None and len(units(small.inserted)) == len(units(result.inserted))


def test_no_donor_with_a_different_phrase_means_no_replacement():
    assert replace("Same words here.", [], random.Random(0)) is None
    assert replace("Hello", ["Hello"], random.Random(0)) is None


def test_the_statistics_and_the_degradations_import_without_django():
    import subprocess
    import sys
    from pathlib import Path

    check = (
        "import reports.metrics.quality_checks, protocols.translation.degrade, sys; "
        "assert not any(m == 'django' or m.startswith('django.') for m in sys.modules)"
    )
    root = Path(__file__).resolve().parents[2]
    completed = subprocess.run([sys.executable, "-c", check], cwd=root, capture_output=True, text=True)
    assert completed.returncode == 0, completed.stderr
