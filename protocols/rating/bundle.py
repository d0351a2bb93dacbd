"""The rating protocols' part of a bundle: one assignments.jsonl line per worker and block,
with its Likert ratings or BWS judgments."""

from bundles.exporting import assignment_record, json_line, write_annotations_csv_header
from bundles.reading import read_jsonl
from bundles.writing import ROW_BATCH, submitted_assignments, workers_for
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
    blocks = {}
    for document in documents:
        blocks.setdefault(document.block, set()).add(document.external_id)
    scale = spec.config.get("scale", {})
    assignments = check_block_assignments(
        records, problems, blocks=blocks, protocol=spec.protocol, scale=(scale.get("min", 1), scale.get("max", 5)),
        value_scale=spec.config.get("bws", {}).get("value_scale"),
    )  # fmt: skip
    return BundleWork(
        assignments=assignments, annotations=sum(len(a.ratings) + len(a.judgments) for a in assignments)
    )


def write_work(study, work, segment_ids):
    if not work.assignments:
        return
    workers = workers_for({(spec.platform, spec.annotator) for spec in work.assignments})
    document_ids = dict(study.documents.values_list("external_id", "id"))
    write_block_assignments(study, work.assignments, workers, document_ids)


def write_block_assignments(study, assignments, workers, document_ids):
    """Rating studies: one assignment per worker and block, with its ratings or judgments."""
    rows = submitted_assignments(
        study, assignments, workers, document_ids,
        items_of=lambda spec: [document_ids[d] for d, _ in spec.ratings] if spec.ratings else [
            {"position": n, "documents": [document_ids[d] for d in j["documents"]]}
            for n, j in enumerate(spec.judgments)
        ],
    )  # fmt: skip
    ratings, judgments = [], []
    for row, spec in zip(rows, assignments, strict=True):
        ratings += [Rating(assignment=row, document_id=document_ids[d], score=s) for d, s in spec.ratings]
        judgments += [
            BestWorstJudgment(
                assignment=row,
                position=n,
                documents=sorted(document_ids[d] for d in j["documents"]),
                best_id=document_ids[j["best"]],
                worst_id=document_ids[j["worst"]],
                value=j["value"],
            )  # fmt: skip
            for n, j in enumerate(spec.judgments)
        ]
    Rating.objects.bulk_create(ratings, batch_size=ROW_BATCH)
    BestWorstJudgment.objects.bulk_create(judgments, batch_size=ROW_BATCH)


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
