from django.apps import AppConfig


class EvaluatorsConfig(AppConfig):
    """Automatic evaluators (LLM endpoints, built-in detectors, imported predictions)
    whose spans are annotations of a model annotator in span studies (docs/evaluators.md)."""

    name = "evaluators"
    label = "evaluators"
    verbose_name = "Automatic evaluators"

    def ready(self):
        from studies import extensions

        from . import tasks  # noqa: F401  (registers the Celery tasks and the worker-start hook)
        from .extension import EXTENSION

        extensions.register(EXTENSION)
