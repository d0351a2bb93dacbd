"""Replaying a finished study's ratings under an allocation policy (reports/metrics/allocation.py)."""

import numpy as np
import pytest

from reports.metrics.allocation import (
    Checkpoint,
    _cells,
    budget_needed,
    pair_spending,
    replay,
    uncertain_order,
    uniform_order,
)

TRUE_MEANS = {"A": 0.0, "B": 0.05, "C": 1.0, "D": 1.05, "E": 2.0, "F": 3.0}  # two close pairs, A-B and C-D


@pytest.fixture(scope="module")
def study():
    rng = np.random.default_rng(1)
    return {
        system: {item: mean + rng.normal(0, 1) for item in range(300)} for system, mean in TRUE_MEANS.items()
    }


@pytest.mark.parametrize("make_order", [uniform_order, uncertain_order])
def test_a_policy_buys_every_cell_of_the_finished_study_once(study, make_order):
    _systems, _items, scores = _cells(study)
    scores[0, 0] = np.nan  # a cell the study never had is never bought
    order = make_order(scores, np.random.default_rng(3))
    assert len(order) == len(set(order)) == int((~np.isnan(scores)).sum())
    assert (0, 0) not in order
    assert make_order(scores, np.random.default_rng(3)) == order  # seeded


def test_uniform_rates_each_item_for_every_system_at_once(study):
    _systems, _items, scores = _cells(study)
    order = uniform_order(scores, np.random.default_rng(0))
    rows = [row for row, _column in order]
    for start in range(0, len(rows), 6):
        assert len(set(rows[start : start + 6])) == 1


def test_the_uncertain_policy_spends_on_the_close_pairs(study):
    uniform = pair_spending(study, policy="uniform", fraction=0.5)
    uncertain = pair_spending(study, policy="uncertain", fraction=0.5)
    assert uniform[("A", "B")] == uniform[("E", "F")] == 150
    # Half the budget: the two close pairs got far more shared items than the clearly separated E-F.
    assert uncertain[("C", "D")] > 2 * uniform[("C", "D")] - 10
    assert uncertain[("A", "B")] > 5 * uncertain[("E", "F")]


def test_with_every_cell_both_policies_give_the_full_ranking(study):
    for policy in ("uniform", "uncertain"):
        (last,) = replay(study, policy=policy, fractions=(1.0,), test_resamples=200)
        assert (last.cells, last.tau, last.same_clusters) == (1800, pytest.approx(1.0), True)


def test_one_swapped_pair_of_six_systems_is_a_tau_of_13_over_15(study):
    # Hand-worked: tau-b with no ties is (concordant - discordant) / 15 pairs.
    checkpoints = replay(study, policy="uniform", seed=0, fractions=(0.2,), test_resamples=None)
    assert checkpoints[0].tau == pytest.approx(13 / 15) and checkpoints[0].same_clusters is None


def test_the_budget_needed_is_where_the_ranking_settles_for_good():
    points = [Checkpoint(0.1, 1, 0.99, True), Checkpoint(0.2, 2, 0.90, True), Checkpoint(0.3, 3, 0.97, True),
              Checkpoint(0.4, 4, 1.0, True)]  # fmt: skip
    assert budget_needed(points) == 0.3
    assert budget_needed([*points[:3], Checkpoint(0.4, 4, 1.0, False)]) is None


def test_an_unknown_policy_is_named(study):
    with pytest.raises(ValueError, match="uniform, uncertain"):
        replay(study, policy="greedy")
