from django.apps import AppConfig
from django.db.models.signals import post_migrate


class AccountsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "accounts"
    verbose_name = "Workers and members"

    def ready(self):
        from .signals import ensure_researcher_group

        # After every migrate (also the test database's), so new models' permissions join.
        post_migrate.connect(ensure_researcher_group, dispatch_uid="accounts_researcher_group")
