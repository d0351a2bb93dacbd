"""Review studies: people judge error annotations that evaluators (often LLMs) produced."""

from django.db import models


class ReviewItem(models.Model):
    """One evaluator's error annotation of one output: a span (maybe empty or not
    in the text) and its explanation. Reviewers see the evaluator only by label."""

    class SpanStatus(models.TextChoices):
        FOUND = "found", "Found in the output"
        NOT_FOUND = "not_found", "Not found in the output"
        NO_SPAN = "no_span", "No span given"

    document = models.ForeignKey("studies.Document", on_delete=models.CASCADE, related_name="review_items")
    position = models.PositiveIntegerField(help_text="Order in the items file.")
    evaluator = models.CharField(max_length=200, help_text="The real name: never shown to reviewers.")
    label = models.CharField(max_length=40, help_text='What reviewers see, e.g. "Evaluator A".')
    span_text = models.TextField(blank=True)
    explanation = models.TextField(blank=True)
    occurrence = models.PositiveIntegerField(
        null=True, blank=True, help_text="Which occurrence was meant (1-based)."
    )
    span_status = models.CharField(max_length=16, choices=SpanStatus.choices)
    locations = models.JSONField(
        default=list, blank=True, help_text="[[segment, start, end], ...] highlighted."
    )

    class Meta:
        ordering = ["document", "position"]
        constraints = [
            models.UniqueConstraint(fields=["document", "position"], name="review_item_unique_position"),
        ]

    def __str__(self):
        return f"{self.label} on {self.document_id}: {self.span_text[:40]}"


class ReviewAnswer(models.Model):
    """A reviewer's answers about one item: {question key: option, [options] or text}."""

    assignment = models.ForeignKey(
        "annotations.Assignment", on_delete=models.CASCADE, related_name="review_answers"
    )
    item = models.ForeignKey(ReviewItem, on_delete=models.CASCADE, related_name="answers")
    answers = models.JSONField(default=dict)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["assignment", "item__position"]
        constraints = [
            models.UniqueConstraint(fields=["assignment", "item"], name="review_answer_unique_item")
        ]

    def __str__(self):
        return f"answers of assignment {self.assignment_id} on item {self.item_id}"
