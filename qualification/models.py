"""Qualification rounds (SNaC): candidates annotate documents that experts annotated,
are scored against that gold, get feedback, and are approved or rejected."""

import secrets

from django.conf import settings
from django.db import models

from studies.models import Study


def new_feedback_token():
    return secrets.token_urlsafe(24)


class QualificationQuerySet(models.QuerySet):
    def for_user(self, user):
        return self.filter(study__in=Study.objects.for_user(user))


class Qualification(models.Model):
    """A named qualification. Its round is a study whose documents are of kind
    `qualification` and whose gold assignments are the experts'; other studies
    may require it (their join links then admit approved workers only)."""

    slug = models.SlugField(max_length=64, unique=True)
    title = models.CharField(max_length=200)
    study = models.OneToOneField(
        "studies.Study", on_delete=models.CASCADE, related_name="qualification_round",
        help_text="The study that holds the qualification documents and their gold.",
    )  # fmt: skip
    required_by = models.ManyToManyField(
        "studies.Study", blank=True, related_name="required_qualifications",
        help_text="Studies whose join link admits only workers approved here.",
    )  # fmt: skip
    thresholds = models.JSONField(
        default=dict, blank=True,
        help_text='Suggested pass: every category\'s F1 at least "f1" (default 0.5); '
        'per category: {"f1": 0.5, "categories": {"SceneE": 0.3}}.',
    )  # fmt: skip
    default_message = models.TextField(blank=True, help_text="Shown to workers whose result has no message.")
    created_at = models.DateTimeField(auto_now_add=True)

    objects = QualificationQuerySet.as_manager()

    def __str__(self):
        return self.title


class QualificationResult(models.Model):
    """One candidate's scores in a qualification, and the researcher's decision."""

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        APPROVED = "approved", "Approved"
        REJECTED = "rejected", "Rejected"

    qualification = models.ForeignKey(Qualification, on_delete=models.CASCADE, related_name="results")
    worker = models.ForeignKey(
        "accounts.Worker", on_delete=models.CASCADE, related_name="qualification_results"
    )
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    scores = models.JSONField(default=dict, blank=True)
    suggested = models.CharField(max_length=8, blank=True, help_text="pass or fail, from the thresholds.")
    documents = models.PositiveIntegerField(default=0, help_text="Qualification documents submitted.")
    active_seconds = models.PositiveIntegerField(default=0)
    message = models.TextField(
        blank=True, help_text="Your personal message, shown on the worker's feedback page."
    )
    feedback_token = models.CharField(max_length=64, unique=True, default=new_feedback_token, editable=False)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["qualification", "worker__external_id"]
        constraints = [
            models.UniqueConstraint(
                fields=["qualification", "worker"], name="qualification_result_unique_worker"
            ),
        ]

    def __str__(self):
        # No worker identity: the string reaches admin titles, history and messages.
        return f"Candidate result {self.pk} in {self.qualification} ({self.status})"
