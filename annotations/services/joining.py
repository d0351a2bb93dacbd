"""Crowd workers arriving through a study's join link get the next document.

Joins of one study are serialised by locking the study row, so two workers
arriving at once can never both take a document's last place.
"""

import secrets
from collections import Counter
from datetime import timedelta

from django.db import transaction
from django.utils import timezone

from accounts.models import Worker
from annotations.models import OPEN_STATUSES, AllocationRecord, Assignment
from annotations.services.allocation import cell_item, choose_document
from annotations.services.arms import arm_quota, worker_arm
from annotations.services.block_allocation import block_layout, choose_block
from annotations.services.blocks import block_assignment_create, fill_order, free_blocks
from annotations.services.pools import join_refusal, worker_locked
from annotations.services.stopping import budget_refusal
from qualification.models import Qualification
from qualification.services import worker_is_qualified
from studies import protocols
from studies.allocation import allocation_settings
from studies.models import Document, Study

DEFAULT_RELEASE_AFTER_MINUTES = 60
# The crowd platform's id of one working session: it comes back with the worker
# but, unlike the worker id, is known to no one else (readers never see it).
SESSION_PROOF_KEYS = ("SESSION_ID", "assignmentId")


class JoinRefused(Exception):
    """No document for this worker: the study is closed, full, or they reached the limit."""

    def __init__(self, reason, message):
        self.reason = reason
        super().__init__(message)


def release_after(study):
    minutes = study.config.get("release_after_minutes", DEFAULT_RELEASE_AFTER_MINUTES)
    return timedelta(minutes=minutes)


def assignments_release_stale(*, study, now=None):
    """Release joined assignments idle for longer than the study allows.

    Their saved annotations stay; the document becomes free for someone else.
    Assignments handed out by a researcher (task links) and qualification
    documents are never released.
    """
    cutoff = (now or timezone.now()) - release_after(study)
    # Not a qualification round's documents: every candidate gets each of them, so releasing one
    # frees nothing and would leave the candidate's one task unfinishable.
    idle = Assignment.objects.filter(study=study, joined=True, status__in=OPEN_STATUSES).exclude(
        kind=Assignment.Kind.QUALIFICATION
    )
    return idle.filter(last_activity_at__lt=cutoff).update(status=Assignment.Status.RELEASED) + idle.filter(
        last_activity_at__isnull=True, created_at__lt=cutoff
    ).update(status=Assignment.Status.RELEASED)


def may_resume(assignment, platform_ids, resume_tokens):
    """May this arrival take back the open assignment? A worker id alone is no proof:
    whoever learns a PROLIFIC_PID could open that worker's task and change their work.
    The browser that was given the task may, and so may an arrival with the same
    crowd platform session (Prolific's SESSION_ID, Mechanical Turk's assignmentId)."""
    if assignment.token in resume_tokens:
        return True
    given, stored = platform_ids or {}, assignment.platform_ids or {}
    return any(key in stored and given.get(key) == stored[key] for key in SESSION_PROOF_KEYS)


