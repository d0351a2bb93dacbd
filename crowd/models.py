"""A study's listings on crowd platforms, and the ledger of everything sent to them.

Money is never paid twice: every approval, rejection, bonus, qualification
grant and message is one LedgerEntry with a unique idempotency key, planned
first (the researcher sees it as a dry-run preview), then sent once; the
platform's answer is stored on the row. Planning the same thing again finds
the existing row instead of making a second one (crowd/ledger.py).
"""

from django.conf import settings
from django.db import models

from studies.models import Study


class Platform(models.TextChoices):
    PROLIFIC = "prolific", "Prolific"
    MTURK = "mturk", "Mechanical Turk"


class ListingQuerySet(models.QuerySet):
    def for_user(self, user):
        return self.filter(study__in=Study.objects.for_user(user))


class Listing(models.Model):
    """A Prolific study or a Mechanical Turk HIT made from one of our studies."""

    study = models.ForeignKey("studies.Study", on_delete=models.CASCADE, related_name="listings")
    platform = models.CharField(max_length=16, choices=Platform.choices)
    external_id = models.CharField(max_length=128, help_text="Prolific's study id or the HIT id.")
    sandbox = models.BooleanField(
        default=False, help_text="Mechanical Turk's sandbox (no money moves); Prolific has none."
    )
    title = models.CharField(max_length=255, blank=True)
    places = models.PositiveIntegerField(default=0, help_text="Places (Prolific) or assignments (HIT).")
    reward = models.DecimalField(max_digits=10, decimal_places=2, null=True, blank=True)
    currency = models.CharField(max_length=3, blank=True)
    status = models.CharField(max_length=32, blank=True, help_text="As the platform last reported it.")
    qualification_type = models.CharField(
        max_length=128, blank=True,
        help_text="Mechanical Turk: the custom qualification type of workers who passed the platform's "
        "qualification.",
    )  # fmt: skip
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    objects = ListingQuerySet.as_manager()

    class Meta:
        ordering = ["study", "-created_at"]
        constraints = [
            models.UniqueConstraint(fields=["platform", "sandbox", "external_id"], name="listing_unique_id"),
        ]

    def __str__(self):
        where = f"{self.get_platform_display()}{' sandbox' if self.sandbox else ''}"
        return f"{where} {self.external_id} of {self.study}"


class LedgerQuerySet(models.QuerySet):
    def for_user(self, user):
        return self.filter(study__in=Study.objects.for_user(user))


class LedgerEntry(models.Model):
    """One thing sent (or to be sent) to a crowd platform, at most once."""

    class Action(models.TextChoices):
        CREATE = "create", "Create the study or HIT"
        PUBLISH = "publish", "Publish"
        APPROVE = "approve", "Approve"
        REJECT = "reject", "Reject"
        BONUS = "bonus", "Bonus"
        GRANT = "grant", "Grant the qualification"
        NOTIFY = "notify", "Message"
        STOP = "stop", "Stop the listing"

    class Status(models.TextChoices):
        PLANNED = "planned", "Planned (preview)"
        SENDING = "sending", "Sending"
        SENT = "sent", "Sent"
        FAILED = "failed", "Failed"
        CANCELLED = "cancelled", "Cancelled"

    study = models.ForeignKey("studies.Study", on_delete=models.CASCADE, related_name="ledger_entries")
    listing = models.ForeignKey(
        Listing, null=True, blank=True, on_delete=models.PROTECT, related_name="ledger_entries"
    )
    platform = models.CharField(max_length=16, choices=Platform.choices)
    sandbox = models.BooleanField(default=False)
    action = models.CharField(max_length=16, choices=Action.choices)
    key = models.CharField(
        max_length=255, unique=True,
        help_text="Idempotency key: the same approval, rejection or bonus always has the same key.",
    )  # fmt: skip
    worker = models.ForeignKey(
        "accounts.Worker", null=True, blank=True, on_delete=models.PROTECT, related_name="ledger_entries"
    )
    assignment = models.ForeignKey(
        "annotations.Assignment", null=True, blank=True, on_delete=models.PROTECT, related_name="ledger_entries"
    )  # fmt: skip
    target = models.CharField(
        max_length=255, blank=True,
        help_text="What the platform calls it: a submission, assignment or worker id.",
    )  # fmt: skip
    amount = models.DecimalField(max_digits=10, decimal_places=2, null=True, blank=True)
    currency = models.CharField(max_length=3, blank=True)
    reason = models.TextField(blank=True, help_text="Shown to the worker (rejections, bonuses, messages).")
    request = models.JSONField(default=dict, blank=True, help_text="What is sent: the preview.")
    response = models.JSONField(null=True, blank=True, help_text="The platform's answer, as received.")
    error = models.TextField(blank=True)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PLANNED)
    attempts = models.PositiveIntegerField(default=0)
    planned_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    planned_at = models.DateTimeField(auto_now_add=True)
    sent_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    sent_at = models.DateTimeField(null=True, blank=True)

    objects = LedgerQuerySet.as_manager()

    class Meta:
        ordering = ["study", "-planned_at", "id"]
        verbose_name_plural = "ledger entries"
        indexes = [models.Index(fields=["study", "status"])]

    def __str__(self):
        money = f" {self.amount} {self.currency}" if self.amount is not None else ""
        # No worker identity: the string reaches admin titles, history and messages.
        return f"{self.get_action_display()}{money} ({self.get_status_display()}) #{self.pk}"
