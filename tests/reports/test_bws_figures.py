"""BWS per-system figures beside counting: average rank, and the value score with missing values."""

from collections import defaultdict

import numpy as np
import pytest

from reports.metrics.ratings import Item, Judgment, RatingStudy, rating_report

# One block, two inputs, four systems; every tuple is one input's four outputs
# (the hand-computed BWS case of the rating metrics' tests).
from tests.reports.test_rating_metrics import BWS_ITEMS as ITEMS
from tests.reports.test_rating_metrics import JUDGMENTS


def bws(items, judgments, **options):
    return rating_report(RatingStudy("bws", items, [], judgments, **options))


def test_average_rank_by_hand():
    # Tuples of 4: best 1, worst 4, the two others share ranks 2 and 3: 2.5 each.
    # x T1: dA 1, dB 2.5, dC 2.5, dD 4      y T1: dA 1, dB 2.5, dC 4, dD 2.5
    # x T2: eA 2.5, eB 1, eC 2.5, eD 4      y T2: eA 1, eB 2.5, eC 2.5, eD 4
    # Items: dA 1, dB 2.5, dC 3.25, dD 3.25; eA 1.75, eB 1.75, eC 2.5, eD 4.
    # Systems (mean over their items): A 1.375, B 2.125, C 2.875, D 3.625.
    scores = bws(ITEMS, JUDGMENTS, value_max=3)["system_scores"]
    expected = {"A": 1.375, "B": 2.125, "C": 2.875, "D": 3.625}
    for system, rank in expected.items():
        assert scores[system]["average_rank"] == pytest.approx(rank)
    # The average of the four systems is always the middle rank, (4 + 1) / 2.
    assert sum(scores[s]["average_rank"] for s in "ABCD") / 4 == pytest.approx(2.5)


def test_a_pair_ranks_best_one_and_worst_two():
    items = [Item("dA", "i1", "A", "b1"), Item("dB", "i1", "B", "b1")]
    judgments = [Judgment("x", ("dA", "dB"), best="dB", worst="dA", value=None, block="b1")]
    scores = bws(items, judgments)["system_scores"]
    assert (scores["A"]["average_rank"], scores["B"]["average_rank"]) == (2.0, 1.0)


def test_a_study_without_a_value_scale_has_no_value_score():
    # Values used to default to weight 1 (value = counting); without any value there is no value score.
    judgments = [Judgment(j.annotator, j.documents, j.best, j.worst, None, j.block) for j in JUDGMENTS]
    report = bws(ITEMS, judgments)
    entry = report["system_scores"]["A"]
    assert entry["value"] is None
    assert entry["value_reason"] == "the study asks for no value"
    assert entry["counting"] == pytest.approx(0.75)
    assert report["judgments_without_value"] == 4


def test_with_a_value_scale_judgments_without_values_are_missing_not_full_weight():
    # Only x's T1 judgment has a value (3 of 3: weight 1): dA 1, dD -1, dB dC 0; e-items none.
    judgments = [JUDGMENTS[0]] + [
        Judgment(j.annotator, j.documents, j.best, j.worst, None, j.block) for j in JUDGMENTS[1:]
    ]
    report = bws(ITEMS, judgments, value_max=3)
    values = {s: report["system_scores"][s]["value"] for s in "ABCD"}
    assert values == pytest.approx({"A": 1.0, "B": 0.0, "C": 0.0, "D": -1.0})
    assert report["judgments_without_value"] == 3


def _random_study(seed):
    rng = np.random.default_rng(seed)
    systems = "ABCDE"
    items, judgments = [], []
    for block in range(4):
        documents = [f"b{block}-i{i}-{s}" for i in range(6) for s in systems]
        items += [Item(d, d.rsplit("-", 1)[0], d.rsplit("-", 1)[1], f"b{block}") for d in documents]
        for annotator in range(3):
            for _ in range(12):
                size = int(rng.integers(2, 6))
                shown = [str(d) for d in rng.choice(documents, size=size, replace=False)]
                best, worst = rng.choice(shown, size=2, replace=False)
                value = None if rng.random() < 0.2 else int(rng.integers(1, 4))
                judgments.append(
                    Judgment(f"w{block}{annotator}", tuple(shown), str(best), str(worst), value, f"b{block}")
                )
    return items, judgments


def _average_ranks(codes):
    """Ranks 1..n by code, highest first; tied codes share the mean of their positions."""
    order = sorted(range(len(codes)), key=lambda i: -codes[i])
    positions = {i: position for position, i in enumerate(order, start=1)}
    return [
        np.mean([positions[j] for j in range(len(codes)) if codes[j] == codes[i]]) for i in range(len(codes))
    ]


def _by_hand(items, judgments, value_max):
    """Independent per-system figures: ranks by sorting, counting and value scores per item."""
    latest = {}
    for judgment in judgments:  # the last judgment of an annotator over a tuple counts
        latest[(judgment.annotator, frozenset(judgment.documents))] = judgment
    ranks, picks, valued = defaultdict(list), defaultdict(list), defaultdict(list)
    for judgment in latest.values():
        codes = [2 if d == judgment.best else 0 if d == judgment.worst else 1 for d in judgment.documents]
        for document, code, rank in zip(judgment.documents, codes, _average_ranks(codes), strict=True):
            ranks[document].append(rank)
            picks[document].append(code - 1)
            if judgment.value is not None:
                valued[document].append((code - 1) * judgment.value / value_max)
    system_of = {item.document: item.system for item in items}
    figures = defaultdict(lambda: defaultdict(list))
    for document in ranks:
        system = figures[system_of[document]]
        system["average_rank"].append(np.mean(ranks[document]))
        system["counting"].append(np.mean(picks[document]))
        if valued[document]:
            system["value"].append(np.mean(valued[document]))
    return {s: {k: float(np.mean(v)) for k, v in f.items()} for s, f in figures.items()}


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_per_system_figures_match_an_independent_implementation_on_random_data(seed):
    items, judgments = _random_study(seed)
    scores = bws(items, judgments, value_max=3)["system_scores"]
    expected = _by_hand(items, judgments, 3)
    assert set(scores) == set(expected)
    for system, figures in expected.items():
        for key, value in figures.items():
            assert scores[system][key] == pytest.approx(value, abs=1e-12), (system, key)


def test_systems_are_ranked_by_counting_score_input_by_input():
    """20 inputs, three systems: C always best, A always worst: three clusters, C first, and
    each system's ranking score is its counting score (C 1, B 0, A -1)."""
    items = [Item(f"i{n}-{s}", f"i{n}", s, "b1") for n in range(20) for s in "ABC"]
    judgments = [
        Judgment(annotator, (f"i{n}-A", f"i{n}-B", f"i{n}-C"), best=f"i{n}-C", worst=f"i{n}-A", value=None, block="b1")
        for n in range(20) for annotator in ("x", "y")
    ]  # fmt: skip
    ranking = bws(items, judgments)["ranking"]
    assert [(row["system"], row["cluster"], row["score"], row["items"]) for row in ranking["systems"]] == [
        ("C", 1, 1.0, 20), ("B", 2, 0.0, 20), ("A", 3, -1.0, 20),
    ]  # fmt: skip
    assert all(pair["p"] < 0.01 for pair in ranking["pairs"])
