"""Adaptive allocation of a block study (Likert, BWS, pairwise; config.allocation policy
`uncertain`, docs/adaptive-allocation.md): a joining worker gets, among the blocks they may take,
the block whose outputs cover the pairs of systems most in doubt.

The doubt is DA's and ESA's (annotations/services/allocation.py: order_doubt over the grid of
inputs by systems), a cell being one output's score so far (Protocol.allocation_scores: its mean
Likert rating, its best-minus-worst score, its share of pairwise wins). A block *covers* a pair
of systems when it holds an output of each for the same input: rating the block compares the two
on that input, as order_doubt compares them (paired), and a pairwise block's pairs are made per
input. Failing such a block, in a Likert study, one that holds one system of the pair on an input
whose other output is in a block under way (BWS and pairwise scores are relative to the outputs
judged together, Protocol.allocation_judged_together, so they compare only within a block).
Blocks that cover the same pairs tie and the fill order decides, so a study whose blocks all hold
every system is allocated as uniform (studies/allocation.steers_nothing warns of it).

Runs under the study's row lock (the join's), as the DA/ESA choice does.
"""

from dataclasses import dataclass
from itertools import combinations

from annotations.services.allocation import cell_item, doubtful_pairs, pair_doubt
from studies import protocols
from studies.allocation import allocation_settings, steers_nothing
from studies.models import Document


@dataclass(frozen=True)
class BlockLayout:
    """What the `uncertain` choice reads of a block study's documents, in one query."""

    blocks: list  # every block with a document of text, in bundle order (as blocks.study_blocks)
    by_block: dict  # {block: {item: {system column}}}: the main outputs each block holds, by input
    block_of: dict  # {(item, system column): block}
    systems: list  # the study's systems, sorted (the allocation grid's columns)


def block_layout(study):
    """The study's BlockLayout. One query, which also serves blocks.free_blocks."""
    documents = list(
        study.documents.exclude(block="")
        .with_text()
        .order_by("position", "id")
        .values_list("id", "block", "input_id", "system", "kind")
    )
    main = [row[:4] for row in documents if row[4] == Document.Kind.MAIN]
    systems = sorted({system for _pk, _block, _item, system in main})
    column = {system: n for n, system in enumerate(systems)}
    by_block, block_of = {}, {}
    for pk, block, item, system in main:
        by_block.setdefault(block, {}).setdefault(cell_item(pk, item), set()).add(column[system])
        block_of[(cell_item(pk, item), column[system])] = block
    blocks = list(dict.fromkeys(block for _pk, block, *_rest in documents))
    return BlockLayout(blocks, by_block, block_of, systems)


def covered_pairs(outputs):
    """The pairs of system columns (a < b) a block compares: both on one of its inputs."""
    return {pair for on_item in outputs.values() for pair in combinations(sorted(on_item), 2)}


def choose_block(study, layout, free, active, ratings):
    """The block of `free` (the blocks this worker may take, in bundle order) that the `uncertain`
    policy gives next, or None to keep the fill order (no pair's doubt is above `settled`, or no
    block this worker may take has an output of a doubtful pair).

    For the pair most in doubt that a free block can help: the blocks that compare the two on an
    input, or else (Likert: a score is the output's own, not relative to the block's others) the
    blocks that hold one of the two on an input whose other output is in a block under way (rated
    or held: together they compare the pair, as DA pairs a cell with its partner). Among those,
    the block covering the most doubt (summed over the doubtful pairs it compares), then the
    fill order: the fewest active annotators (`active`, open or submitted),
    the first in bundle order. A block under way is not preferred, unlike a DA document: a close
    pair learns more from a new input than from another worker on the same one, and blocks that
    tie on doubt are then taken exactly as uniform takes them. `ratings` counts the submitted
    main blocks (allocation.pair_doubt trusts the stored pair sums only after as many).
    """
    by_block, block_of, systems = layout.by_block, layout.block_of, layout.systems
    together = protocols.of(study).allocation_judged_together
    doubtful = doubtful_pairs(pair_doubt(study, systems, ratings), allocation_settings(study).settled)
    covered = {block: covered_pairs(by_block.get(block, {})) for block in free}
    place = {block: n for n, block in enumerate(free)}

    def pairs_across(block, a, b):
        return any(
            mine in on_item and other not in on_item and active[block_of.get((item, other))]
            for item, on_item in by_block.get(block, {}).items()
            for mine, other in ((a, b), (b, a))
        )

    def preference(block):
        doubt = sum(value for a, b, value in doubtful if (a, b) in covered[block])
        return (-doubt, active[block], place[block])

    for a, b, _doubt in doubtful:
        candidates = [block for block in free if (a, b) in covered[block]]
        if not candidates and not together:
            candidates = [block for block in free if pairs_across(block, a, b)]
        if candidates:
            return min(candidates, key=preference)
    return None


def study_steers_nothing(study):
    """steers_nothing of the study's blocks: a warning when its adaptive policy has nothing to steer."""
    systems_by_block = {}
    documents = study.documents.filter(kind=Document.Kind.MAIN).exclude(block="").with_text()
    for block, system in documents.values_list("block", "system"):
        systems_by_block.setdefault(block, set()).add(system)
    return steers_nothing(systems_by_block, allocation_settings(study).policy)
