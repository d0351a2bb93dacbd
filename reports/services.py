"""Writes on reports: request one, compute one, recover one whose worker died or whose message was lost."""

import logging
from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from falte_site.celery import send_after_commit
from reports import parts
from reports.models import Report
from reports.study_report import study_report_data
from studies import protocols

log = logging.getLogger(__name__)
COMPUTE_TASK = "reports.tasks.report_compute_task"  # reports/tasks.py


class ReportNotSent(Exception):
    """The broker did not take the report's job (answered as HTTP 503)."""

    def __init__(self):
        super().__init__(
            "The report could not be queued: the job queue (Celery broker) is not reachable. "
            "No report was added; try again in a few minutes."
        )


def _send_after_commit(report_id, *, undo=None):
    """Send the report's job once the transaction commits; ReportNotSent (after `undo`) when a
    request's send is refused, a log line when a recovery pass's is (falte_site.celery)."""
    send_after_commit(COMPUTE_TASK, report_id, refused=ReportNotSent, undo=undo)


def _stale_after():
    return timedelta(seconds=settings.REPORT_STALE_SECONDS)


def _stale_cutoff(now=None):
    return (now or timezone.now()) - _stale_after()


def _stale_q(cutoff):
    """Active reports nobody is working on: a running one whose worker went silent, or a
    queued one whose message has had time to be picked up (it may have been lost)."""
    queued_long_ago = Q(sent_at__lt=cutoff) | Q(sent_at__isnull=True, created_at__lt=cutoff)
    return Q(status=Report.Status.RUNNING, heartbeat_at__lt=cutoff) | (
        Q(status=Report.Status.QUEUED) & queued_long_ago
    )


@transaction.atomic
def report_request(*, study, user=None, kind=Report.Kind.AGREEMENT, params=None):
    """Queue a report of `study`; while one is queued or running, return that one.

    An active report nobody is working on (see reports_requeue_stale) is sent
    again. Returns (report, created). Raises ReportNotSent, after the commit,
    when the broker does not take the job; a new report is then deleted, so it
    does not block the next request.
    """
    now = timezone.now()
    active = Report.objects.active().filter(study=study, kind=kind).first()
    if active is not None:
        stale = (
            Report.objects.select_for_update(skip_locked=True)
            .filter(_stale_q(_stale_cutoff(now)), pk=active.pk)
            .first()
        )
        if stale is not None:
            previous = stale.sent_at
            _resend(stale, now)

            def undo():
                Report.objects.filter(pk=stale.pk, sent_at=now).update(sent_at=previous)

            _send_after_commit(stale.pk, undo=undo)
            return stale, False
        return active, False
    try:
        with transaction.atomic():
            report = Report.objects.create(
                study=study, kind=kind, params=params or {}, sent_at=now,
                requested_by=user if user is not None and user.is_authenticated else None,
            )  # fmt: skip
    except IntegrityError:  # another request created it a moment ago
        return Report.objects.active().get(study=study, kind=kind), False
    _send_after_commit(
        report.pk, undo=lambda: Report.objects.filter(pk=report.pk, status=Report.Status.QUEUED).delete()
    )
    return report, True


def _resend(report, now):
    report.status = Report.Status.QUEUED
    report.sent_at = now
    report.save(update_fields=["status", "sent_at"])


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

        specs = parts.split(report.study, protocols.of(report.study))
        if specs is not None:  # computed by several workers; the last part's job sends the merge
            parts.fan_out(report, specs)
    if specs is not None:
        report.refresh_from_db()  # done already when the jobs run in-process (no broker)
        return report

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
    """Send again the jobs of active reports nobody is working on.

    A worker killed mid-job leaves its report RUNNING with an old heartbeat; a
    broker that lost its messages (Redis restarted without persistence, a send
    that never arrived) leaves it QUEUED. Either is put back in the queue once
    REPORT_STALE_SECONDS have passed since the last sign of life or the last
    send (called when a worker starts, by the periodic task, and when a
    researcher looks at the report). A message sent twice does no harm:
    report_compute skips a finished report and one a live worker is on.
    """
    now = now or timezone.now()
    requeued = []
    with transaction.atomic():
        stale = Report.objects.select_for_update(skip_locked=True).filter(_stale_q(_stale_cutoff(now)))
        for report in stale:
            _resend(report, now)
            _send_after_commit(report.pk)
            requeued.append(report.pk)
    return requeued
