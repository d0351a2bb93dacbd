from django.apps import AppConfig


class SpanConfig(AppConfig):
    name = "protocols.span"
    label = "span"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from studies import protocols

        from .protocol import PROTOCOLS

        for protocol in PROTOCOLS:
            protocols.register(protocol)
