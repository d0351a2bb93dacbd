"""Which pairs a pairwise study shows: all pairs, or a seeded covering subset, balanced left and right."""

from collections import Counter
from itertools import combinations

import pytest

from protocols.pairwise.design import all_pairs, covering_pairs


def outputs_by_input(sizes):
    return {f"i{number}": [f"i{number}-o{k}" for k in range(size)] for number, size in enumerate(sizes)}


def appearances(pairs):
    total = Counter(document for pair in pairs for document in pair)
    left = Counter(left for left, _ in pairs)
    right = Counter(right for _, right in pairs)
    return total, left, right


SIZES = [2, 3, 4, 5, 6, 7, 8, 9, 10]


def test_all_pairs_shows_every_unordered_pair_of_each_input_once():
    outputs = outputs_by_input(SIZES)
    design = all_pairs(outputs, seed=1)
    assert list(design) == list(outputs)
    for input_id, pairs in design.items():
        k = len(outputs[input_id])
        assert len(pairs) == k * (k - 1) // 2
        assert {frozenset(pair) for pair in pairs} == {
            frozenset(pair) for pair in combinations(outputs[input_id], 2)
        }


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_all_pairs_puts_each_output_left_as_often_as_right_give_or_take_one(seed):
    for input_id, pairs in all_pairs(outputs_by_input(SIZES), seed).items():
        total, left, right = appearances(pairs)
        for output in total:
            assert abs(left[output] - right[output]) <= 1, (input_id, output)


@pytest.mark.parametrize("min_pairs", [1, 2, 3, 4, 5])
@pytest.mark.parametrize("seed", [0, 7])
def test_covering_pairs_gives_every_output_at_least_min_pairs_pairs(min_pairs, seed):
    outputs = outputs_by_input(SIZES)
    for input_id, pairs in covering_pairs(outputs, min_pairs, seed).items():
        k = len(outputs[input_id])
        total, left, right = appearances(pairs)
        assert set(total) == set(outputs[input_id])
        assert min(total.values()) >= min(min_pairs, k - 1)
        assert len({frozenset(pair) for pair in pairs}) == len(pairs)  # no pair twice
        assert all(first != second for first, second in pairs)
        for output in total:
            assert abs(left[output] - right[output]) <= 1
        if min_pairs < k - 1:
            # As few pairs as can cover every output min_pairs times.
            assert len(pairs) == -(-k * min_pairs // 2)


def test_covering_pairs_uses_fewer_pairs_than_all_when_it_can():
    # Eight outputs each in at least 3 pairs: 12 pairs instead of 28.
    pairs = covering_pairs(outputs_by_input([8]), 3, seed=0)["i0"]
    assert len(pairs) == 12


def test_covering_pairs_with_min_pairs_of_k_minus_one_or_more_is_all_pairs():
    outputs = outputs_by_input([5, 6])
    for min_pairs in (5, 9):
        for input_id, pairs in covering_pairs(outputs, min_pairs, seed=3).items():
            k = len(outputs[input_id])
            assert len(pairs) == k * (k - 1) // 2
    assert covering_pairs(outputs_by_input([5]), 4, seed=3) == all_pairs(outputs_by_input([5]), seed=3)


def test_the_same_seed_gives_the_same_design_and_another_seed_another():
    outputs = outputs_by_input([6, 6, 6, 6])
    assert covering_pairs(outputs, 2, seed=11) == covering_pairs(outputs, 2, seed=11)
    assert all_pairs(outputs, seed=11) == all_pairs(outputs, seed=11)
    assert covering_pairs(outputs, 2, seed=11) != covering_pairs(outputs, 2, seed=12)
    assert all_pairs(outputs, seed=11) != all_pairs(outputs, seed=12)


def test_an_inputs_design_does_not_depend_on_the_other_inputs_or_the_listing_order():
    outputs = outputs_by_input([6, 5])
    alone = covering_pairs({"i1": outputs["i1"]}, 2, seed=4)
    together = covering_pairs({"i1": list(reversed(outputs["i1"])), "i0": outputs["i0"]}, 2, seed=4)
    assert together["i1"] == alone["i1"]


def test_seeded_designs_vary_which_pairs_are_chosen():
    # Over many inputs with the same outputs, a covering design picks different subsets.
    outputs = {f"i{n}": ["a", "b", "c", "d", "e", "f"] for n in range(20)}
    subsets = {
        frozenset(frozenset(pair) for pair in pairs) for pairs in covering_pairs(outputs, 2, 0).values()
    }
    assert len(subsets) > 5


@pytest.mark.parametrize("outputs", [{"i0": ["a"]}, {"i0": []}, {"i0": ["a", "b"], "i1": ["c"]}])
def test_an_input_with_fewer_than_two_outputs_is_refused(outputs):
    with pytest.raises(ValueError, match="a pair needs two"):
        all_pairs(outputs, seed=0)
    with pytest.raises(ValueError, match="a pair needs two"):
        covering_pairs(outputs, 1, seed=0)


@pytest.mark.parametrize("min_pairs", [0, -1, 1.5, True, None])
def test_min_pairs_below_one_or_not_whole_is_refused(min_pairs):
    with pytest.raises(ValueError, match="min_pairs must be a whole number of at least 1"):
        covering_pairs(outputs_by_input([4]), min_pairs, seed=0)


def test_an_output_listed_twice_is_refused():
    with pytest.raises(ValueError, match="lists the same output twice"):
        all_pairs({"i0": ["a", "b", "a"]}, seed=0)
