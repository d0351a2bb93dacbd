"""Thin Celery tasks: take an id, call a service."""

from celery import shared_task

from reports import parts
from reports.services import report_compute, reports_requeue_stale


@shared_task(acks_late=True, reject_on_worker_lost=True)
def report_compute_task(report_id):
    """Compute one report. Acknowledged only when done: a lost worker's job is sent again."""
    report_compute(report_id=report_id)


@shared_task
def reports_requeue_stale_task():
    """Periodic: recover reports whose worker died (see reports_requeue_stale)."""
    return reports_requeue_stale()


@shared_task(acks_late=True, reject_on_worker_lost=True)
def report_part_task(report_id, attempt, number):
    """Compute one part of a report computed in parts (reports/parts.py); safe to run again."""
    parts.part_compute(report_id, attempt, number)


@shared_task(acks_late=True, reject_on_worker_lost=True)
def report_merge_task(report_id, attempt):
    """Merge the parts of a report into its result (reports/parts.py); safe to run again."""
    parts.merge(report_id, attempt)
