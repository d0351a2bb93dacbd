"""The Celery app. Tasks live in each app's tasks.py and are found automatically."""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "falte_site.settings")

app = Celery("falte_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


def task(name):
    """The registered task called `name` (e.g. "reports.tasks.report_compute_task").

    Services send jobs through this lookup by name, the way Celery addresses
    tasks, so a service module need not import the tasks module that imports it.
    """
    return app.tasks[name]
