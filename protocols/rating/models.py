"""Likert ratings and Best-Worst Scaling judgments (rating protocols)."""

from django.db import models
from django.db.models import F, Q


class Rating(models.Model):
    """One worker's score of one output on the study's Likert scale."""

    assignment = models.ForeignKey("annotations.Assignment", on_delete=models.CASCADE, related_name="ratings")
    document = models.ForeignKey("studies.Document", on_delete=models.CASCADE, related_name="ratings")
    score = models.IntegerField()
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["assignment", "document"]
        constraints = [
            models.UniqueConstraint(fields=["assignment", "document"], name="rating_unique_document"),
        ]

    def __str__(self):
        return f"{self.document_id}: {self.score}"


class BestWorstJudgment(models.Model):
    """Best and worst of one tuple (BWS), with an optional rating of the gap between them."""

    assignment = models.ForeignKey(
        "annotations.Assignment", on_delete=models.CASCADE, related_name="judgments"
    )
    position = models.PositiveIntegerField(help_text="The tuple's index in the block's tuples.")
    documents = models.JSONField(help_text="Document ids of the tuple, in the block's order.")
    best = models.ForeignKey("studies.Document", on_delete=models.CASCADE, related_name="+")
    worst = models.ForeignKey("studies.Document", on_delete=models.CASCADE, related_name="+")
    value = models.PositiveIntegerField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["assignment", "position"]
        constraints = [
            models.UniqueConstraint(fields=["assignment", "position"], name="judgment_unique_tuple"),
            models.CheckConstraint(condition=~Q(best=F("worst")), name="judgment_best_is_not_worst"),
        ]

    def __str__(self):
        return f"tuple {self.position}: best {self.best_id}, worst {self.worst_id}"
