"""Adaptive allocation of a block study (Likert, BWS, pairwise; config.allocation policy
`uncertain`, docs/adaptive-allocation.md): a joining worker gets, among the blocks they may take,
the block whose outputs cover the pairs of systems most in doubt.

The doubt is DA's and ESA's (annotations/services/allocation.py: order_doubt over the grid of
inputs by systems), a cell being one output's score so far (Protocol.allocation_scores: its mean
Likert rating, its best-minus-worst score, its share of pairwise wins). A block *covers* a pair
of systems when it holds an output of each for the same input: rating the block compares the two
on that input, as order_doubt compares them (paired), and a pairwise block's pairs are made per
input. Blocks that cover the same pairs tie, and the fill order decides, so a study whose blocks
all hold every system is allocated as uniform (studies/allocation.steers_nothing warns of it).

Runs under the study's row lock (the join's), as the DA/ESA choice does.
"""

from itertools import combinations

from annotations.services.allocation import cell_item, doubtful_pairs, pair_doubt
from studies.allocation import allocation_settings, steers_nothing
from studies.models import Document


def block_coverage(study):
    """({block: {(a, b)}}, systems): the pairs of system columns (a < b, columns of the sorted
    systems, as in the allocation grid) each block covers, and the study's systems. One query."""
    documents = study.documents.filter(kind=Document.Kind.MAIN).with_text()
    systems_on = {}  # block -> item -> systems
    systems = set()
    for pk, block, item, system in documents.values_list("id", "block", "input_id", "system"):
        systems.add(system)
        systems_on.setdefault(block, {}).setdefault(cell_item(pk, item), set()).add(system)
    systems = sorted(systems)
    column = {system: n for n, system in enumerate(systems)}
    covered = {
        block: {
            pair
            for on_item in by_item.values()
            for pair in combinations(sorted(column[system] for system in on_item), 2)
        }
        for block, by_item in systems_on.items()
    }
    return covered, systems


def choose_block(study, free, active, ratings):
    """The block of `free` (the blocks this worker may take, in bundle order) that the `uncertain`
    policy gives next, or None to keep the fill order (no pair's doubt is above `settled`, or no
    block this worker may take covers a doubtful pair).

    The pair most in doubt that a free block covers gives the candidates; among them, the block
    covering the most doubt (summed over the doubtful pairs it covers), then the fill order: the
    fewest active annotators (`active`, open or submitted), the first in bundle order. A block
    already under way is not preferred, unlike a DA document: a close pair learns more from a
    new input than from another worker on the same one, and blocks that tie on doubt are then
    taken exactly as uniform takes them. `ratings` counts the submitted main blocks
    (allocation.pair_doubt trusts the stored pair sums only when they were made after as many).
    """
    covered, systems = block_coverage(study)
    doubtful = doubtful_pairs(pair_doubt(study, systems, ratings), allocation_settings(study).settled)
    place = {block: n for n, block in enumerate(free)}

    def preference(block):
        doubt = sum(value for a, b, value in doubtful if (a, b) in covered.get(block, ()))
        return (-doubt, active[block], place[block])

    for a, b, _doubt in doubtful:
        candidates = [block for block in free if (a, b) in covered.get(block, ())]
        if candidates:
            return min(candidates, key=preference)
    return None


def study_steers_nothing(study):
    """steers_nothing of the study's blocks: a warning when `uncertain` has nothing to steer."""
    systems_by_block = {}
    documents = study.documents.filter(kind=Document.Kind.MAIN).exclude(block="").with_text()
    for block, system in documents.values_list("block", "system"):
        systems_by_block.setdefault(block, set()).add(system)
    return steers_nothing(systems_by_block)
