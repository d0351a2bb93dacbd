"""Thin Celery tasks: take an id, call a service."""

from celery import shared_task
from celery.signals import worker_ready

from evaluators.services import evaluator_run_execute, evaluator_runs_requeue_stale


@shared_task(acks_late=True, reject_on_worker_lost=True)
def evaluator_run_task(run_id):
    """Run an evaluator. Acknowledged only when done: a killed worker's run is sent again and resumes."""
    evaluator_run_execute(run_id=run_id)


@shared_task
def evaluator_runs_requeue_stale_task():
    """Periodic: recover runs whose worker died or whose message was lost."""
    return evaluator_runs_requeue_stale()


@worker_ready.connect
def requeue_stale_runs(**kwargs):
    evaluator_runs_requeue_stale()