@transaction.atomic
def assignment_join(*, study, platform, external_id=None, platform_ids=None, resume_tokens=()):
    """Find or create the worker and return their assignment in `study`.

    A worker who already holds an open assignment gets it back (see may_resume;
    `resume_tokens` are the task tokens this browser was given); otherwise the
    next main document that still needs annotators and that they never had.
    New main work also obeys the study's worker rules (pools.join_refusal).
    """
    study = Study.objects.select_for_update().get(pk=study.pk)
    if study.status != Study.Status.OPEN:
        raise JoinRefused("closed", _closed_message(study))
    worker, _ = Worker.objects.get_or_create(
        platform=platform, external_id=external_id or f"anon-{secrets.token_hex(8)}"
    )
    # The study lock serialises joins of this study; the worker's lock serialises this worker's
    # joins of different studies, which a pool limit counts together. Taken after the study's, always.
    worker = worker_locked(worker)
    if not worker_is_qualified(study=study, worker=worker):
        raise JoinRefused(
            "unqualified",
            "This study is open to workers who passed its qualification task. "
            "Thank you for your interest; you have not been approved for it (yet).",
        )
    if protocols.of(study).works_on == "block":
        return _join_block(study, worker, platform_ids, resume_tokens)
    round_ = Qualification.objects.filter(study=study).exists()
    kind = Assignment.Kind.QUALIFICATION if round_ else Assignment.Kind.MAIN
    mine = Assignment.objects.filter(study=study, worker=worker, kind=kind)
    current = mine.filter(status__in=OPEN_STATUSES).order_by("created_at").first()
    if current is not None:
        if round_ and set(resume_tokens) & set(mine.values_list("token", flat=True)):
            # A round is one task: the browser given its first document may come back to the next.
            resume_tokens = {*resume_tokens, current.token}
        return _resumed(current, platform_ids, resume_tokens)
    if kind == Assignment.Kind.MAIN:
        _refuse_by_worker_rules(study, worker)
        if (refusal := budget_refusal(study)) is not None:
            raise JoinRefused("full", refusal)
    assignments_release_stale(study=study)
    had = set(mine.values_list("document_id", flat=True))
    arm = ""
    if round_:
        document_id = _next_qualification_document(study, had)
    else:
        taken = mine.exclude(status=Assignment.Status.RELEASED).count()
        if study.max_documents_per_worker is not None and taken >= study.max_documents_per_worker:
            raise JoinRefused(
                "limit", "You have done as many documents of this study as it allows. Thank you!"
            )
        document_id, arm = _attention_document(study, mine, had), ""
        design = protocols.of(study).arm_design(study)
        if design is not None:
            held, drawn = worker_arm(study, worker, design)
            arm = held or drawn
            if document_id is None:
                document_id, arm = _next_main_document_in_arm(study, had, design, held, drawn)
        elif document_id is None:
            document_id = _next_main_document(study, had)
    return Assignment.objects.create(
        study=study, document_id=document_id, worker=worker, kind=kind, joined=True,
        platform_ids=platform_ids or {}, arm=arm,
    )  # fmt: skip


def _closed_message(study):
    record = AllocationRecord.objects.filter(study=study).exclude(stopped_rule="").first()
    if record is not None:
        return "This study has finished: it has the ratings it needed. Thank you for your interest!"
    return "This study is not open at the moment."


def _resumed(current, platform_ids, resume_tokens):
    if not may_resume(current, platform_ids, resume_tokens):
        raise JoinRefused(
            "resume",
            "You already have a task in this study, started in another browser or session. "
            "Go back to it there, or ask the researcher for your task link.",
        )
    return current


def _refuse_by_worker_rules(study, worker):
    """New main work only: a worker coming back to an open assignment keeps it."""
    refusal = join_refusal(study, worker)
    if refusal is not None:
        raise JoinRefused(*refusal)


def _join_block(study, worker, platform_ids, resume_tokens):
    """Rating studies hand out whole blocks: K workers per block, at most M blocks a worker; the
    block with the fewest annotators first, or, allocating adaptively, the block covering the
    pairs of systems most in doubt (block_allocation.choose_block)."""
    mine = Assignment.objects.filter(
        study=study, worker=worker, kind=Assignment.Kind.MAIN, document__isnull=True
    )
    current = mine.filter(status__in=OPEN_STATUSES).order_by("created_at").first()
    if current is not None:
        return _resumed(current, platform_ids, resume_tokens)
    _refuse_by_worker_rules(study, worker)
    if (refusal := budget_refusal(study)) is not None:
        raise JoinRefused("full", refusal)
    assignments_release_stale(study=study)
    taken = mine.exclude(status=Assignment.Status.RELEASED).count()
    if study.max_documents_per_worker is not None and taken >= study.max_documents_per_worker:
        raise JoinRefused("limit", "You have done as many blocks of this study as it allows. Thank you!")
    layout = block_layout(study) if allocation_settings(study).adaptive else None
    free, active, ratings = free_blocks(study, worker, layout and layout.blocks)
    if not free:
        raise JoinRefused("full", "There is no block left for you in this study. Thank you!")
    block = (layout and choose_block(study, layout, free, active, ratings)) or fill_order(free, active)
    return block_assignment_create(
        study=study, worker=worker, block=block, joined=True, platform_ids=platform_ids
    )


