"""Block studies: which block a worker gets, and their own order of its items.

A block is a set of documents annotated together by the same workers (e.g.
5 inputs x 4 systems). What a worker judges in a block (each output, tuples,
pairs) is the protocol's (Protocol.block_items); the order is shuffled per
worker, with the seed kept on the assignment.
"""

import hashlib
import random
import secrets
from collections import Counter
from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from annotations.models import Assignment
from studies import protocols


def block_documents(study, block):
    """The block's documents that have text (a worker is never shown an empty one)."""
    documents = study.documents.filter(block=block).with_text().order_by("position", "id")
    return list(documents.values_list("id", "input_id"))


def study_blocks(study):
    """Labels of the blocks with a document of text, in bundle order."""
    documents = study.documents.exclude(block="").with_text().order_by("position", "id")
    return list(dict.fromkeys(documents.values_list("block", flat=True)))


def hash_seed(*parts):
    # A stable seed from text (Python's hash() changes between processes).
    return int.from_bytes(hashlib.sha256(":".join(map(str, parts)).encode()).digest()[:8], "big")


def worker_items(study, block, seed):
    """This worker's items of the block, in their own order (the protocol says what an item is)."""
    return protocols.of(study).block_items(study, block, random.Random(seed))


def block_assignment_create(*, study, worker, block, kind=Assignment.Kind.MAIN, joined=False,
                            platform_ids=None, available_from=None):  # fmt: skip
    seed = secrets.randbits(48)
    return Assignment.objects.create(
        study=study, document=None, block=block, worker=worker, kind=kind, joined=joined,
        platform_ids=platform_ids or {}, available_from=available_from, order_seed=seed,
        items=worker_items(study, block, seed),
    )  # fmt: skip


def free_blocks(study, worker, blocks=None):
    """(free, active, ratings): the blocks below K active annotators that the worker never had, in
    bundle order; each block's active annotators (open or submitted); the submitted main blocks.
    `blocks`: the study's blocks in bundle order when the caller has read them (study_blocks)."""
    assignments = Assignment.objects.filter(study=study, kind=Assignment.Kind.MAIN, document__isnull=True)
    had = set(assignments.filter(worker=worker).values_list("block", flat=True))
    held = assignments.exclude(status=Assignment.Status.RELEASED)
    active, ratings = Counter(), 0
    for block, status in held.values_list("block", "status"):
        active[block] += 1
        ratings += status == Assignment.Status.SUBMITTED
    blocks = study_blocks(study) if blocks is None else blocks
    free = [b for b in blocks if b not in had and active[b] < study.annotators_per_document]
    return free, active, ratings


def fill_order(free, active):
    """The uniform order: the free block with the fewest active annotators, the first in bundle order."""
    return min(free, key=lambda b: active[b]) if free else None


# No savepoint: only the submit calls it, inside its transaction, and a failure fails the submit.
@transaction.atomic(savepoint=False)
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
