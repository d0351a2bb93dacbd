"""A worker's choice in one pair of outputs (pairwise comparison)."""

from django.db import models
from django.db.models import F, Q

from .keys import LEFT, RIGHT, TIE


class PairwiseChoice(models.Model):
    """Which of two outputs of the same input is better, as one worker saw them (left = A, right = B).

    `left` and `right` are the sides this worker was shown; the report reads
    the document that won, whatever side it stood on.
    """

    class Choice(models.TextChoices):
        LEFT = LEFT, "A (left) is better"
        RIGHT = RIGHT, "B (right) is better"
        TIE = TIE, "About the same"

    assignment = models.ForeignKey(
        "annotations.Assignment", on_delete=models.CASCADE, related_name="pairwise_choices"
    )
    position = models.PositiveIntegerField(help_text="The pair's index in the block's pairs.")
    left = models.ForeignKey("studies.Document", on_delete=models.CASCADE, related_name="+")
    right = models.ForeignKey("studies.Document", on_delete=models.CASCADE, related_name="+")
    choice = models.CharField(max_length=5, choices=Choice.choices)
    strength = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="How clearly the chosen side won (1 = slightly); none for a tie."
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["assignment", "position"]
        constraints = [
            models.UniqueConstraint(fields=["assignment", "position"], name="pairwise_choice_unique_pair"),
            models.CheckConstraint(condition=Q(choice__in=[LEFT, RIGHT, TIE]), name="pairwise_choice_value"),
            models.CheckConstraint(condition=~Q(left=F("right")), name="pairwise_choice_two_outputs"),
            models.CheckConstraint(
                condition=Q(strength__isnull=True) | (Q(strength__gte=1) & ~Q(choice=TIE)),
                name="pairwise_choice_strength_of_a_side",
            ),
        ]

    def __str__(self):
        return f"pair {self.position}: {self.choice}"
