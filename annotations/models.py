"""Assignments: one worker's session on one document or block, reached through its task token.

What a worker produces in it (spans, ratings, answers, choices) belongs to
the study's protocol app under protocols/."""

import secrets

from django.db import models
from django.db.models import Q

from studies.models import Study

# Feedback is a note, not a document: long enough for a paragraph on every item of a block.
WORKER_FEEDBACK_MAX_CHARS = 5000


def new_task_token():
    # 32 url-safe characters = 192 random bits; the token is the worker's only key.
    return secrets.token_urlsafe(24)


class AssignmentQuerySet(models.QuerySet):
    def for_token(self, token):
        return self.filter(token=token)

    def for_user(self, user):
        return self.filter(study__in=Study.objects.for_user(user))


class Assignment(models.Model):
    """One worker's session on one document, reached through its task token."""

    class Kind(models.TextChoices):
        MAIN = "main", "Main"
        QUALIFICATION = "qualification", "Qualification"
        GOLD = "gold", "Gold (expert)"
        RETEST = "retest", "Retest"
        # An automatic evaluator's output (evaluators/): never in the people's figures.
        MODEL = "model", "Model (automatic evaluator)"

    class Status(models.TextChoices):
        ASSIGNED = "assigned", "Assigned"
        IN_PROGRESS = "in_progress", "In progress"
        SUBMITTED = "submitted", "Submitted"
        RELEASED = "released", "Released (inactive)"

    study = models.ForeignKey("studies.Study", on_delete=models.CASCADE, related_name="assignments")
    document = models.ForeignKey(
        "studies.Document", null=True, blank=True, on_delete=models.CASCADE, related_name="assignments",
        help_text="Span and review studies: the document. Rating studies: empty, the block says what.",
    )  # fmt: skip
    worker = models.ForeignKey("accounts.Worker", on_delete=models.PROTECT, related_name="assignments")
    kind = models.CharField(max_length=16, choices=Kind.choices, default=Kind.MAIN)
    block = models.CharField(max_length=64, blank=True)
    token = models.CharField(max_length=64, unique=True, default=new_task_token, editable=False)
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.ASSIGNED)
    current_segment = models.PositiveIntegerField(default=0)
    segments_visited = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    last_activity_at = models.DateTimeField(null=True, blank=True)
    submitted_at = models.DateTimeField(null=True, blank=True)
    active_seconds = models.PositiveIntegerField(default=0)
    activity_credited_to = models.DateTimeField(
        null=True, blank=True,
        help_text="Active time is credited up to this moment: a report adds no more than the time since.",
    )  # fmt: skip
    completion_code = models.CharField(max_length=64, blank=True)
    joined = models.BooleanField(
        default=False, help_text="Taken through the study's join link (released when idle)."
    )
    score = models.JSONField(
        null=True, blank=True, help_text="Scores against gold (qualification and attention documents)."
    )
    flagged = models.BooleanField(default=False, help_text="Failed an attention check.")
    available_from = models.DateTimeField(
        null=True, blank=True, help_text="A retest opens on this date (test-retest)."
    )
    items = models.JSONField(
        default=list, blank=True,
        help_text="Rating studies: this worker's order of the block's items (document ids) or BWS tuples.",
    )  # fmt: skip
    order_seed = models.BigIntegerField(null=True, blank=True, help_text="Seed of the shuffled item order.")
    platform_ids = models.JSONField(
        default=dict, blank=True, help_text="e.g. STUDY_ID, SESSION_ID, assignmentId, hitId."
    )
    arm = models.CharField(
        max_length=32, blank=True,
        help_text="The experimental arm drawn at join (e.g. suggestions or control); empty: none.",
    )  # fmt: skip
    worker_feedback = models.TextField(
        blank=True, max_length=WORKER_FEEDBACK_MAX_CHARS,
        help_text="What the worker wrote to the researchers at the end of the task (optional, free text).",
    )  # fmt: skip

    objects = AssignmentQuerySet.as_manager()

    class Meta:
        ordering = ["study", "document", "id"]
        constraints = [
            # A worker never gets a document twice in one role. Retests are the exception: a
            # person's repeated annotations of one item in an imported file (Label Studio lets a
            # user annotate a task three times) are their retests, as many as the file has.
            models.UniqueConstraint(
                fields=["document", "worker", "kind"],
                condition=~Q(kind="retest"),
                name="assignment_unique_worker_document",
            ),
            # Rating studies assign whole blocks: one per worker, block and kind.
            models.UniqueConstraint(
                fields=["study", "worker", "block", "kind"],
                condition=Q(document__isnull=True),
                name="assignment_unique_worker_block",
            ),
            models.CheckConstraint(
                condition=Q(document__isnull=False) | ~Q(block=""), name="assignment_document_or_block"
            ),
        ]
        indexes = [models.Index(fields=["study", "status"])]

    def __str__(self):
        target = self.document.external_id if self.document_id else f"block {self.block}"
        # No worker identity: the string reaches admin titles, history and messages.
        return f"Assignment {self.pk} on {target} ({self.kind})"

    @property
    def task_path(self):
        return f"/task/{self.token}/"


# The statuses in which an assignment is still being worked on and takes changes.
OPEN_STATUSES = (Assignment.Status.ASSIGNED, Assignment.Status.IN_PROGRESS)


class AllocationRecord(models.Model):
    """A study's allocation state (config.allocation, annotations/services/allocation.py): the
    ranking's clusters after the latest rating and since when they have been these, for the
    `unchanged` stopping rule, the pairs' sums the join reads, and the rule that stopped the
    study, when one did."""

    study = models.OneToOneField("studies.Study", on_delete=models.CASCADE, related_name="allocation_record")
    clusters = models.JSONField(
        default=dict, blank=True,
        help_text="{clusters: [[system, ...], best first], since: the rating they were first seen at, "
        "ratings: the latest rating}.",
    )  # fmt: skip
    sums = models.JSONField(
        default=dict, blank=True,
        help_text="{systems, and reports.metrics.allocation.pair_sums of the scored cells as lists}, "
        "as of the latest rating: what a join needs of the ratings, instead of the study's grid.",
    )  # fmt: skip
    stopped_rule = models.CharField(
        max_length=16, blank=True, help_text="settled, unchanged, separated or budget."
    )
    stopped_at = models.DateTimeField(null=True, blank=True)
    stopped_note = models.CharField(max_length=300, blank=True, help_text="Why it stopped, in words.")

    def __str__(self):
        return f"Allocation of study {self.study_id}"
