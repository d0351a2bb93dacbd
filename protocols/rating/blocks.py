"""What a rating study's worker judges in a block: each output (Likert) or tuples (BWS).

The block's tuples are the same for every worker (so judgments can be
compared); the order of tuples and of the items inside them is shuffled per
worker by the rng the core seeds (annotations/services/blocks.py).
"""

import random
from collections import defaultdict

from annotations.services.blocks import block_documents, hash_seed

DEFAULT_TUPLE_SIZE = 4
DEFAULT_APPEARANCES = 2  # every item in at least this many generated tuples


def generated_tuples(document_ids, size, appearances, seed):
    """Balanced tuples: each round shuffles the items and cuts them into tuples of
    `size`, so every item appears once per round; the last tuple of a round is
    filled with items from the round's start. Rounds repeat until every item
    appears `appearances` times. Deterministic for a seed."""
    rng = random.Random(seed)
    items = list(document_ids)
    if len(items) <= size:
        return [items]
    tuples = []
    for _ in range(appearances):
        order = items[:]
        rng.shuffle(order)
        for begin in range(0, len(order), size):
            chunk = order[begin : begin + size]
            filler = [item for item in order if item not in chunk]
            tuples.append(chunk + filler[: size - len(chunk)])
    return tuples


def block_tuples(study, block):
    """The block's BWS tuples (document ids). All outputs of one input make a tuple
    when the study says so (`bws.tuples: by_input`), else generated ones."""
    bws = study.config.get("bws", {})
    size = bws.get("tuple_size", study.config.get("tuple_size", DEFAULT_TUPLE_SIZE))
    documents = block_documents(study, block)
    if bws.get("tuples") == "by_input":
        by_input = defaultdict(list)
        for document_id, input_id in documents:
            by_input[input_id].append(document_id)
        return [ids for ids in by_input.values() if len(ids) >= 2]
    seed = hash_seed(study.pk, block)
    return generated_tuples(
        [d for d, _ in documents], size, bws.get("appearances", DEFAULT_APPEARANCES), seed
    )


def likert_items(study, block, rng):
    """The block's document ids in this worker's order."""
    documents = [document_id for document_id, _ in block_documents(study, block)]
    rng.shuffle(documents)
    return documents


def bws_items(study, block, rng):
    """The block's tuples as {"position", "documents"}, tuples and their items shuffled."""
    tuples = [{"position": p, "documents": list(ids)} for p, ids in enumerate(block_tuples(study, block))]
    for entry in tuples:
        rng.shuffle(entry["documents"])
    rng.shuffle(tuples)
    return tuples
