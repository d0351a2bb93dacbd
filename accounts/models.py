"""Who takes part: workers (crowd, expert or imported identities) and study members."""

from django.conf import settings
from django.db import models


class Worker(models.Model):
    """An annotator identity. Crowd workers never log in: they hold task links."""

    class Platform(models.TextChoices):
        PROLIFIC = "prolific", "Prolific"
        MTURK = "mturk", "Mechanical Turk"
        LINK = "link", "Task link"
        EXPERT = "expert", "Expert"
        IMPORT = "import", "Imported"
        MODEL = "model", "Automatic evaluator"

    platform = models.CharField(max_length=16, choices=Platform.choices)
    external_id = models.CharField(
        max_length=255, help_text="The platform's id (e.g. PROLIFIC_PID) or a chosen name."
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="worker_identities",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["platform", "external_id"], name="worker_unique_platform_id"),
        ]
        ordering = ["platform", "external_id"]

    def __str__(self):
        return f"{self.external_id} ({self.platform})"


class StudyMembership(models.Model):
    """A user's role in one study. Researchers manage it; analysts only read."""

    class Role(models.TextChoices):
        RESEARCHER = "researcher", "Researcher"
        ANALYST = "analyst", "Analyst"
        EXPERT = "expert", "Expert (annotates gold)"

    study = models.ForeignKey("studies.Study", on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="study_memberships"
    )
    role = models.CharField(max_length=16, choices=Role.choices, default=Role.RESEARCHER)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["study", "user"], name="membership_unique_user"),
        ]

    def __str__(self):
        return f"{self.user} — {self.role} of {self.study}"
