from django.apps import AppConfig


class InteropConfig(AppConfig):
    """Other tools' annotation files in and out: Label Studio, doccano, factgenie, Potato (docs/interop.md)."""

    name = "interop"
    label = "interop"
    verbose_name = "Other tools' formats"

    def ready(self):
        from studies import extensions

        from .extension import EXTENSION

        extensions.register(EXTENSION)
