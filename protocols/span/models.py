"""The span protocol's judgments: error spans marked in a document's segments, and answers
about the whole document."""

from django.db import models
from django.db.models import F, Q


class ErrorAnnotation(models.Model):
    """An error span in a segment; a paired category also holds an earlier span."""

    # No index of its own: annotation_unique_client_id (assignment, client_id) leads with it and
    # serves every look-up by assignment; a second index cost each imported span (docs/decisions.md).
    assignment = models.ForeignKey(
        "annotations.Assignment", on_delete=models.CASCADE, related_name="annotations", db_index=False
    )
    segment = models.ForeignKey("studies.Segment", on_delete=models.CASCADE, related_name="+")
    category = models.ForeignKey("studies.Category", on_delete=models.PROTECT, related_name="annotations")
    start = models.PositiveIntegerField()
    end = models.PositiveIntegerField()
    text = models.TextField()
    paired_segment = models.ForeignKey(
        "studies.Segment", null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    paired_start = models.PositiveIntegerField(null=True, blank=True)
    paired_end = models.PositiveIntegerField(null=True, blank=True)
    paired_text = models.TextField(blank=True)
    comment = models.TextField(blank=True)
    answers = models.JSONField(default=dict, blank=True)
    client_id = models.CharField(max_length=64, help_text="Client-made id: saves are idempotent.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["assignment", "segment__index", "start", "id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(start__gte=0) & Q(start__lt=F("end")), name="annotation_span_valid"
            ),
            models.CheckConstraint(
                condition=(
                    Q(paired_segment__isnull=True, paired_start__isnull=True, paired_end__isnull=True)
                    | Q(
                        paired_segment__isnull=False,
                        paired_start__gte=0,
                        paired_end__isnull=False,
                        paired_start__lt=F("paired_end"),
                    )
                ),
                name="annotation_paired_all_or_none",
            ),
            models.UniqueConstraint(fields=["assignment", "client_id"], name="annotation_unique_client_id"),
        ]

    def __str__(self):
        return f"{self.category_id} [{self.start}, {self.end})"


class DocumentAnswer(models.Model):
    """A worker's answers to the study's questions about the whole document
    (config.document_questions), {question key: answer}; see document_questions.py."""

    assignment = models.OneToOneField(
        "annotations.Assignment", on_delete=models.CASCADE, related_name="document_answer"
    )
    answers = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self):
        return f"answers of assignment {self.assignment_id}"


class Suggestion(models.Model):
    """A model's candidate error span, shown to the workers of the suggestion arm
    (config.assistance) in its segment until they decide on it (assistance/)."""

    document = models.ForeignKey("studies.Document", on_delete=models.CASCADE, related_name="suggestions")
    position = models.PositiveIntegerField(help_text="Its place in the document's suggestions, from 1.")
    segment = models.ForeignKey("studies.Segment", on_delete=models.CASCADE, related_name="+")
    category = models.ForeignKey("studies.Category", on_delete=models.PROTECT, related_name="+")
    start = models.PositiveIntegerField()
    end = models.PositiveIntegerField()
    text = models.TextField()
    paired_segment = models.ForeignKey(
        "studies.Segment", null=True, blank=True, on_delete=models.CASCADE, related_name="+"
    )
    paired_start = models.PositiveIntegerField(null=True, blank=True)
    paired_end = models.PositiveIntegerField(null=True, blank=True)
    paired_text = models.TextField(blank=True)
    source = models.CharField(max_length=200, blank=True, help_text="e.g. evaluator gpt-judge, run 12.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["document", "position"]
        constraints = [
            models.UniqueConstraint(fields=["document", "position"], name="suggestion_unique_position"),
            models.CheckConstraint(condition=Q(start__lt=F("end")), name="suggestion_span_valid"),
        ]

    def __str__(self):
        return (
            f"suggestion {self.position} of {self.document_id}: {self.category_id} [{self.start}, {self.end})"
        )


class SuggestionDecision(models.Model):
    """What a worker of the suggestion arm did with one suggestion.

    Taking it (as it is, with another category, or with other boundaries)
    stored an ErrorAnnotation, linked here: removing that annotation removes the
    decision too, and the suggestion waits for a decision again.
    """

    class Action(models.TextChoices):
        ACCEPT = "accept", "Accepted as suggested"
        CHANGE = "change", "Accepted with another category"
        ADJUST = "adjust", "Accepted with other boundaries"
        REJECT = "reject", "Rejected"

    assignment = models.ForeignKey(
        "annotations.Assignment", on_delete=models.CASCADE, related_name="suggestion_decisions"
    )
    suggestion = models.ForeignKey(Suggestion, on_delete=models.CASCADE, related_name="decisions")
    action = models.CharField(max_length=8, choices=Action.choices)
    annotation = models.OneToOneField(
        ErrorAnnotation, null=True, blank=True, on_delete=models.CASCADE, related_name="suggestion_decision"
    )
    seconds = models.FloatField(
        help_text="Time to decide: from the suggestion's first showing on the page to this decision."
    )
    decided_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["assignment", "suggestion__position"]
        constraints = [
            models.UniqueConstraint(fields=["assignment", "suggestion"], name="decision_unique_suggestion"),
            models.CheckConstraint(
                condition=Q(action="reject", annotation__isnull=True)
                | (~Q(action="reject") & Q(annotation__isnull=False)),
                name="decision_annotation_unless_rejected",
            ),
        ]

    def __str__(self):
        return f"{self.action} suggestion {self.suggestion_id}"
