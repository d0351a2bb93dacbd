"""Block designs of rating studies: which items a worker sees, in which order.

A block is a set of documents annotated together by the same workers (e.g.
5 inputs x 4 systems). Likert workers rate every item of their block; BWS
workers judge the block's tuples. The block's tuples are the same for every
worker (so judgments can be compared); the order of tuples and of the items
inside them is shuffled per worker, with the seed kept on the assignment.
"""

import hashlib
import random
import secrets
from collections import Counter, defaultdict
from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from annotations.models import Assignment
from studies.models import Study

DEFAULT_TUPLE_SIZE = 4
DEFAULT_APPEARANCES = 2  # every item in at least this many generated tuples


def block_documents(study, block):
    return list(study.documents.filter(block=block).order_by("position", "id").values_list("id", "input_id"))


def study_blocks(study):
    """Block labels in bundle order."""
    labels = study.documents.exclude(block="").order_by("position", "id").values_list("block", flat=True)
    return list(dict.fromkeys(labels))


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


def hash_seed(*parts):
    # A stable seed from text (Python's hash() changes between processes).
    return int.from_bytes(hashlib.sha256(":".join(map(str, parts)).encode()).digest()[:8], "big")


def worker_items(study, block, seed):
    """This worker's order: Likert, the block's document ids; BWS, its tuples
    as {"position", "documents"} with tuples and items shuffled."""
    rng = random.Random(seed)
    if study.protocol == Study.Protocol.BWS:
        tuples = [{"position": p, "documents": list(ids)} for p, ids in enumerate(block_tuples(study, block))]
        for entry in tuples:
            rng.shuffle(entry["documents"])
        rng.shuffle(tuples)
        return tuples
    documents = [document_id for document_id, _ in block_documents(study, block)]
    rng.shuffle(documents)
    return documents


def block_assignment_create(*, study, worker, block, kind=Assignment.Kind.MAIN, joined=False,
                            platform_ids=None, available_from=None):  # fmt: skip
    seed = secrets.randbits(48)
    return Assignment.objects.create(
        study=study, document=None, block=block, worker=worker, kind=kind, joined=joined,
        platform_ids=platform_ids or {}, available_from=available_from, order_seed=seed,
        items=worker_items(study, block, seed),
    )  # fmt: skip


def next_block(study, worker):
    """The block with the fewest active annotators below K that the worker never had."""
    assignments = Assignment.objects.filter(study=study, kind=Assignment.Kind.MAIN, document__isnull=True)
    had = set(assignments.filter(worker=worker).values_list("block", flat=True))
    active = Counter(assignments.exclude(status=Assignment.Status.RELEASED).values_list("block", flat=True))
    free = [b for b in study_blocks(study) if b not in had and active[b] < study.annotators_per_document]
    return min(free, key=lambda b: active[b]) if free else None


@transaction.atomic
def retest_schedule(*, assignment):
    """After a main block is submitted, its retest for the same worker N days later."""
    days = assignment.study.config.get("retest_after_days")
    if days is None or assignment.kind != Assignment.Kind.MAIN or assignment.document_id is not None:
        return None
    existing = Assignment.objects.filter(study=assignment.study, worker=assignment.worker, block=assignment.block,
                                         kind=Assignment.Kind.RETEST, document__isnull=True).first()  # fmt: skip
    if existing is not None:
        return existing
    return block_assignment_create(
        study=assignment.study, worker=assignment.worker, block=assignment.block, kind=Assignment.Kind.RETEST,
        available_from=(assignment.submitted_at or timezone.now()) + timedelta(days=days),
    )  # fmt: skip
