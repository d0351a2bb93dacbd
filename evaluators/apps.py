from django.apps import AppConfig


class EvaluatorsConfig(AppConfig):
    """Automatic evaluators (LLM endpoints, built-in detectors, imported predictions)
    whose spans are annotations of a model annotator in span studies (docs/evaluators.md)."""

    name = "evaluators"
    label = "evaluators"
    verbose_name = "Automatic evaluators"

    def ready(self):
        from accounts.policy import ModelRule, register_rules

        from . import tasks  # noqa: F401  (registers the Celery tasks and the worker-start hook)

        register_rules(
            {
                "evaluators.evaluator": ModelRule("study"),
                "evaluators.evaluatorrun": ModelRule(
                    "evaluator__study",
                    change="nobody",
                    note="requested and cancelled by who manages the study",
                ),
                "evaluators.evaluatorresult": ModelRule(
                    "run__evaluator__study", change="nobody", note="the raw exchange of a run, kept for audit"
                ),
                "evaluators.cachedresponse": ModelRule(
                    None, read="superusers", change="nobody", note="answers shared by identical requests"
                ),
            }
        )
