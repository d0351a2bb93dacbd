"""The rating protocols' part of a bundle: one assignments.jsonl line per worker and block,
with its Likert ratings or BWS judgments."""

from bundles.bulk import insert_rows
from bundles.exporting import assignment_record, json_line, write_annotations_csv_header
from bundles.reading import read_jsonl
from bundles.references import references_checked_here
from bundles.writing import submitted_assignments, workers_for
from studies.protocols import BundleWork

from .bundle_checks import check_block_assignments
from .models import BestWorstJudgment, Rating


def needs_texts(directory):
    """The work names documents and blocks, never a segment's text: an import keeps no texts."""
    return False


def check_work(directory, spec, documents, broken, locate, problems):
    path = directory / "assignments.jsonl"
    if not path.is_file():
        return BundleWork()
    records = read_jsonl(path, "assignments.jsonl", problems)
    blocks = documents.blocks()  # {block: its documents' ids}, read from disk as lines name them
    scale = spec.config.get("scale", {})
    assignments = check_block_assignments(
        records, problems, blocks=blocks, protocol=spec.protocol, scale=(scale.get("min", 1), scale.get("max", 5)),
        value_scale=spec.config.get("bws", {}).get("value_scale"),
    )  # fmt: skip
    return BundleWork(assignments=assignments, annotations=assignments.annotations)


def write_work(study, work, segment_ids):
    """One submitted assignment per line with its ratings or judgments (inside the import's
    transaction), a batch at a time as checking spooled them, each batch reading its own documents'
    ids; the rows go in through the bulk path."""
    if not work.assignments:
        return
    workers = workers_for(work.assignments.workers)
    for batch in work.assignments.batches():
        _write_batch(study, batch, workers)


def _write_batch(study, batch, workers):
    named = {document for spec in batch for document, _ in spec.ratings}
    named.update(
        document for spec in batch for judgment in spec.judgments for document in judgment["documents"]
    )
    document_ids = dict(study.documents.filter(external_id__in=named).values_list("external_id", "id"))
    rows = submitted_assignments(
        study, batch, workers, document_ids,
        items_of=lambda spec: [document_ids[d] for d, _ in spec.ratings] if spec.ratings else [
            {"position": n, "documents": [document_ids[d] for d in j["documents"]]}
            for n, j in enumerate(spec.judgments)
        ],
    )  # fmt: skip
    pairs = list(zip(rows, batch, strict=True))
    ratings = ((row.pk, document_ids[d], score) for row, spec in pairs for d, score in spec.ratings)
    judgments = (
        (row.pk, n, sorted(document_ids[d] for d in j["documents"]), document_ids[j["best"]],
         document_ids[j["worst"]], j["value"])
        for row, spec in pairs
        for n, j in enumerate(spec.judgments)
    )  # fmt: skip
    # Every row refers to this import's own assignments and documents (bundles/references.py).
    with references_checked_here():
        insert_rows(Rating, ("assignment_id", "document_id", "score"), ratings)
        insert_rows(
            BestWorstJudgment,
            ("assignment_id", "position", "documents", "best_id", "worst_id", "value"),
            judgments,
        )


def export_work(study, assignments, directory, who):
    """Rating studies: one line per worker and block with its ratings or judgments."""
    external = dict(study.documents.values_list("id", "external_id"))
    position = dict(study.documents.values_list("id", "position"))
    assignments = sorted(
        assignments.prefetch_related("ratings", "judgments"), key=lambda a: (a.block, *who(a), a.kind)
    )
    with open(directory / "assignments.jsonl", "w", encoding="utf-8") as handle:
        for assignment in assignments:
            record = assignment_record(assignment, who)
            if study.protocol == "likert":
                ratings = sorted(assignment.ratings.all(), key=lambda r: position[r.document_id])
                record["ratings"] = [{"document": external[r.document_id], "score": r.score} for r in ratings]
            else:
                record["judgments"] = [
                    {
                        "documents": [external[d] for d in j.documents],
                        "best": external[j.best_id],
                        "worst": external[j.worst_id],
                        "value": j.value,
                    }  # fmt: skip
                    for j in sorted(assignment.judgments.all(), key=lambda j: j.position)
                ]
            handle.write(json_line(record))
    write_annotations_csv_header(directory)
