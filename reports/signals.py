"""When a Celery worker starts, it picks up reports a dead worker left running."""

from celery.signals import worker_ready

from reports.services import reports_requeue_stale


@worker_ready.connect
def requeue_stale_reports(**kwargs):
    reports_requeue_stale()
