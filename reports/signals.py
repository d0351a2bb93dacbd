"""When a Celery worker starts, it picks up reports a dead worker left running."""

from celery.signals import worker_ready


@worker_ready.connect
def requeue_stale_reports(**kwargs):
    from reports.services import reports_requeue_stale

    reports_requeue_stale()
