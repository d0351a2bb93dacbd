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
