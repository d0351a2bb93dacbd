from django.apps import AppConfig


class TranslationConfig(AppConfig):
    name = "protocols.translation"
    label = "translation"
    verbose_name = "Translation evaluation (MQM, ESA, DA)"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from studies import protocols

        from .protocol import PROTOCOLS

        for protocol in PROTOCOLS:
            protocols.register(protocol)
