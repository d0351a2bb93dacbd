from django.apps import AppConfig


class EvaluatorsConfig(AppConfig):
    """Automatic evaluators (LLM endpoints, built-in detectors, imported predictions)
    whose spans are annotations of a model annotator in span studies."""

    name = "evaluators"
    label = "evaluators"
    verbose_name = "Automatic evaluators"
