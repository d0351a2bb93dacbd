"""Replaying a finished study's ratings under an allocation policy (reports/metrics/allocation.py)."""

import numpy as np
import pytest
from scipy import stats

from reports.metrics.allocation import (
    Checkpoint,
    RunningSums,
    _cells,
    budget_needed,
    buying_order,
    cluster_doubt_from_sums,
    doubt_from_sums,
    next_pair,
    order_doubt,
    pair_spending,
    pair_sums,
    replay,
    replay_run,
    summarise,
    summary_of,
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
    uniform = pair_spending(study, policy="uniform", fraction=0.3)
    uncertain = pair_spending(study, policy="uncertain", fraction=0.3)
    assert uniform[("A", "B")] == uniform[("E", "F")] == 90
    # A third of the budget: the two close pairs got several times the shared items of the clearly
    # separated E-F, which got no more than its warm-up and the first rounds.
    assert uncertain[("C", "D")] > 3 * uncertain[("E", "F")]
    assert uncertain[("A", "B")] > 3 * uncertain[("E", "F")]
    assert uncertain[("C", "D")] > uniform[("C", "D")]


def test_a_pair_rated_on_all_its_planned_items_is_settled_whatever_its_gap():
    scores = np.array([[1.0, 1.0], [2.0, 2.1], [3.0, 2.9], [0.0, 0.1]])
    planned = np.ones(scores.shape, dtype=bool)
    bought = planned.copy()
    bought[3] = False
    assert order_doubt(scores, bought, planned)[0, 1] > 0.2  # three items: the order is open
    assert order_doubt(scores, planned, planned)[0, 1] == 0.0  # all four: it is the plan's order
    assert next_pair(scores, planned, planned, np.random.default_rng(0)) is None


def test_the_doubt_is_the_normal_tail_of_the_paired_gap_with_the_finite_population_correction():
    # Hand-worked: differences a - b over 4 of 8 planned shared items are 1, 2, 3, 2:
    # mean 2, sample variance 2/3, standard error sqrt(2/3 / 4 * (1 - 4/8)) = sqrt(1/12).
    a = np.array([3.0, 4.0, 5.0, 4.0, 0, 0, 0, 0])
    b = np.array([2.0, 2.0, 2.0, 2.0, 0, 0, 0, 0])
    scores = np.column_stack([a, b])
    planned = np.ones(scores.shape, dtype=bool)
    bought = np.zeros(scores.shape, dtype=bool)
    bought[:4] = True
    doubt = order_doubt(scores, bought, planned)
    assert doubt[0, 1] == doubt[1, 0] == pytest.approx(stats.norm.cdf(-2 / np.sqrt(1 / 12)))


def test_a_pair_with_every_item_rated_once_of_the_three_planned_keeps_its_doubt():
    # The same four items as above, all scored, each cell by one of its three planned ratings: the
    # plan's part done on an item is 1/3 x 1/3, so the correction is 1 - (4/9) / 4, not 1 - 4/4.
    a, b = np.array([3.0, 4.0, 5.0, 4.0]), np.array([2.0, 2.0, 2.0, 2.0])
    scores = np.column_stack([a, b])
    every = np.ones(scores.shape, dtype=bool)
    once = pair_sums(scores, every, every, done=np.full(scores.shape, 1 / 3))
    spread = 2 / 3 / 4 * (1 - 1 / 9)
    assert doubt_from_sums(once)[0, 1] == pytest.approx(stats.norm.cdf(-2 / np.sqrt(spread)))
    assert doubt_from_sums(pair_sums(scores, every, every, done=np.ones(scores.shape)))[0, 1] == 0.0
    # Sums stored before shares were kept count every cell as whole.
    stored = {key: value for key, value in once.items() if key not in ("shared_done", "count_done")}
    assert doubt_from_sums(stored)[0, 1] == 0.0


def test_systems_without_shared_items_are_compared_by_their_own_means():
    # a on items 0-3, b on items 4-7 (planned 6 each): means 2 and 1, variances 2/3 and 0 (floored).
    scores = np.array([[1.0, np.nan], [2, np.nan], [3, np.nan], [2, np.nan], [np.nan, 1], [np.nan, 1],
                       [np.nan, 1], [np.nan, 1], [9, np.nan], [9, np.nan], [np.nan, 9], [np.nan, 9]])  # fmt: skip
    planned = ~np.isnan(scores)
    bought = planned.copy()
    bought[8:] = False
    spread = 2 / 3 / 4 * (1 - 4 / 6)
    assert order_doubt(scores, bought, planned)[0, 1] == pytest.approx(stats.norm.cdf(-1 / np.sqrt(spread)))


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


def test_a_summary_read_from_a_finer_replay_is_the_summary_at_its_own_fractions(study):
    # bench/allocation.py --hindsight replays once at 1 % steps for both its table and the stop
    # where a policy first holds; the table must be what a replay at the table's fractions gives.
    fractions = (0.1, 0.3, 0.7, 1.0)
    fine = [replay_run(study, policy="uncertain", seed=seed, fractions=tuple(p / 100 for p in range(5, 101, 5)),
                   test_resamples=100) for seed in (0, 1)]  # fmt: skip
    direct = summarise(study, policy="uncertain", seeds=2, fractions=fractions, test_resamples=100)
    assert summary_of("uncertain", fine, fractions) == direct
    assert direct.fractions == fractions and len(direct.needed) == 2


def test_a_policy_settles_where_no_pair_is_left_in_doubt_and_its_ranking_is_checked_there():
    rng = np.random.default_rng(5)
    apart = {system: {item: mean + rng.normal(0, 1) for item in range(200)} for system, mean in
             {"A": 0.0, "B": 1.0, "C": 2.0, "D": 3.0}.items()}  # fmt: skip
    run = replay_run(apart, policy="clusters", seed=2, fractions=(1.0,), test_resamples=200)
    _systems, _items, scores = _cells(apart)
    order = buying_order(apart, policy="clusters", seed=2)
    bought = np.zeros(scores.shape, dtype=bool)
    for row, column in order[: order.settled]:
        bought[row, column] = True
    # Settled: no pair's order or significance in doubt above 0.01, long before every cell is bought.
    sums = pair_sums(scores, bought, ~np.isnan(scores))
    assert cluster_doubt_from_sums(sums).max() <= 0.01
    assert run.stop.cells == order.settled < 0.5 * len(order)
    assert (run.stop.tau, run.stop.same_clusters) == (pytest.approx(1.0), True)
    summary = summarise(apart, policy="clusters", seeds=3, fractions=(1.0,), test_resamples=200)
    assert summary.stops_right == 3 and summary.mean_stop < 0.5
    # A looser threshold settles sooner; uniform never settles by itself.
    loose = replay_run(apart, policy="clusters", seed=2, fractions=(1.0,), test_resamples=None, settled=0.2)
    assert loose.stop.cells < run.stop.cells
    assert replay_run(apart, policy="uniform", fractions=(1.0,), test_resamples=None).stop is None
    assert (
        summarise(apart, policy="uniform", seeds=2, fractions=(1.0,), test_resamples=None).mean_stop is None
    )


def test_running_sums_are_the_pair_sums_of_the_cells_bought(study):
    # A policy asks for the pair sums after every pair it buys; they are kept cell by cell.
    _systems, _items, scores = _cells(study)
    scores[3, 2] = np.nan  # a cell the study never had
    planned = ~np.isnan(scores)
    running = RunningSums(scores, planned)
    rng = np.random.default_rng(4)
    cells = [tuple(cell) for cell in np.argwhere(planned)]
    for place in rng.permutation(len(cells))[:900]:
        running.add(*cells[place])
    expected = pair_sums(scores, running.bought, planned)
    for key, value in expected.items():
        assert np.allclose(running.sums[key], value, rtol=1e-12, atol=1e-9), key
    assert np.array_equal(running.sums["shared"], expected["shared"])
    assert running.bought.sum() == 900


def test_an_unknown_policy_is_named(study):
    with pytest.raises(ValueError, match="uniform, uncertain"):
        replay(study, policy="greedy")
