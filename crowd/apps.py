from django.apps import AppConfig


class CrowdConfig(AppConfig):
    """Crowd operations: pay, the workforce dashboard, and Prolific and Mechanical Turk
    through their APIs, every payment and decision a ledger row (docs/crowd-platforms.md)."""

    name = "crowd"
    label = "crowd"
    verbose_name = "Crowd platforms and pay"

    def ready(self):
        from studies import extensions

        from . import mturk, platforms, prolific, stopping  # noqa: F401 (stopping: its receiver)
        from .extension import EXTENSION
        from .models import Platform

        extensions.register(EXTENSION)
        platforms.register(Platform.PROLIFIC, prolific.client_from_env)
        platforms.register(Platform.MTURK, mturk.client_from_env)
