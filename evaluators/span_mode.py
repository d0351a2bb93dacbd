"""An evaluator of a span study: its prompt, its answer read and placed, and its spans stored as
ErrorAnnotation rows of its model assignment (docs/evaluators.md)."""

from protocols.span.models import ErrorAnnotation

from . import answers, detectors, prompts
from .annotator import ModelAssignments
from .documents import segment_texts
from .models import Evaluator


class SpanMode:
    """What a run does on a span study, for RunWork: one prompt per document, the answer's error
    items placed in the segments, and the placed spans as the evaluator's annotations."""

    schema_name = "error_spans"

    def __init__(self, evaluator, documents):
        self.evaluator = evaluator
        self.study = evaluator.study
        self.categories = list(self.study.taxonomy.categories.order_by("order", "key"))
        self.category_kinds = {c.key: c.kind for c in self.categories}
        self.category_ids = {c.key: c.pk for c in self.categories}
        self.segments, self.segment_ids = segment_texts([d.pk for d in documents])
        self.assignments = ModelAssignments(evaluator, [d.pk for d in documents])

    def messages(self, document):
        """The chat messages of the document; PromptError when the template cannot give them."""
        context = prompts.prompt_context(
            study=self.study,
            categories=self.categories,
            document=document,
            segments=self.segments[document.pk],
        )
        return prompts.render_messages(self.evaluator.prompt_template, context)

    def schema(self):
        return answers.answer_schema([c.key for c in self.categories])

    def read(self, content):
        """The answer's raw error items; MalformedAnswer when it is not the expected JSON."""
        return answers.answer_items(content)

    def detector(self):
        """The evaluator's built-in detector, as a function from a document to its error items."""
        detector = detectors.make_detector(
            self.evaluator.detector, self.evaluator.options, self.category_kinds
        )
        return lambda document: detector.detect(self.segments[document.pk])

    def place(self, document, raw):
        """The result's fields: every item with its status and where it was found."""
        placed = answers.placed_items(
            list(raw or ()), self.segments[document.pk], self.category_kinds,
            every=self.evaluator.occurrences == Evaluator.Occurrences.ALL,
        )  # fmt: skip
        found = sum(1 for item in placed if item.get("status") == answers.FOUND)
        return {"items": placed, "listed": len(placed), "placed": found}

    def write(self, document, fields, *, tag):
        """The placed spans as the evaluator's annotations of the document, replacing earlier ones.
        A paired category's span whose earlier span was not found is stored without it."""
        assignment_id = self.assignments.fresh(
            document.pk, clear=lambda pk: ErrorAnnotation.objects.filter(assignment_id=pk).delete()
        )
        texts, segment_ids = self.segments[document.pk], self.segment_ids[document.pk]
        rows = []
        for number, item in enumerate(fields["items"]):
            if item.get("status") != answers.FOUND:
                continue
            for place, (segment, start, end) in enumerate(item["locations"]):
                row = ErrorAnnotation(
                    assignment_id=assignment_id, segment_id=segment_ids[segment],
                    category_id=self.category_ids[item["category"]], start=start, end=end,
                    text=texts[segment][start:end], comment=item.get("explanation") or "",
                    client_id=f"{tag}-{number}-{place}",
                )  # fmt: skip
                if item.get("earlier"):
                    earlier_segment, earlier_start, earlier_end = item["earlier"]
                    row.paired_segment_id = segment_ids[earlier_segment]
                    row.paired_start, row.paired_end = earlier_start, earlier_end
                    row.paired_text = texts[earlier_segment][earlier_start:earlier_end]
                rows.append(row)
        if rows:
            ErrorAnnotation.objects.bulk_create(rows)
