from django.apps import AppConfig


class QualificationConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "qualification"

    def ready(self):
        from annotations.signals import assignment_submitted

        from .signals import scored_on_submit

        assignment_submitted.connect(scored_on_submit, dispatch_uid="qualification_scored_on_submit")