def _next_main_document_in_arm(study, had, design, held, drawn):
    """(document, arm): a worker keeps the arm they hold; a new one takes the arm drawn for them,
    or another arm when the drawn one has no free place left (the study's last places)."""
    arms = [held] if held else [drawn, *(name for name, _ in design.arms if name != drawn)]
    for arm in arms[:-1]:
        try:
            return _next_main_document(study, had, design, arm), arm
        except JoinRefused:
            continue
    return _next_main_document(study, had, design, arms[-1]), arms[-1]


def _next_main_document(study, had, design=None, arm=""):
    """The main document that most needs an annotator; with arms, one with a place left in `arm`."""
    holders = (
        Assignment.objects.filter(study=study, kind=Assignment.Kind.MAIN, document__kind=Document.Kind.MAIN)
        .exclude(status=Assignment.Status.RELEASED)
        .values_list("document_id", "arm", "status")
    )
    active, in_arm, ratings = Counter(), Counter(), 0
    for document_id, held_arm, status in holders:
        active[document_id] += 1
        in_arm[document_id] += held_arm == arm
        ratings += status == Assignment.Status.SUBMITTED
    quota = arm_quota(design, arm, study.annotators_per_document) if design is not None else None
    candidates = study.documents.filter(kind=Document.Kind.MAIN).with_text().order_by("position", "id")
    layout = {
        pk: (cell_item(pk, item), system)
        for pk, item, system in candidates.values_list("id", "input_id", "system")
    }
    free = [
        document_id
        for document_id in layout
        if document_id not in had
        and active[document_id] < study.annotators_per_document
        and (quota is None or in_arm[document_id] < quota)
    ]
    if not free:
        raise JoinRefused("full", "There is no document left for you in this study. Thank you!")
    if (
        allocation_settings(study).adaptive
        and (chosen := choose_document(study, free, active, layout, ratings)) is not None
    ):
        return chosen
    # Fill the documents with the fewest annotators first, in bundle order.
    return min(free, key=lambda pk: active[pk])


def _next_qualification_document(study, had):
    """A qualification round gives every candidate each qualification document, in order:
    the first at join, each next one when they submit the one before (services.rounds)."""
    for document_id in (
        study.documents.filter(kind=Document.Kind.QUALIFICATION)
        .with_text()
        .order_by("position", "id")
        .values_list("id", flat=True)
    ):
        if document_id not in had:
            return document_id
    raise JoinRefused("done", "You have done every document of this qualification task. Thank you!")


def _attention_document(study, mine, had):
    """Every `attention_every` main documents, an attention check the worker has not had. A check
    that is a changed copy of a main document (Document.COPY_OF) goes only to a worker who has
    submitted the original, so their two judgments can be compared."""
    every = study.config.get("attention_every")
    if not every:
        return None
    done = mine.filter(status=Assignment.Status.SUBMITTED)
    main_done = done.filter(document__kind=Document.Kind.MAIN).count()
    checks_had = done.filter(document__kind=Document.Kind.ATTENTION).count()
    if main_done < every * (checks_had + 1):
        return None
    checks = (
        study.documents.filter(kind=Document.Kind.ATTENTION)
        .with_text()
        .exclude(id__in=had)
        .order_by("position", "id")
    )
    originals_done = None
    for document_id, original in checks.values_list("id", f"meta__{Document.COPY_OF}"):
        if original is None:
            return document_id
        if originals_done is None:
            originals_done = set(
                done.filter(document__kind=Document.Kind.MAIN).values_list("document__external_id", flat=True)
            )
        if original in originals_done:
            return document_id
    return None
