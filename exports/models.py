"""An export too large to stream in one request is a job with a status and a file."""

from django.conf import settings
from django.db import models

from studies.models import Study


class ExportQuerySet(models.QuerySet):
    def for_user(self, user):
        return self.filter(study__in=Study.objects.for_user(user), requested_by=user)


class Export(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    class Format(models.TextChoices):
        CSV = "csv", "CSV"
        JSONL = "jsonl", "JSON Lines"
        PARQUET = "parquet", "Parquet"

    study = models.ForeignKey("studies.Study", on_delete=models.CASCADE, related_name="exports")
    format = models.CharField(max_length=8, choices=Format.choices, default=Format.CSV)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    with_platform_ids = models.BooleanField(default=False, help_text="Only for the study's researchers.")
    rows = models.PositiveBigIntegerField(default=0)
    file = models.CharField(max_length=255, blank=True, help_text="Path under MEDIA_ROOT.")
    error = models.TextField(blank=True)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="exports"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    objects = ExportQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]

    def __str__(self):
        return f"{self.format} export of {self.study} ({self.status})"
