"""Writes on assignments and annotations."""

from collections import Counter
from dataclasses import dataclass, field

from django.db import transaction

from accounts.models import Worker
from annotations.models import Assignment
from studies import protocols
from studies.models import Document

from .arms import arm_quota, workers_arms
from .blocks import block_assignment_create, study_blocks

NOT_ASSIGNED = "has no text (no segment with text): not assigned; give it its text in admin"


class AssignmentPlanError(ValueError):
    """The request cannot be met (e.g. more annotators per document than workers)."""


@dataclass
class AssignmentPlan:
    created: list = field(default_factory=list)
    short: dict = field(default_factory=dict)  # document external id -> annotators missing
    empty: list = field(default_factory=list)  # external ids of main documents without text, not assigned


@transaction.atomic
def assignments_generate(*, study, worker_ids, per_document=None, platform=Worker.Platform.LINK):
    """Give every main document (rating studies: every block) of `study` K annotators.

    Existing assignments count towards K, so running it again only fills
    gaps. Work is spread evenly: each document goes to the workers with the
    fewest documents so far, never twice to one worker, and never past the
    study's max_documents_per_worker. A document without text is never
    assigned (Document.objects.with_text); `plan.empty` names those.
    """
    per_document = per_document or study.annotators_per_document
    worker_ids = list(dict.fromkeys(i.strip() for i in worker_ids if i.strip()))
    if per_document < 1:
        raise AssignmentPlanError("annotators per document must be at least 1")
    if per_document > len(worker_ids):
        raise AssignmentPlanError(
            f"{per_document} annotators per document needs at least {per_document} workers; "
            f"{len(worker_ids)} given"
        )
    workers = [Worker.objects.get_or_create(platform=platform, external_id=i)[0] for i in worker_ids]
    blocks = protocols.of(study).works_on == "block"
    main_documents = study.documents.filter(kind=Document.Kind.MAIN)
    empty = list(
        main_documents.without_text().order_by("position", "id").values_list("external_id", flat=True)
    )
    existing = Assignment.objects.filter(study=study, kind=Assignment.Kind.MAIN)
    # Rating studies hand out blocks, the others documents: a "target" is either.
    target_field = "block" if blocks else "document_id"
    if blocks:
        existing = existing.filter(document__isnull=True)
        targets = [(block, block) for block in study_blocks(study)]
    else:
        documents = main_documents.with_text().order_by("position", "id")
        targets = list(documents.values_list("id", "external_id"))
    # Lock the study's assignment rows so two runs at once cannot over-assign.
    taken, arm_of = {}, {}
    for target, worker_id, status, arm in (
        existing.order_by("pk")
        .select_for_update(of=("self",))
        .values_list(target_field, "worker_id", "status", "arm")
    ):
        taken.setdefault(target, []).append((worker_id, status))
        if arm:
            arm_of[worker_id] = arm
    design = None if blocks else protocols.of(study).arm_design(study)
    if design is not None:
        arm_of.update(workers_arms(study, workers, design))
    load = Counter(
        worker_id for pairs in taken.values() for worker_id, status in pairs
        if status != Assignment.Status.RELEASED
    )  # fmt: skip
    limit = study.max_documents_per_worker
    plan = AssignmentPlan(empty=empty)
    for target, label in targets:
        pairs = taken.get(target, [])
        active = sum(1 for _, status in pairs if status != Assignment.Status.RELEASED)
        need = per_document - active
        if need <= 0:
            continue
        had = {worker_id for worker_id, _ in pairs}
        candidates = [
            (load[w.pk], position, w)
            for position, w in enumerate(workers)
            if w.pk not in had and (limit is None or load[w.pk] < limit)
        ]
        if design is not None:
            candidates = _with_arm_places(candidates, pairs, arm_of, design, per_document)
        chosen = [w for _, _, w in sorted(candidates, key=lambda c: c[:2])[:need]]
        for worker in chosen:
            if blocks:
                plan.created.append(block_assignment_create(study=study, worker=worker, block=target))
            else:
                plan.created.append(
                    Assignment.objects.create(
                        study=study, document_id=target, worker=worker, arm=arm_of.get(worker.pk, "")
                    )
                )
            load[worker.pk] += 1
        if len(chosen) < need:
            plan.short[label] = need - len(chosen)
    return plan


def _with_arm_places(candidates, pairs, arm_of, design, per_document):
    """The candidates whose arm still has a place on this document (annotations/services/arms.py)."""
    in_arm = Counter(
        arm_of.get(worker_id) for worker_id, status in pairs if status != Assignment.Status.RELEASED
    )
    room = {}
    for name, _ in design.arms:
        quota = arm_quota(design, name, per_document)
        room[name] = per_document if quota is None else quota - in_arm[name]
    kept = []
    for candidate in sorted(candidates, key=lambda c: c[:2]):
        arm = arm_of.get(candidate[2].pk)
        if room.get(arm, 0) > 0:
            room[arm] -= 1
            kept.append(candidate)
    return kept
