"""The words of the evaluator comparison: references, levels, scores, and why a figure is undefined."""

from reports.metrics.spans.data import MODEL  # noqa: F401  (the kind of the evaluators' annotations)

REFERENCES = ("union", "two_agree", "gold")
LEVELS = ("token", "sentence")
SCORED = ("precision", "recall", "f1")
# What a document needs, besides the evaluator's annotation, to be compared with each reference.
NEEDS = {
    "union": "a people's annotation",
    "two_agree": "two or more people's annotations",
    "gold": "a gold annotation",
}
NO_ALPHA_DOCUMENT = "no document has two or more people's annotations and the evaluator's annotation"
NO_REPLACED_ALPHA = "no alpha with the evaluator in a person's place is defined"
