from django.apps import AppConfig


class ReportsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "reports"
    verbose_name = "Reports"

    def ready(self):
        from . import signals  # noqa: F401  (worker start-up: pick up stale reports)
