"""The review protocol's part of a bundle: review_items.jsonl (the evaluators' spans) and
the reviewers' answers in assignments.jsonl."""

from bundles.bulk import insert_rows
from bundles.exporting import json_line, write_annotations_csv_header, write_assignment_lines
from bundles.reading import read_jsonl
from bundles.references import references_checked_here
from bundles.spool import Spool
from bundles.writing import ROW_BATCH, batch_document_ids, submitted_assignments, workers_for
from studies.batches import by_index
from studies.protocols import BundleWork

from .bundle_checks import check_review_assignments, check_review_items, evaluator_labels
from .models import ReviewAnswer, ReviewItem
from .questions import DEFAULT_QUESTIONS

# The checks read segment texts by document id only: the import keeps them on disk (bundles/texts.py).
TEXTS_BY_DOCUMENT = True


def check_work(directory, spec, documents, broken, locate, problems, texts=None):
    segments_of = texts if texts is not None else {d.external_id: d.segments for d in documents}
    # The evaluators' items wait on disk for the write (bundles/spool.py): a study may have
    # hundreds of thousands of them.
    items, counts = Spool(), {}
    if (directory / "review_items.jsonl").is_file():
        item_records = read_jsonl(directory / "review_items.jsonl", "review_items.jsonl", problems)
        counts = check_review_items(item_records, problems, documents=segments_of, keep=items.append)
    path = directory / "assignments.jsonl"
    if not path.is_file():
        return BundleWork(extra=items)
    records = read_jsonl(path, "assignments.jsonl", problems)
    questions = spec.config.get("questions") or DEFAULT_QUESTIONS
    assignments = check_review_assignments(
        records, problems, documents=segments_of, item_counts=counts, questions=questions
    )
    return BundleWork(assignments=assignments, extra=items, annotations=assignments.annotations)


def write_work(study, work):
    """Evaluator items (labelled Evaluator A, B, ... in order of appearance), then the reviewers'
    answers, a batch at a time as checking spooled them, each batch reading its own documents' and
    items' ids (inside the import's transaction)."""
    items, assignments = work.extra, work.assignments
    labels = evaluator_labels(item["evaluator"] for item in items)
    for batch in items.batches() if isinstance(items, Spool) else [items]:
        document_ids = batch_document_ids(study, {i["document"] for i in batch})
        ReviewItem.objects.bulk_create(
            [
                ReviewItem(
                    document_id=document_ids[i["document"]],
                    position=i["position"],
                    evaluator=i["evaluator"],
                    label=labels[i["evaluator"]],
                    span_text=i["span_text"],
                    explanation=i["explanation"],
                    occurrence=i["occurrence"],
                    span_status=i["span_status"],
                    locations=i["locations"],
                )  # fmt: skip
                for i in batch
            ],
            batch_size=ROW_BATCH,
        )
    if not assignments:
        return
    workers = workers_for(assignments.workers)
    for batch in assignments.batches():
        _write_batch(study, batch, workers)


def _write_batch(study, batch, workers):
    document_ids = batch_document_ids(study, {spec.document for spec in batch})
    with by_index():  # the items were written in this transaction: no statistics yet to plan by
        item_ids = {  # (document id, position) -> the item's id, for this batch's documents
            (document_id, position): pk
            for document_id, position, pk in ReviewItem.objects.filter(document_id__in=document_ids.values())
            .order_by()  # the model's (document, position) order could walk that index whole
            .values_list("document_id", "position", "id")
        }  # fmt: skip
    made = submitted_assignments(study, batch, workers, document_ids)
    rows = (
        (row.pk, item_ids[(row.document_id, entry["item"])], entry["answers"])
        for row, spec in zip(made, batch, strict=True)
        for entry in spec.annotations
    )
    # Every row refers to this import's own assignments and items (bundles/references.py).
    with references_checked_here():
        insert_rows(ReviewAnswer, ("assignment_id", "item_id", "answers"), rows)


def export_work(study, assignments, directory, who):
    """Review studies: review_items.jsonl (the evaluators' items) and the reviewers' answers."""
    items = (
        ReviewItem.objects.filter(document__study=study)
        .select_related("document")
        .order_by("document__position", "position")
    )
    with open(directory / "review_items.jsonl", "w", encoding="utf-8") as handle:
        for item in items.iterator(chunk_size=2000):
            record = {"document": item.document.external_id, "evaluator": item.evaluator, "span": item.span_text,
                      "explanation": item.explanation}  # fmt: skip
            if item.occurrence is not None:
                record["occurrence"] = item.occurrence
            elif len(item.locations) == 1:  # a single place: keep it exactly (it may have been given)
                record["segment"], record["start"], record["end"] = item.locations[0]
            handle.write(json_line(record))
    write_assignment_lines(directory, assignments, who, "answers", _answers_of)
    write_annotations_csv_header(directory)


def _answers_of(ids):
    """{assignment id: its answers as the bundle gives them, in the items' order}."""
    rows = (
        ReviewAnswer.objects.filter(assignment_id__in=ids)
        .order_by("item__position")
        .values_list("assignment_id", "item__position", "answers")
    )
    found = {}
    for assignment_id, position, answers in rows:
        found.setdefault(assignment_id, []).append({"item": position, "answers": answers})
    return found
