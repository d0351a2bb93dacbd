from django.apps import AppConfig


class OutboundConfig(AppConfig):
    """Calls the platform makes on a researcher's behalf: where they may go and which key they carry."""

    name = "outbound"
    verbose_name = "Outbound calls and keys"

    def ready(self):
        from . import checks  # noqa: F401 (registers the system checks)
