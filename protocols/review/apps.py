from django.apps import AppConfig


class ReviewConfig(AppConfig):
    name = "protocols.review"
    label = "review"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from studies import protocols

        from .protocol import PROTOCOLS

        for protocol in PROTOCOLS:
            protocols.register(protocol)
