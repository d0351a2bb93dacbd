"""Writing a span bundle's checked assignments: their spans through the bulk path (COPY on
PostgreSQL), a batch of assignments at a time, with the ids each batch needs read for that batch."""

from bundles.bulk import insert_rows
from bundles.references import references_checked_here
from bundles.spool import CheckedAssignments
from bundles.writing import (
    ROW_BATCH,
    batch_document_ids,
    batch_segment_ids,
    submitted_assignments,
    workers_for,
)
from studies.batches import by_index
from studies.models import Category

from .assistance.bundle import suggestion_ids, write_decisions
from .models import DocumentAnswer, ErrorAnnotation

# Assignments per batch: their documents and segments are read in one query each, within the
# parameters one SQLite query takes.
ASSIGNMENT_BATCH = 500
SPAN_COLUMNS = (
    "assignment_id", "category_id", "segment_id", "start", "end", "text", "paired_segment_id",
    "paired_start", "paired_end", "paired_text", "comment", "answers", "client_id",
)  # fmt: skip


class CheckedSpanAssignments(CheckedAssignments):
    """The assignments checking accepted, spooled to disk until the write (bundles/spool.py).

    Each is kept as (its SpanAssignmentSpec without annotations, its spans as plain tuples):
    tuples pickle and load several times faster than the spans' dataclasses.
    """

    def __init__(self):
        super().__init__(lambda spec: len(spec.annotations), batch=ASSIGNMENT_BATCH)

    def kept(self, spec):
        spans = tuple(_span_tuple(annotation) for annotation in spec.annotations)
        spec.annotations = []
        return spec, spans


def _span_tuple(annotation):
    span, paired = annotation.span, annotation.paired
    return (
        annotation.category, span.segment, span.start, span.end, span.text,
        (paired.segment, paired.start, paired.end, paired.text) if paired else None,
        annotation.comment, annotation.answers, annotation.client_id,
    )  # fmt: skip


def write_assignments(study, checked):
    """Write CheckedAssignments (inside the import's transaction), after the suggestions their
    decisions point at."""
    workers = workers_for(checked.workers)
    category_ids = dict(study.taxonomy.categories.values_list("key", "id")) if study.taxonomy else {}
    for batch in checked.batches():
        _write_batch(study, batch, workers, category_ids)


def _write_batch(study, batch, workers, category_ids):
    specs = [spec for spec, _ in batch]
    document_ids = batch_document_ids(study, {spec.document for spec in specs})
    segment_ids = batch_segment_ids(document_ids)
    rows = submitted_assignments(study, specs, workers, document_ids)

    def span_rows():
        for row, (spec, spans) in zip(rows, batch, strict=True):
            for category, segment, start, end, text, paired, comment, answers, client_id in spans:
                paired_segment, paired_start, paired_end, paired_text = paired or (None, None, None, "")
                yield (
                    row.pk, category_ids[category], segment_ids[(spec.document, segment)], start, end, text,
                    None if paired is None else segment_ids[(spec.document, paired_segment)],
                    paired_start, paired_end, paired_text, comment, answers, client_id,
                )  # fmt: skip

    # The spans refer to this import's own assignments and segments, and to the taxonomy's
    # categories, which may be older and shared: those are locked instead (bundles/references.py).
    with references_checked_here(existing=[(Category, category_ids.values())]):
        insert_rows(ErrorAnnotation, SPAN_COLUMNS, span_rows())
    _write_decisions(rows, specs, document_ids)
    DocumentAnswer.objects.bulk_create(
        [
            DocumentAnswer(assignment=row, answers=spec.document_answers)
            for row, spec in zip(rows, specs, strict=True)
            if spec.document_answers
        ],
        batch_size=ROW_BATCH,
    )


def _write_decisions(rows, specs, document_ids):
    deciding = [(row, spec) for row, spec in zip(rows, specs, strict=True) if spec.suggestion_decisions]
    if not deciding:
        return
    suggestions = suggestion_ids(document_ids)
    # The spans went in without returning ids: a decision finds its span by the assignment's client id.
    # By index: the span table is being filled and has no statistics yet (a scan of it per batch).
    with by_index():
        span_ids = {
            (assignment_id, client_id): pk
            for assignment_id, client_id, pk in ErrorAnnotation.objects.filter(
                assignment_id__in=[row.pk for row, _ in deciding]
            )
            .order_by()
            .values_list("assignment_id", "client_id", "id")
        }
    write_decisions(
        [
            (
                row.pk,
                suggestions[(spec.document, position)],
                action,
                seconds,
                span_ids.get((row.pk, client_id)),
            )
            for row, spec in deciding
            for position, action, seconds, client_id in spec.suggestion_decisions
        ]
    )
