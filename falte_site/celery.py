"""The Celery app. Tasks live in each app's tasks.py and are found automatically."""

import logging
import os
import threading

from celery import Celery
from django.conf import settings
from django.db import connections, transaction
from kombu.exceptions import OperationalError as BrokerError

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "falte_site.settings")

app = Celery("falte_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
if app.conf.task_always_eager and not app.conf.broker_url:
    # No broker (the embedded default): jobs run in this process and nothing is sent, yet
    # apply_async still takes a producer from Celery's pool. Without a transport of its own it
    # would look for a broker on localhost (kombu's "No hostname was supplied" warning).
    app.conf.broker_url = "memory://localhost/"
log = logging.getLogger(__name__)


def task(name):
    """The registered task called `name` (e.g. "reports.tasks.report_compute_task").

    Services send jobs through this lookup by name, the way Celery addresses
    tasks, so a service module need not import the tasks module that imports it.
    """
    return app.tasks[name]


# Three tries: a refused connection gives up within about a second, an unreachable
# host after three broker_connection_timeout waits; then the request is refused.
SEND_RETRY_POLICY = {"max_retries": 2, "interval_start": 0, "interval_step": 0.2, "interval_max": 0.2}


def send_after_commit(name, row_id, *, refused, undo=None, background=False):
    """Hand job `name` for the row `row_id` to the broker once the transaction commits, so a worker
    finds the row.

    When the broker is not reachable: with `undo` (a request's own writes), `undo`
    runs and `refused()` (an exception) is raised to the requester; without it
    (a recovery pass), the failure is only logged and the next pass sends again.

    With no broker (the embedded default) jobs run in this process. `background`
    (a web request asking for a long job) runs it on a thread of its own, so the
    request answers at once and never does the job's work (EAGER_JOBS_IN_BACKGROUND).
    """
    if background and app.conf.task_always_eager and settings.EAGER_JOBS_IN_BACKGROUND:
        transaction.on_commit(lambda: _start_thread(name, row_id))
        return

    def send():
        try:
            task(name).apply_async((row_id,), retry_policy=SEND_RETRY_POLICY)
        except BrokerError:
            if undo is None:
                log.warning("%s(%s): the broker is not reachable; it is sent again later", name, row_id)
                return
            log.warning("%s(%s): the broker is not reachable; the request is refused", name, row_id)
            undo()
            raise refused() from None

    transaction.on_commit(send)


def _start_thread(name, row_id):
    def run():
        try:
            task(name).apply((row_id,))
        except Exception:  # the job records its own failure on its row; this is the rest
            log.exception("%s(%s) failed on its background thread", name, row_id)
        finally:
            connections.close_all()

    threading.Thread(target=run, name=f"{name}({row_id})", daemon=True).start()
