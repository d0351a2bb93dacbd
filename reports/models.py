"""A report is a row with a status: requested, computed by a Celery job, kept."""

from django.conf import settings
from django.db import models
from django.db.models import Q

from studies.models import Study


class ReportQuerySet(models.QuerySet):
    def for_user(self, user):
        return self.filter(study__in=Study.objects.for_user(user))

    def active(self):
        return self.filter(status__in=[Report.Status.QUEUED, Report.Status.RUNNING])


class Report(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        DONE = "done", "Done"
        FAILED = "failed", "Failed"

    class Kind(models.TextChoices):
        AGREEMENT = "agreement", "Agreement and error distribution"

    study = models.ForeignKey("studies.Study", on_delete=models.CASCADE, related_name="reports")
    kind = models.CharField(max_length=32, choices=Kind.choices, default=Kind.AGREEMENT)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.QUEUED)
    params = models.JSONField(default=dict, blank=True)
    result = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True)
    progress = models.FloatField(default=0.0, help_text="0 to 1 while running.")
    attempts = models.PositiveIntegerField(default=0, help_text="Times a worker started it.")
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="reports"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True, help_text="Last sign of life of its job.")
    sent_at = models.DateTimeField(
        null=True, blank=True,
        help_text="When its job was last handed to the broker: queued longer than "
        "REPORT_STALE_SECONDS after that, it is sent again.",
    )  # fmt: skip
    finished_at = models.DateTimeField(null=True, blank=True)

    objects = ReportQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            # At most one queued or running report per study and kind: a second
            # request gets the running one (the service relies on this).
            models.UniqueConstraint(
                fields=["study", "kind"],
                condition=Q(status__in=["queued", "running"]),
                name="report_one_active_per_study",
            ),
            models.CheckConstraint(
                condition=Q(progress__gte=0) & Q(progress__lte=1), name="report_progress_0_1"
            ),
        ]

    def __str__(self):
        return f"{self.get_kind_display()} of {self.study} ({self.status})"

    @property
    def is_active(self):
        return self.status in (self.Status.QUEUED, self.Status.RUNNING)


class ReportPart(models.Model):
    """One chunk of documents of a report computed in parts (reports/parts.py).

    A large span report is split by documents across Celery workers; each part
    stores its sufficient statistics here, and the last part to finish sends
    the job that merges them. Rows belong to one attempt of the report: a
    report sent again starts a new attempt and its old parts are dropped.
    """

    report = models.ForeignKey(Report, on_delete=models.CASCADE, related_name="parts")
    attempt = models.PositiveIntegerField()
    number = models.PositiveIntegerField()
    spec = models.JSONField(help_text="What the protocol needs to compute the part (e.g. its documents).")
    tallies = models.JSONField(
        null=True, blank=True, help_text="The part's sufficient statistics, once done."
    )
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["report", "attempt", "number"]
        constraints = [
            models.UniqueConstraint(fields=["report", "attempt", "number"], name="reportpart_unique_number")
        ]

    def __str__(self):
        return f"part {self.number} of {self.report} (attempt {self.attempt})"
