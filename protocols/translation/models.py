"""What a worker gives a translation: error spans (MQM, ESA) and segment scores (ESA, DA)."""

from django.db import models
from django.db.models import F, Q

from .keys import MISSING, SIDES, SOURCE, TARGET


class TranslationError(models.Model):
    """One error a worker marked in one segment of a translation.

    `side` says where: a span of the translation (`target`), a span of the source
    (an omission shown where the source says it), or the `[missing]` marker
    (start = end = 0, no text). Offsets are code points of that side's text, as
    everywhere. An MQM error has a category of the study's taxonomy (a whole-segment
    category, e.g. Non-translation, covers the whole segment); an ESA error has none.
    """

    assignment = models.ForeignKey(
        "annotations.Assignment", on_delete=models.CASCADE, related_name="translation_errors"
    )
    segment = models.ForeignKey("studies.Segment", on_delete=models.CASCADE, related_name="+")
    side = models.CharField(max_length=8, choices=[(s, s) for s in SIDES], default=TARGET)
    start = models.PositiveIntegerField(default=0)
    end = models.PositiveIntegerField(default=0)
    text = models.TextField(blank=True)
    category = models.ForeignKey(
        "studies.Category", on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    severity = models.CharField(max_length=32)
    comment = models.TextField(blank=True)
    client_id = models.CharField(max_length=64, help_text="Client-made id: saves are idempotent.")
    suggestion = models.ForeignKey(
        "SuggestedError", on_delete=models.SET_NULL, null=True, blank=True, related_name="taken",
        help_text="A judge's error pre-filled for the suggestion arm (assistance/), kept so far.",
    )  # fmt: skip
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["assignment", "segment__index", "side", "start", "id"]
        constraints = [
            models.CheckConstraint(condition=Q(side__in=SIDES), name="translation_error_side"),
            models.CheckConstraint(
                condition=(
                    Q(side=MISSING, start=0, end=0) | (Q(side__in=[TARGET, SOURCE]) & Q(start__lt=F("end")))
                ),
                name="translation_error_span_valid",
            ),
            models.UniqueConstraint(
                fields=["assignment", "client_id"], name="translation_error_unique_client_id"
            ),
        ]
        indexes = [models.Index(fields=["assignment", "segment"], name="translation_error_segment")]

    def __str__(self):
        where = "[missing]" if self.side == MISSING else f"{self.side} [{self.start}, {self.end})"
        return f"{self.severity} {where}"


class SegmentScore(models.Model):
    """A worker's score of one segment (ESA: 0-100 after marking errors; DA: a slider or a 0-6 scale)."""

    assignment = models.ForeignKey(
        "annotations.Assignment", on_delete=models.CASCADE, related_name="segment_scores"
    )
    segment = models.ForeignKey("studies.Segment", on_delete=models.CASCADE, related_name="+")
    score = models.FloatField()
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["assignment", "segment__index"]
        constraints = [
            models.UniqueConstraint(fields=["assignment", "segment"], name="segment_score_unique"),
            models.CheckConstraint(
                condition=Q(score__gte=-100) & Q(score__lte=100), name="segment_score_bounded"
            ),
        ]

    def __str__(self):
        return f"{self.segment_id}: {self.score}"


class SuggestedError(models.Model):
    """A judge's error of one document, pre-filled for the workers of the suggestion arm
    (assistance/): where it lies as a TranslationError does, with its category (MQM) and
    severity. Copies, fixed once a worker has received them."""

    document = models.ForeignKey(
        "studies.Document", on_delete=models.CASCADE, related_name="suggested_errors"
    )
    position = models.PositiveIntegerField(help_text="1, 2, ... within the document.")
    segment = models.ForeignKey("studies.Segment", on_delete=models.CASCADE, related_name="+")
    side = models.CharField(max_length=8, choices=[(s, s) for s in SIDES], default=TARGET)
    start = models.PositiveIntegerField(default=0)
    end = models.PositiveIntegerField(default=0)
    text = models.TextField(blank=True)
    category = models.ForeignKey(
        "studies.Category", on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    severity = models.CharField(max_length=32)
    source = models.CharField(max_length=200, blank=True, help_text="e.g. evaluator gpt-judge, run 12.")

    class Meta:
        ordering = ["document", "position"]
        constraints = [
            models.UniqueConstraint(fields=["document", "position"], name="suggested_error_unique_position"),
            models.CheckConstraint(
                condition=(
                    Q(side=MISSING, start=0, end=0) | (Q(side__in=[TARGET, SOURCE]) & Q(start__lt=F("end")))
                ),
                name="suggested_error_span_valid",
            ),
        ]

    def __str__(self):
        return f"suggested {self.severity} in {self.document_id}"


class SuggestionPrefill(models.Model):
    """A suggestion-arm assignment received its document's suggestions (once: removing them
    all does not bring them back)."""

    assignment = models.OneToOneField(
        "annotations.Assignment", on_delete=models.CASCADE, related_name="suggestion_prefill"
    )
    suggestions = models.PositiveIntegerField(help_text="How many were pre-filled.")
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self):
        return f"{self.suggestions} suggestions for {self.assignment_id}"
