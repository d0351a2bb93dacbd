from celery import shared_task

from .services import export_write


@shared_task(acks_late=True, reject_on_worker_lost=True)
def export_write_task(export_id):
    export_write(export_id=export_id)
