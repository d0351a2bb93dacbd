from django.apps import AppConfig


class ConsoleConfig(AppConfig):
    """The researcher console: a face over the admin that follows the researcher's job."""

    name = "console"
    verbose_name = "Researcher console"
