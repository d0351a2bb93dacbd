from django.apps import AppConfig


class PairwiseConfig(AppConfig):
    name = "protocols.pairwise"
    label = "pairwise"
    verbose_name = "Pairwise comparison"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from studies import protocols

        from .protocol import PROTOCOLS

        for protocol in PROTOCOLS:
            protocols.register(protocol)
