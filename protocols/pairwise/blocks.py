"""What a pairwise study's worker judges in a block: pairs of outputs of the same input.

The block's pairs come from design.py (all pairs, or a covering design) and
are the same for every worker of the block, so choices can be compared; the
design puts each output on the left as often as on the right (give or take
one). Per worker, the order of the pairs is shuffled, and the sides of the
whole block are mirrored or not by one coin: a worker's position bias (a
habit of preferring A, say) then falls on every system alike, as the design
intends, while across workers each pair is shown both ways round about
equally often, so one side's bias is not shared by every annotator of a
pair and does not pass for agreement.

The design is seeded per block: by hash_seed(study, block), or, when the
study sets `seed`, by that seed and the block, and it names outputs by
their external ids, so a study imported again from its bundle with a `seed`
gets the same pairs.
"""

from annotations.services.blocks import hash_seed

from .config import min_pairs
from .design import all_pairs, covering_pairs


def design_seed(study, block):
    seed = study.config.get("seed")
    return hash_seed(study.pk, block) if seed is None else hash_seed("pairwise", seed, block)


def block_outputs(study, block):
    """{input id: [external ids]} of the block's outputs, and {external id: (pk, system)}.

    Inputs in bundle order; an input with fewer than two outputs is in no pair
    (a document without an input id is an input of its own).
    """
    by_input, known = {}, {}
    documents = study.documents.filter(block=block).order_by("position", "id")
    for pk, external_id, input_id, system in documents.values_list("id", "external_id", "input_id", "system"):
        by_input.setdefault(input_id or external_id, []).append(external_id)
        known[external_id] = (pk, system)
    return {input_id: ids for input_id, ids in by_input.items() if len(ids) >= 2}, known


def block_pairs(study, block):
    """The block's pairs as (left pk, right pk), in the design's order (a pair's index is its position)."""
    by_input, known = block_outputs(study, block)
    seed = design_seed(study, block)
    needed = min_pairs(study)
    design = all_pairs(by_input, seed) if needed is None else covering_pairs(by_input, needed, seed)
    pairs = []
    for input_pairs in design.values():
        for left, right in input_pairs:
            # Two outputs of one system compare no systems (the bundle check refuses them;
            # documents edited in admin later could still bring them).
            if known[left][1] != known[right][1]:
                pairs.append((known[left][0], known[right][0]))
    return pairs


def pairwise_items(study, block, rng):
    """This worker's pairs, as [{"position", "left", "right"}] (document pks), in their own order."""
    mirrored = rng.random() < 0.5
    items = [
        {"position": position, "left": right if mirrored else left, "right": left if mirrored else right}
        for position, (left, right) in enumerate(block_pairs(study, block))
    ]
    rng.shuffle(items)
    return items
