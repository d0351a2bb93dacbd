"""The rating protocols' part of a bundle: one assignments.jsonl line per worker and block,
with its Likert ratings or BWS judgments."""

from bundles.bulk import insert_rows
from bundles.exporting import write_annotations_csv_header, write_assignment_lines
from bundles.reading import read_jsonl
from bundles.references import references_checked_here
from bundles.writing import batch_document_ids, submitted_assignments, workers_for
from studies.models import Document
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


def write_work(study, work):
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
    document_ids = batch_document_ids(study, named)
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
    """Rating studies: one line per worker and block with its ratings or judgments, each chunk of
    assignments reading its own (bundles/exporting.write_assignment_lines)."""
    if study.protocol == "likert":
        write_assignment_lines(directory, assignments, who, "ratings", _ratings_of)
    else:
        write_assignment_lines(directory, assignments, who, "judgments", _judgments_of)
    write_annotations_csv_header(directory)


def _ratings_of(ids):
    """{assignment id: its ratings as the bundle gives them, in the documents' order}. Each table read
    alone by its keys: joined, a plan made on an import's fresh (unanalysed) tables hashed the whole
    document table once per chunk."""
    # No ORDER BY (sorted below): the model's (assignment, document) ordering made PostgreSQL walk that
    # index whole, 600,000 entries, for each chunk's 5,000 ratings.
    rows = list(
        Rating.objects.filter(assignment_id__in=ids)
        .order_by()
        .values_list("assignment_id", "document_id", "score")
    )
    documents = _documents_of({document_id for _, document_id, _ in rows})
    rows.sort(key=lambda row: (row[0], documents[row[1]][0]))
    found = {}
    for assignment_id, document_id, score in rows:
        found.setdefault(assignment_id, []).append({"document": documents[document_id][1], "score": score})
    return found


def _documents_of(ids):
    """{document id: (position, external id)}."""
    return {pk: (position, external_id) for pk, position, external_id in
            Document.objects.filter(pk__in=ids).values_list("id", "position", "external_id")}  # fmt: skip


def _judgments_of(ids):
    """{assignment id: its judgments as the bundle gives them, in the tuples' order}."""
    judgments = list(
        BestWorstJudgment.objects.filter(assignment_id__in=ids).order_by("assignment_id", "position")
    )
    documents = _documents_of({pk for j in judgments for pk in (*j.documents, j.best_id, j.worst_id)})
    external = {pk: external_id for pk, (_, external_id) in documents.items()}
    found = {}
    for j in judgments:
        found.setdefault(j.assignment_id, []).append({
            "documents": [external[d] for d in j.documents], "best": external[j.best_id],
            "worst": external[j.worst_id], "value": j.value,
        })  # fmt: skip
    return found
