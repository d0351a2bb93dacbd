"""Writes on reports: request one, compute one, recover one whose worker died."""

import logging
from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from reports.models import Report
from reports.study_report import study_report_data

log = logging.getLogger(__name__)


def _enqueue(report_id):
    from reports.tasks import report_compute_task

    # After commit, so the worker always finds the row it is sent.
    transaction.on_commit(lambda: report_compute_task.delay(report_id))


@transaction.atomic
def report_request(*, study, user=None, kind=Report.Kind.AGREEMENT, params=None):
    """Queue a report of `study`; while one is queued or running, return that one.

    Returns (report, created).
    """
    active = Report.objects.active().filter(study=study, kind=kind).first()
    if active is not None:
        return active, False
    try:
        with transaction.atomic():
            report = Report.objects.create(
                study=study, kind=kind, params=params or {},
                requested_by=user if user is not None and user.is_authenticated else None,
            )  # fmt: skip
    except IntegrityError:  # another request created it a moment ago
        return Report.objects.active().get(study=study, kind=kind), False
    _enqueue(report.pk)
    return report, True


def _stale_after():
    return timedelta(seconds=settings.REPORT_STALE_SECONDS)


def report_compute(*, report_id):
    """Compute a report (the Celery job's body). Safe to run again on redelivery."""
    with transaction.atomic():
        report = Report.objects.select_for_update().select_related("study").get(pk=report_id)
        now = timezone.now()
        if report.status in (Report.Status.DONE, Report.Status.FAILED):
            return report  # a redelivered message of a finished job
        if (
            report.status == Report.Status.RUNNING
            and report.heartbeat_at
            and now - report.heartbeat_at < _stale_after()
        ):
            return report  # another worker is on it and alive
        report.status = Report.Status.RUNNING
        report.started_at = report.heartbeat_at = now
        report.attempts += 1
        report.progress = 0
        report.save(update_fields=["status", "started_at", "heartbeat_at", "attempts", "progress"])

    def progress(fraction):
        Report.objects.filter(pk=report_id, status=Report.Status.RUNNING).update(
            progress=max(0.0, min(1.0, fraction)), heartbeat_at=timezone.now()
        )

    try:
        result = study_report_data(report.study, progress=progress)
    except Exception as error:  # recorded for the researcher, not swallowed silently
        log.exception("report %s failed", report_id)
        Report.objects.filter(pk=report_id).update(
            status=Report.Status.FAILED, error=f"{type(error).__name__}: {error}", finished_at=timezone.now()
        )
    else:
        Report.objects.filter(pk=report_id).update(
            status=Report.Status.DONE, result=result, progress=1.0, error="", finished_at=timezone.now()
        )
    report.refresh_from_db()
    return report


def reports_requeue_stale(*, now=None):
    """Send again the jobs of running reports whose worker stopped giving signs of life.

    A worker killed mid-job leaves its report RUNNING with an old heartbeat;
    this puts it back in the queue (called when a worker starts, by the
    periodic task, and when a researcher looks at the report).
    """
    cutoff = (now or timezone.now()) - _stale_after()
    requeued = []
    with transaction.atomic():
        stale = Report.objects.select_for_update(skip_locked=True).filter(
            status=Report.Status.RUNNING, heartbeat_at__lt=cutoff
        )
        for report in stale:
            report.status = Report.Status.QUEUED
            report.save(update_fields=["status"])
            _enqueue(report.pk)
            requeued.append(report.pk)
    return requeued
