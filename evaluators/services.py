"""Writes of the evaluators: request a run, run it (the Celery job's body), cancel it, recover it.

What a run does per document is in work.py."""

import logging
from datetime import timedelta
from decimal import Decimal

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from falte_site.celery import send_after_commit

from .checks import settings_problems
from .documents import UnknownDocuments, documents_to_run
from .models import Evaluator, EvaluatorRun
from .modes import study_problem
from .work import RunWork, category_kinds

log = logging.getLogger(__name__)
RUN_TASK = "evaluators.tasks.evaluator_run_task"
THOUSAND = Decimal(1000)


class RunNotSent(Exception):
    """The broker did not take the run's job (HTTP 503 in the API, an error message in admin)."""

    def __init__(self):
        super().__init__(
            "The run could not be queued: the job queue (Celery broker) is not reachable. "
            "No run was added; try again in a few minutes."
        )


class RunRefused(ValueError):
    """The evaluator cannot run as asked; the message says why (HTTP 400, a CommandError, an admin message)."""


# --- Asking for a run ---


def evaluator_check(evaluator):
    """Why `evaluator` cannot run, or None: the study, its kind's settings, the prompt, the detector."""
    study = evaluator.study
    if problem := study_problem(evaluator):
        return problem
    if evaluator.kind == Evaluator.Kind.IMPORT:
        return "an imported evaluator has no run: load its predictions (run_evaluator --predictions FILE)"
    problems = settings_problems(evaluator, category_kinds(study), study=study)
    return "; ".join(message for _, message in problems) or None


@transaction.atomic
def evaluator_run_request(*, evaluator, documents=None, user=None, here=False):
    """Queue a run of `evaluator` over `documents` (external ids; None: every main document).

    While a run of the evaluator is queued or running, that one is returned.
    Returns (run, created). RunRefused when it cannot run; RunNotSent, after the
    commit, when the broker does not take the job (the new run is then deleted).
    With no broker the run's work is done on a thread of its own, never in the
    request; `here` (a command waiting for it) does it in the caller instead.
    """
    problem = evaluator_check(evaluator)
    if problem:
        raise RunRefused(problem)
    try:
        chosen = documents_to_run(evaluator, documents)
    except UnknownDocuments as unknown:
        raise RunRefused(str(unknown)) from None
    active = EvaluatorRun.objects.active().filter(evaluator=evaluator).first()
    if active is not None:
        return active, False
    try:
        with transaction.atomic():
            run = EvaluatorRun.objects.create(
                evaluator=evaluator, documents=list(documents) if documents else None, total=len(chosen),
                sent_at=timezone.now(), requested_by=user if user is not None and user.is_authenticated else None,
            )  # fmt: skip
    except IntegrityError:  # another request created it a moment ago
        return EvaluatorRun.objects.active().get(evaluator=evaluator), False
    _send_after_commit(
        run.pk,
        undo=lambda: EvaluatorRun.objects.filter(pk=run.pk, status="queued").delete(),
        background=not here,
    )
    return run, True


def _send_after_commit(run_id, *, undo=None, background=True):
    send_after_commit(RUN_TASK, run_id, refused=RunNotSent, undo=undo, background=background)


def evaluator_run_cancel(*, run):
    """Stop a run: a queued one at once; a running one after the calls in flight (they are kept)."""
    EvaluatorRun.objects.filter(pk=run.pk, status=EvaluatorRun.Status.QUEUED).update(
        status=EvaluatorRun.Status.CANCELLED, cancel_requested=True, finished_at=timezone.now()
    )
    EvaluatorRun.objects.filter(pk=run.pk, status=EvaluatorRun.Status.RUNNING).update(cancel_requested=True)
    run.refresh_from_db()
    return run


def _stale_cutoff(now):
    return now - timedelta(seconds=settings.EVALUATOR_STALE_SECONDS)


def evaluator_runs_requeue_stale(*, now=None):
    """Send again the jobs of active runs nobody is working on (a killed worker, a lost message).

    The run resumes: documents with a result are not asked again.
    """
    now = now or timezone.now()
    cutoff = _stale_cutoff(now)
    queued_long_ago = Q(sent_at__lt=cutoff) | Q(sent_at__isnull=True, created_at__lt=cutoff)
    stale_q = Q(status=EvaluatorRun.Status.RUNNING, heartbeat_at__lt=cutoff) | (
        Q(status=EvaluatorRun.Status.QUEUED) & queued_long_ago
    )
    requeued = []
    with transaction.atomic():
        for run in EvaluatorRun.objects.select_for_update(skip_locked=True).filter(stale_q):
            run.status, run.sent_at = EvaluatorRun.Status.QUEUED, now
            run.save(update_fields=["status", "sent_at"])
            _send_after_commit(run.pk)
            requeued.append(run.pk)
    return requeued


# --- Running ---


def evaluator_run_execute(*, run_id):
    """Run an evaluator over its documents (the Celery job's body). Safe to run again:
    a redelivered job of a finished run does nothing, a resumed one skips finished documents."""
    with transaction.atomic():
        run = EvaluatorRun.objects.select_for_update().select_related("evaluator__study").get(pk=run_id)
        now = timezone.now()
        if run.status in (
            EvaluatorRun.Status.DONE,
            EvaluatorRun.Status.FAILED,
            EvaluatorRun.Status.CANCELLED,
        ):
            return run
        if (
            run.status == EvaluatorRun.Status.RUNNING
            and run.heartbeat_at
            and run.heartbeat_at > _stale_cutoff(now)
        ):
            return run  # a live worker is on it
        run.status = EvaluatorRun.Status.RUNNING
        run.started_at = run.started_at or now
        run.heartbeat_at = now
        run.attempts += 1
        run.save(update_fields=["status", "started_at", "heartbeat_at", "attempts"])
    try:
        problem = evaluator_check(run.evaluator)
        if problem:
            raise RunRefused(problem)
        work = RunWork(run)
        if run.evaluator.kind == Evaluator.Kind.LLM:
            work.ask_endpoint()
        else:
            work.detect()
    except Exception as error:  # recorded on the run for the researcher, never a silent stop
        log.exception("evaluator run %s failed", run_id)
        EvaluatorRun.objects.filter(pk=run_id).update(
            status=EvaluatorRun.Status.FAILED,
            error=f"{type(error).__name__}: {error}",
            finished_at=timezone.now(),
        )
    else:
        cancelled = EvaluatorRun.objects.filter(pk=run_id, cancel_requested=True).exists()
        EvaluatorRun.objects.filter(pk=run_id).update(
            status=EvaluatorRun.Status.CANCELLED if cancelled else EvaluatorRun.Status.DONE,
            finished_at=timezone.now(), error="",
        )  # fmt: skip
    run.refresh_from_db()
    return run
