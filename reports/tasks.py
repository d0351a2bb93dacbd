"""Thin Celery tasks: take an id, call a service."""

from celery import shared_task

from reports.services import report_compute, reports_requeue_stale


@shared_task(acks_late=True, reject_on_worker_lost=True)
def report_compute_task(report_id):
    """Compute one report. Acknowledged only when done: a lost worker's job is sent again."""
    report_compute(report_id=report_id)


@shared_task
def reports_requeue_stale_task():
    """Periodic: recover reports whose worker died (see reports_requeue_stale)."""
    return reports_requeue_stale()
