"""Hindsight, the bound on what a policy reacting to the draw could save
(reports/metrics/allocation/hindsight.py)."""

import numpy as np
import pytest
from scipy import stats

from reports.metrics.allocation import cluster_sets
from reports.metrics.allocation.hindsight import hindsight_plan
from reports.metrics.ranking import rank_systems

# Five systems on 120 items. "boundaries": each its own cluster in this draw, A far ahead, B and C
# apart by a boundary that clears alpha = 0.05 by little, D and E clearly below; a handful of
# items settles the clear pairs, the close one needs most of its items. "one cluster": evenly
# spaced means in noise four times their spread, no pair significant: the clusters hold on any
# few items, and only Kendall tau asks for more.
MEANS = {
    "boundaries": {"A": 3.0, "B": 1.0, "C": 0.6, "D": 0.0, "E": -1.0},
    "one cluster": {"A": 0.0, "B": 0.25, "C": 0.5, "D": 0.75, "E": 1.0},
}
NOISE = {"boundaries": 1.0, "one cluster": 4.0}
RESAMPLES = 200


def _study(kind):
    rng = np.random.default_rng(0)
    return {
        system: {item: mean + rng.normal(0, NOISE[kind]) for item in range(120)}
        for system, mean in MEANS[kind].items()
    }


@pytest.fixture(scope="module")
def study():
    return _study("boundaries")


def _check_by_hand(study, sizes, *, seed):
    """(tau, same clusters) of each system rated on its first `sizes` items in the seed's order,
    computed here from the study, not by the module."""
    if min(sizes.values()) < 1:
        return float("nan"), False
    items = sorted({item for scores in study.values() for item in scores}, key=str)
    order = [items[row] for row in np.random.default_rng(seed).permutation(len(items))]
    partial = {system: {item: study[system][item] for item in order[: sizes[system]]} for system in study}
    systems = sorted(study)
    tau = stats.kendalltau(
        [np.mean(list(partial[s].values())) for s in systems],
        [np.mean(list(study[s].values())) for s in systems],
    ).statistic
    settings = {"resamples": RESAMPLES, "seed": seed}
    same = cluster_sets(rank_systems(partial, **settings)) == cluster_sets(rank_systems(study, **settings))
    return tau, same


def test_the_study_has_a_boundary_between_the_close_pair(study):
    ranking = rank_systems(study, resamples=RESAMPLES)
    assert [row["cluster"] for row in ranking["systems"]] == [1, 2, 3, 4, 5]
    (pair,) = [row for row in ranking["pairs"] if (row["better"], row["worse"]) == ("B", "C")]
    assert 0.005 < pair["p"] < 0.05


def test_one_study_has_no_boundary():
    ranking = rank_systems(_study("one cluster"), resamples=RESAMPLES)
    assert {row["cluster"] for row in ranking["systems"]} == {1}


@pytest.mark.parametrize("kind", MEANS)
@pytest.mark.parametrize("seed", [0, 1])
def test_the_plan_found_holds_on_the_draw_and_no_single_step_less_does(kind, seed):
    study = _study(kind)
    found = hindsight_plan(study, seed=seed, resamples=RESAMPLES)
    tau, same = _check_by_hand(study, found.sizes, seed=seed)
    assert tau >= 0.95 and same
    assert found.cells == sum(found.sizes.values()) < 0.9 * 5 * 120
    assert found.fraction <= found.oracle_fraction
    # A step of one item (120 / 100 rounds to 1) less for any system loses the full ranking.
    for system in study:
        smaller = dict(found.sizes, **{system: found.sizes[system] - 1})
        tau, same = _check_by_hand(study, smaller, seed=seed)
        assert tau < 0.95 or not same, system


def test_the_boundary_pair_keeps_more_items_than_the_clear_ones(study):
    found = hindsight_plan(study, seed=0, resamples=RESAMPLES)
    assert min(found.sizes["B"], found.sizes["C"]) > max(found.sizes["A"], found.sizes["E"])
