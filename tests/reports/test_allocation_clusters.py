"""The `clusters` policy and the oracle bound (reports/metrics/allocation/clusters.py, oracle.py)."""

import numpy as np
import pytest
from scipy import stats

from reports.metrics.allocation import (
    POLICIES,
    _cells,
    budget_needed,
    buying_order,
    decision_doubt,
    oracle_plans,
    pair_spending,
    pair_sums,
    replay,
)
from reports.metrics.allocation.clusters import t_critical
from reports.metrics.ranking import rank_systems

# A far ahead; B and C apart by about 1.5 standard errors of their paired difference over the 200
# items as drawn, 2.3 in this draw (a boundary that clears alpha = 0.05 by little); D, E clearly below.
TRUE_MEANS = {"A": 3.0, "B": 1.0, "C": 0.85, "D": 0.0, "E": -1.0}


@pytest.fixture(scope="module")
def study():
    rng = np.random.default_rng(7)
    return {
        system: {item: mean + rng.normal(0, 1) for item in range(200)} for system, mean in TRUE_MEANS.items()
    }


@pytest.fixture(scope="module")
def full_ranking(study):
    return rank_systems(study, resamples=200)


def test_the_study_has_a_boundary_between_the_close_pair(full_ranking):
    cluster = {row["system"]: row["cluster"] for row in full_ranking["systems"]}
    assert cluster["B"] != cluster["C"]
    (pair,) = [row for row in full_ranking["pairs"] if (row["better"], row["worse"]) == ("B", "C")]
    assert 0.005 < pair["p"] < 0.05  # significant, not by much


@pytest.mark.parametrize("policy", POLICIES)
def test_every_policy_buys_every_cell_once_and_the_seed_fixes_the_order(study, full_ranking, policy):
    partial = {system: dict(items) for system, items in study.items()}
    del partial["A"][0]  # a cell the study never had is never bought
    systems, _items, scores = _cells(partial)
    order = buying_order(partial, policy=policy, seed=3, full_ranking=full_ranking)
    assert len(order) == len(set(order)) == int((~np.isnan(scores)).sum())
    assert (0, systems.index("A")) not in order
    assert buying_order(partial, policy=policy, seed=3, full_ranking=full_ranking) == order
    assert buying_order(partial, policy=policy, seed=4, full_ranking=full_ranking) != order


def test_the_clusters_policy_spends_on_the_boundary_pair_and_not_on_the_clear_ones(study):
    uniform = pair_spending(study, policy="uniform", fraction=0.5)
    uncertain = pair_spending(study, policy="uncertain", fraction=0.5)
    clusters = pair_spending(study, policy="clusters", fraction=0.5)
    assert clusters[("B", "C")] > uniform[("B", "C")]
    # Its order is clear by now, its significance is not: `uncertain` has stopped spending on it.
    assert clusters[("B", "C")] > uncertain[("B", "C")]
    assert clusters[("A", "E")] < uniform[("A", "E")]


def _grid(differences, *, planned_items):
    """Two systems: b scores 0 on every item, a scores `differences` on the first items; the rest
    of the planned items not yet bought."""
    scores = np.zeros((planned_items, 2))
    scores[: len(differences), 0] = differences
    bought = np.zeros(scores.shape, dtype=bool)
    bought[: len(differences)] = True
    return pair_sums(scores, bought, np.ones(scores.shape, dtype=bool))


def test_a_wide_gap_on_five_items_is_not_yet_significant():
    # Randomisation over five items cannot give p below 1/16: the pair's decision is in doubt.
    doubt, at_end, now = decision_doubt(_grid([3.0, 3.2, 2.9, 3.1, 3.0], planned_items=100))
    assert not now[0, 1] and at_end[0, 1] > 0.99 and doubt[0, 1] > 0.99


def test_a_pair_that_cannot_become_significant_with_what_is_left_is_not_in_doubt():
    rng = np.random.default_rng(0)
    noise = rng.normal(0, 1, 95)
    doubt, at_end, now = decision_doubt(_grid(noise - noise.mean() + 0.01, planned_items=100))
    assert not now[0, 1] and doubt[0, 1] < 0.01


def test_a_pair_with_all_its_items_has_no_doubt_left():
    # 2.2 standard errors apart: significant by the plan, though short of the policy's margin
    # for "significant now" on fewer items; with every planned item there is nothing to buy.
    noise = np.random.default_rng(0).normal(0, 1, 100)
    differences = (noise - noise.mean()) / noise.std(ddof=1) + 0.22
    doubt, at_end, now = decision_doubt(_grid(differences, planned_items=100))
    assert at_end[0, 1] == 1.0 and not now[0, 1]
    assert doubt[0, 1] == 0.0


def test_a_pair_with_all_its_items_rated_once_of_two_planned_keeps_its_decision_in_doubt():
    # The same pair, each cell scored by one of its two planned ratings: the second ones may still
    # take it under the threshold.
    noise = np.random.default_rng(0).normal(0, 1, 100)
    differences = (noise - noise.mean()) / noise.std(ddof=1) + 0.22
    scores = np.column_stack([differences, np.zeros(100)])
    every = np.ones(scores.shape, dtype=bool)
    doubt, at_end, now = decision_doubt(pair_sums(scores, every, every, done=np.full(scores.shape, 0.5)))
    assert not now[0, 1] and 0.5 < at_end[0, 1] < 1.0
    assert doubt[0, 1] == at_end[0, 1]


def test_the_oracle_plans_grow_one_step_at_a_time_and_favour_the_boundary(study, full_ranking):
    systems, _items, scores = _cells(study)
    plans = oracle_plans(scores, full_ranking, systems)
    assert plans[0].sum() == 0 and plans[-1].sum() == scores.size
    assert all((later >= earlier).all() for earlier, later in zip(plans, plans[1:], strict=False))
    half = next(plan for plan in plans if plan.sum() >= scores.size / 2)
    b, c, a = (systems.index(name) for name in "BCA")
    assert min(half[b], half[c]) > half[a]


def test_the_oracle_needs_no_more_than_the_policies_in_the_same_run(study):
    # The oracle fixes each system's number of items in advance; a policy reacting to the draws
    # can beat it by a little (on HANNA, docs/adaptive-allocation.md), so this holds on average
    # over seeds, on a study where the sizes matter more than the luck of the draws.
    needed = {}
    for policy in POLICIES:
        runs = [replay(study, policy=policy, seed=seed, test_resamples=200) for seed in range(3)]
        reached = [budget_needed(run) for run in runs]
        assert None not in reached
        needed[policy] = sum(reached) / len(reached)
    assert needed["oracle"] <= min(needed[policy] for policy in POLICIES if policy != "oracle")


def test_the_critical_values_read_from_the_table_are_scipys_to_the_bit():
    degrees = np.array([[1.0, 2.0, 5.0], [29.0, 528.0, 3000.0]])  # 3000: past the first table, which grows
    for alpha in (0.05, 0.01):
        assert np.array_equal(t_critical(alpha, degrees), stats.t.isf(alpha / 2, degrees))
    halves = np.array([1.5, 40.25])  # not counts of items: computed, not read
    assert np.array_equal(t_critical(0.05, halves), stats.t.isf(0.025, halves))
