"""Randomised arms (e.g. model suggestions versus control): which arm a joining worker is in,
and how many of a document's annotators each arm may have.

A worker stays in one arm for the whole study, so nobody sees both conditions.
Arms are drawn in permuted blocks: the n-th worker to get an arm takes place
n % B of block n // B, a seeded shuffle of B places split by the arms' shares
(B the smallest size that splits exactly, e.g. 2 for 50/50, 10 for 30/70).
So arms stay balanced in every run of B arrivals, and the same seed and the
same order of arrivals give the same arms. Per document, each arm gets its
share of the K annotators (at least one each when K >= 2), so a comparison of
arms is never a comparison of different documents. When the arm drawn for a new
worker has no free place left but another arm has (the study's last places,
after releases), the worker takes the other arm: the per-document balance wins.
"""

import math
import random
from fractions import Fraction

from annotations.models import Assignment

MAX_BLOCK = 100


def block_size(design):
    """The smallest block in which every arm's share is a whole number of places."""
    denominators = [Fraction(share).limit_denominator(MAX_BLOCK).denominator for _, share in design.arms]
    size = 1
    for denominator in denominators:
        size = size * denominator // math.gcd(size, denominator)
    return min(size, MAX_BLOCK)


def arm_block(design, number):
    """Block `number` of the arm sequence: the arms' places, shuffled by the study's seed."""
    size = block_size(design)
    places = []
    for name, share in design.arms:
        places += [name] * round(share * size)
    places = (places + [design.arms[-1][0]] * size)[:size]  # rounding: fill with the last arm
    random.Random(f"{design.seed}:{number}").shuffle(places)
    return places


def worker_arm(study, worker, design):
    """(the arm the worker holds in `study` or "", the arm the sequence draws for a new worker).

    Call it with the study row locked (joins are serialised on it), so two
    arrivals never take the same place.
    """
    held = (
        Assignment.objects.filter(study=study, worker=worker)
        .exclude(arm="")
        .values_list("arm", flat=True)
        .first()
    )
    if held:
        return held, held
    drawn = Assignment.objects.filter(study=study).exclude(arm="").values("worker_id").distinct().count()
    size = block_size(design)
    return "", arm_block(design, drawn // size)[drawn % size]


def workers_arms(study, workers, design):
    """{worker id: arm} for workers planned by hand: the arm each holds, the next places of the
    sequence (in the order given) for the others. The study's assignment rows must be locked."""
    held = dict(
        Assignment.objects.filter(study=study, worker__in=workers)
        .exclude(arm="")
        .values_list("worker_id", "arm")
    )
    drawn = Assignment.objects.filter(study=study).exclude(arm="").values("worker_id").distinct().count()
    size = block_size(design)
    arms = {}
    for worker in workers:
        if worker.pk in held:
            arms[worker.pk] = held[worker.pk]
        else:
            arms[worker.pk] = arm_block(design, drawn // size)[drawn % size]
            drawn += 1
    return arms


def arm_quota(design, arm, per_document):
    """How many of a document's `per_document` annotators `arm` may have (None: no limit of its own)."""
    if per_document < len(design.arms):
        return None  # too few places to split: only the document's total counts
    shares = dict(design.arms)
    quotas = {name: max(1, round(share * per_document)) for name, share in design.arms}
    # Rounding may give one place too many: take it from the largest arm, keeping at least 1 each.
    while sum(quotas.values()) > per_document:
        largest = max(quotas, key=lambda name: (quotas[name], shares[name]))
        quotas[largest] -= 1
    while sum(quotas.values()) < per_document:
        largest = max(shares, key=lambda name: shares[name])
        quotas[largest] += 1
    return quotas[arm]
