from django.apps import AppConfig


class ExportsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "exports"
    verbose_name = "Exports"

    def ready(self):
        # Registered in every process: services send it by name (falte_site.celery.task).
        from . import tasks  # noqa: F401
