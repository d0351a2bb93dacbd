"""Joining a pairwise study: a block of the design's pairs, the same pairs for every worker, own order."""

import random
from collections import Counter

import pytest
from django.urls import reverse

from annotations.models import Assignment
from annotations.services.blocks import hash_seed
from protocols.pairwise.design import all_pairs, covering_pairs
from studies import protocols
from tests.pairwise.bundles import SYSTEMS, import_pairwise, pair_assignment, pairwise_documents, shown_pairs

pytestmark = pytest.mark.django_db


def join(client, study, worker):
    response = client.get(reverse("join", args=[study.join_key]) + f"?PROLIFIC_PID={worker}")
    assert response.status_code == 302
    return Assignment.objects.get(study=study, worker__external_id=worker)


def unordered(assignment):
    """{position: {left, right}}: the pairs whatever their side and order."""
    return {position: frozenset((left, right)) for position, left, right in shown_pairs(assignment)}


def test_joining_gives_a_block_whose_items_are_the_designs_pairs(client, tmp_path):
    study = import_pairwise(tmp_path)
    assignment = join(client, study, "p1")
    assert (
        assignment.document is None and assignment.block in ("b1", "b2") and assignment.order_seed is not None
    )
    outputs = {
        f"{assignment.block}-in{n}": [f"{assignment.block}-in{n}-{s}" for s in SYSTEMS] for n in range(2)
    }
    design = all_pairs(outputs, hash_seed(study.pk, assignment.block))
    expected = [frozenset(pair) for pairs in design.values() for pair in pairs]
    assert unordered(assignment) == dict(enumerate(expected))
    assert len(expected) == 6  # 3 pairs of 3 systems, for each of the block's 2 inputs


def test_every_worker_of_a_block_gets_the_same_pairs_in_an_own_order(client, tmp_path):
    study = import_pairwise(
        tmp_path, documents=pairwise_documents(blocks=("b1",), inputs=3), annotators_per_document=8
    )
    assignments = [join(client, study, f"p{n}") for n in range(8)]
    assert {a.block for a in assignments} == {"b1"}
    first = unordered(assignments[0])
    assert all(unordered(a) == first for a in assignments)
    orders = {tuple(position for position, _, _ in shown_pairs(a)) for a in assignments}
    assert len(orders) > 1  # 9 pairs: eight shuffles are not all the same
    # One coin per worker: a whole block is shown as designed, or mirrored.
    design = {position: (left, right) for position, left, right in shown_pairs(assignments[0])}
    for assignment in assignments:
        same = {(left, right) == design[position] for position, left, right in shown_pairs(assignment)}
        assert len(same) == 1


def test_the_coin_shows_a_block_both_ways_round_across_workers(tmp_path):
    study = import_pairwise(tmp_path)
    protocol = protocols.of(study)
    designed = {
        e["position"]: (e["left"], e["right"]) for e in protocol.block_items(study, "b1", random.Random(0))
    }
    mirrored = Counter()
    for seed in range(40):
        items = protocol.block_items(study, "b1", random.Random(seed))
        flipped = {(e["right"], e["left"]) == designed[e["position"]] for e in items}
        assert len(flipped) == 1
        mirrored[flipped.pop()] += 1
    assert 10 <= mirrored[True] <= 30  # about half of the workers see the other side


def test_within_a_worker_each_output_is_on_the_left_about_as_often_as_on_the_right(tmp_path):
    documents = pairwise_documents(blocks=("b1",), inputs=2, systems=["s1", "s2", "s3", "s4", "s5"])
    study = import_pairwise(tmp_path, documents=documents)
    for worker in ["w1", "w2", "w3"]:
        pairs = shown_pairs(pair_assignment(study, worker))
        left = Counter(left for _, left, _ in pairs)
        right = Counter(right for _, _, right in pairs)
        assert all(abs(left[d] - right[d]) <= 1 for d in set(left) | set(right))


def test_a_covering_design_gives_every_output_min_pairs_pairs_and_no_more_pairs_than_needed(tmp_path):
    systems = ["s1", "s2", "s3", "s4", "s5", "s6"]
    documents = pairwise_documents(blocks=("b1",), inputs=2, systems=systems)
    study = import_pairwise(
        tmp_path, documents=documents, config={"pairs": {"design": "covering", "min_pairs": 3}}
    )
    assignment = pair_assignment(study)
    pairs = shown_pairs(assignment)
    appearances = Counter(document for _, left, right in pairs for document in (left, right))
    assert set(appearances) == {d["id"] for d in documents}
    assert min(appearances.values()) >= 3
    assert len(pairs) == 2 * (6 * 3 // 2)  # per input: k * min_pairs / 2 pairs, 15 would be all
    assert len({frozenset((left, right)) for _, left, right in pairs}) == len(pairs)
    outputs = {f"b1-in{n}": [f"b1-in{n}-{s}" for s in systems] for n in range(2)}
    design = covering_pairs(outputs, 3, hash_seed(study.pk, "b1"))
    assert set(unordered(assignment).values()) == {frozenset(p) for pairs in design.values() for p in pairs}


def test_with_a_seed_the_design_is_the_same_in_another_study_of_the_same_bundle(tmp_path):
    config = {"pairs": {"design": "covering", "min_pairs": 1}, "seed": 42}
    systems = ["s1", "s2", "s3", "s4", "s5"]
    one = import_pairwise(
        tmp_path / "one", slug="one", config=config, documents=pairwise_documents(systems=systems)
    )
    two = import_pairwise(
        tmp_path / "two", slug="two", config=config, documents=pairwise_documents(systems=systems)
    )
    assert one.pk != two.pk
    for block in ["b1", "b2"]:
        assert set(unordered(pair_assignment(one, block=block)).items()) == set(
            unordered(pair_assignment(two, block=block)).items()
        )


def test_inputs_with_one_output_are_in_no_pair(tmp_path):
    documents = pairwise_documents(blocks=("b1",), inputs=1) + [
        {"id": "lonely", "block": "b1", "input_id": "single", "system": "sysA", "segments": ["Alone."]}
    ]
    study = import_pairwise(tmp_path, documents=documents)
    pairs = shown_pairs(pair_assignment(study))
    assert len(pairs) == 3 and "lonely" not in {d for _, left, right in pairs for d in (left, right)}
