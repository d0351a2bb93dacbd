from django.apps import AppConfig


class ReportsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "reports"
    verbose_name = "Reports"

    def ready(self):
        # Worker start-up picks up stale reports; the tasks are registered in every
        # process, so services send them by name (falte_site.celery.task).
        from . import signals, tasks  # noqa: F401
