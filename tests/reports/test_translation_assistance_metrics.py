"""ESA-AI against a control arm (reports/metrics/translation_assistance.py), worked by hand."""

import subprocess
import sys
from pathlib import Path

import pytest

from reports.metrics.translation import MarkedError, RatedSegment
from reports.metrics.translation_assistance import Outcome, Suggested, assistance_comparison, confirmed

ROOT = Path(__file__).resolve().parents[2]


def error(start, end, severity="Major", side="target"):
    return MarkedError(side, start, end, "", severity)


def row(rater, *errors, system="A", document="d", segment=0, score=None):
    return RatedSegment(system, document, segment, rater, score, tuple(errors))


SUGGESTED = [
    Suggested(1, ("A", "d", 0), error(0, 10)),
    Suggested(2, ("A", "d", 1), error(0, 4, "Minor")),
    Suggested(3, ("B", "d", 0), error(0, 0, side="missing")),
]


def test_a_suggestion_is_confirmed_by_half_the_control_raters_marking_half_of_it():
    control = [
        row("c1", error(0, 5)), row("c2", error(6, 8)),  # c1 marks half of suggestion 1, c2 a fifth
        row("c1", segment=1), row("c2", segment=1),  # nobody marks suggestion 2
    ]  # fmt: skip
    # Suggestion 1: one of two raters, which is half; suggestion 3's document has no control rater.
    assert confirmed(SUGGESTED, control) == {1: True, 2: False}
    assert confirmed(SUGGESTED, control[1:]) == {1: False, 2: False}


def test_kept_rates_overlap_and_differences_hand_worked():
    outcomes = [Outcome(1, "s1", True), Outcome(2, "s1", False), Outcome(3, "s2", True)]
    arms = {
        "suggestions": [row("s1", error(0, 10), score=40), row("s1", segment=1, score=80),
                        row("s2", error(0, 0, side="missing"), system="B", score=20)],
        "control": [row("c1", error(0, 5), score=60), row("c1", segment=1, score=100),
                    row("c2", system="B", score=70)],
    }  # fmt: skip
    result = assistance_comparison(arms, SUGGESTED, outcomes, severities=("Minor", "Major"), resamples=200)
    kept = result["kept"]
    assert (kept["shown"], kept["kept"]) == (3, 2)
    assert kept["severities"] == {"Major": {"shown": 2, "kept": 2, "rate": 1.0},
                                  "Minor": {"shown": 1, "kept": 0, "rate": 0.0}}  # fmt: skip
    # Suggestion 1 confirmed (c1 marks half of it), 2 not; 3's document B: c2 marks nothing, so not.
    assert kept["confirmed"] == {"shown": 1, "kept": 1, "rate": 1.0}
    assert kept["unconfirmed"] == {"shown": 2, "kept": 1, "rate": 0.5} and kept["unknown"] == 0
    # Suggested characters 10 + 4 + 1 per arm; the suggestion arm marks 10 + 1, the control 5.
    assert result["overlap"]["suggestions"]["suggested_marked"] == pytest.approx(11 / 15)
    assert result["overlap"]["control"]["suggested_marked"] == pytest.approx(5 / 15)
    assert result["overlap"]["control"]["marked_suggested"] == 1.0
    difference = result["differences"]["suggested_marked"]
    assert difference["value"] == pytest.approx(6 / 15) and difference["documents"] == 2
    low, high = difference["interval"]
    assert low <= difference["value"] <= high
    # Mean scores pooled over both documents: (40 + 80 + 20) / 3 - (60 + 100 + 70) / 3.
    assert result["differences"]["mean_score"]["value"] == pytest.approx(140 / 3 - 230 / 3)
    assert result["arms"]["suggestions"]["errors_per_segment"] == {
        "Minor": 0.0,
        "Major": pytest.approx(2 / 3),
    }
    # Both arms rank A above B: the same order, tau 1.
    assert result["rankings"]["tau"] == 1.0 and result["rankings"]["pairwise_accuracy"] == 1.0


def test_the_bootstrap_is_seeded():
    documents = range(12)
    arms = {"suggestions": [row("s", error(0, 1 + n % 4), document=f"d{n}", score=n) for n in documents],
            "control": [row("c", error(0, 1 + (n * 7) % 5), document=f"d{n}", score=50) for n in documents]}  # fmt: skip
    suggested = [Suggested(n, ("A", f"d{n}", 0), error(0, 2 + n % 3)) for n in documents]
    first = assistance_comparison(arms, suggested, [], resamples=300, seed=4)["differences"]
    again = assistance_comparison(arms, suggested, [], resamples=300, seed=4)["differences"]
    other = assistance_comparison(arms, suggested, [], resamples=300, seed=5)["differences"]
    assert first == again and first["suggested_marked"]["interval"] != other["suggested_marked"]["interval"]


def test_no_control_arm_leaves_the_differences_undefined_with_a_reason():
    result = assistance_comparison(
        {"suggestions": [row("s", error(0, 4))]}, SUGGESTED[:1], [Outcome(1, "s", True)]
    )
    assert result["differences"]["suggested_marked"] == {
        "value": None, "documents": 0, "value_reason": "no document was rated in both arms",
    }  # fmt: skip
    assert result["kept"]["unknown"] == 1 and result["kept"]["confirmed"]["rate"] is None
    assert result["rankings"]["tau"] is None


def test_module_imports_without_django():
    check = (
        "import reports.metrics.translation_assistance, sys; "
        "assert not any(m == 'django' or m.startswith('django.') for m in sys.modules)"
    )
    completed = subprocess.run([sys.executable, "-c", check], cwd=ROOT, capture_output=True, text=True)
    assert completed.returncode == 0, completed.stderr
