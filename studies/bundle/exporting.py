"""Write a study back out as a bundle (study.yaml, documents.jsonl,
assignments.jsonl) plus annotations.csv for spreadsheets (text that would run
as a formula is quoted there; the JSONL files, which import reads, stay raw).

The output is deterministic: exporting, importing the export into an empty
database and exporting again gives byte-identical files.

With `identities=False` (the bundle an analyst downloads) annotators appear
under their pseudonym with platform "import", and the config keys the policy
keeps from readers (accounts/policy.py) are left out.
"""

import csv
import json
from pathlib import Path

import yaml

from accounts import policy
from accounts.models import Worker
from accounts.pseudonyms import pseudonyms_of
from annotations.models import Assignment, ErrorAnnotation
from exports.spreadsheet import spreadsheet_safe

from .study_checks import category_spec_of

CSV_COLUMNS = [
    "study", "document", "system", "annotator", "platform", "kind", "block", "segment",
    "start", "end", "text", "category", "paired_segment", "paired_start", "paired_end",
    "paired_text", "comment",
]  # fmt: skip


class _BundleDumper(yaml.SafeDumper):
    """Writes multi-line text (instructions) as a readable literal block."""


def _represent_text(dumper, text):
    style = "|" if "\n" in text else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", text, style=style)


_BundleDumper.add_representer(str, _represent_text)


def _json_line(value):
    return json.dumps(value, ensure_ascii=False, sort_keys=False) + "\n"


def _annotators(study, identities):
    """who(assignment) -> (annotator, platform) as the bundle names them."""
    if identities:
        return lambda assignment: (assignment.worker.external_id, assignment.worker.platform)
    pseudonym = pseudonyms_of(study.pk)
    return lambda assignment: (pseudonym(assignment.worker_id), Worker.Platform.IMPORT.value)


def export_study(study, directory, *, identities=True):
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    who = _annotators(study, identities)
    (directory / "study.yaml").write_text(_study_yaml(study, identities), encoding="utf-8")
    with open(directory / "documents.jsonl", "w", encoding="utf-8") as handle:
        for document in study.documents.order_by("position", "id").prefetch_related("segments"):
            segments = sorted(document.segments.all(), key=lambda segment: segment.index)
            record = {
                "id": document.external_id, "input_id": document.input_id,
                "system": document.system, "source": document.source, "kind": document.kind,
                "meta": document.meta, "segments": [segment.text for segment in segments],
                "sentences": [segment.sentences for segment in segments],
            }  # fmt: skip
            if document.block:
                record["block"] = document.block
            handle.write(_json_line(record))
    assignments = (
        Assignment.objects.filter(study=study, status=Assignment.Status.SUBMITTED)
        .select_related("document", "worker")
        .order_by("document__position", "worker__platform", "worker__external_id", "kind")
    )
    if study.protocol in ("likert", "bws"):
        _export_block_assignments(study, assignments, directory, who)
        return
    if not identities:  # in the order of what the file shows, not of the hidden platform ids
        assignments = sorted(assignments, key=lambda a: (a.document.position, *who(a), a.kind))
    if study.protocol == "review":
        _export_review(study, assignments, directory, who)
        return
    annotations = _annotations_by_assignment(study)
    with (
        open(directory / "assignments.jsonl", "w", encoding="utf-8") as handle,
        open(directory / "annotations.csv", "w", encoding="utf-8", newline="") as table,
    ):
        writer = csv.writer(table)
        writer.writerow(CSV_COLUMNS)
        for assignment in assignments:
            rows = annotations.get(assignment.pk, [])
            handle.write(_json_line(_assignment_record(assignment, rows, who)))
            for row in rows:
                writer.writerow([spreadsheet_safe(value) for value in _csv_row(study, assignment, row, who)])


def _export_block_assignments(study, assignments, directory, who):
    """Rating studies: one line per worker and block with its ratings or judgments."""
    external = dict(study.documents.values_list("id", "external_id"))
    position = dict(study.documents.values_list("id", "position"))
    assignments = sorted(
        assignments.prefetch_related("ratings", "judgments"), key=lambda a: (a.block, *who(a), a.kind)
    )
    with open(directory / "assignments.jsonl", "w", encoding="utf-8") as handle:
        for assignment in assignments:
            annotator, platform = who(assignment)
            record = {
                "annotator": annotator, "platform": platform,
                "kind": assignment.kind, "block": assignment.block, "active_seconds": assignment.active_seconds,
            }  # fmt: skip
            if assignment.submitted_at is not None:
                record["submitted_at"] = assignment.submitted_at.isoformat()
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
            handle.write(_json_line(record))
    (directory / "annotations.csv").write_text(",".join(CSV_COLUMNS) + "\n", encoding="utf-8")


def _export_review(study, assignments, directory, who):
    """Review studies: review_items.jsonl (the evaluators' items) and the reviewers' answers."""
    from annotations.models import ReviewAnswer, ReviewItem

    items = (
        ReviewItem.objects.filter(document__study=study)
        .select_related("document")
        .order_by("document__position", "position")
    )
    with open(directory / "review_items.jsonl", "w", encoding="utf-8") as handle:
        for item in items:
            record = {"document": item.document.external_id, "evaluator": item.evaluator, "span": item.span_text,
                      "explanation": item.explanation}  # fmt: skip
            if item.occurrence is not None:
                record["occurrence"] = item.occurrence
            elif len(item.locations) == 1:  # a single place: keep it exactly (it may have been given)
                record["segment"], record["start"], record["end"] = item.locations[0]
            handle.write(_json_line(record))
    answers = {}
    for answer in (
        ReviewAnswer.objects.filter(assignment__study=study).select_related("item").order_by("item__position")
    ):
        answers.setdefault(answer.assignment_id, []).append(
            {"item": answer.item.position, "answers": answer.answers}
        )
    with open(directory / "assignments.jsonl", "w", encoding="utf-8") as handle:
        for assignment in assignments:
            record = _assignment_record(assignment, [], who)
            del record["annotations"]
            record["answers"] = answers.get(assignment.pk, [])
            handle.write(_json_line(record))
    (directory / "annotations.csv").write_text(",".join(CSV_COLUMNS) + "\n", encoding="utf-8")


def _sorted_keys(value):
    if isinstance(value, dict):
        return {key: _sorted_keys(value[key]) for key in sorted(value)}
    if isinstance(value, list):
        return [_sorted_keys(item) for item in value]
    return value


def _study_yaml(study, identities=True):
    data = {
        "slug": study.slug, "title": study.title, "protocol": study.protocol,
        "status": study.status, "instructions": study.instructions,
        "annotators_per_document": study.annotators_per_document,
    }  # fmt: skip
    if study.max_documents_per_worker is not None:
        data["max_documents_per_worker"] = study.max_documents_per_worker
    config = study.config if identities else {
        key: value for key, value in study.config.items() if key not in policy.CONFIG_SECRETS
    }  # fmt: skip
    if config:
        # Sorted: PostgreSQL's jsonb keeps no key order, and exports must not depend on it.
        data["config"] = _sorted_keys(config)
    if study.taxonomy is not None:
        taxonomy = study.taxonomy
        data["taxonomy"] = {
            "slug": taxonomy.slug, "name": taxonomy.name, "version": taxonomy.version,
            "description": taxonomy.description,
            "categories": [category_spec_of(c).as_dict() for c in taxonomy.categories.all()],
        }  # fmt: skip
    return yaml.dump(data, Dumper=_BundleDumper, sort_keys=False, allow_unicode=True, width=100)


def _annotations_by_assignment(study):
    grouped = {}
    rows = (
        ErrorAnnotation.objects.filter(assignment__study=study)
        .select_related("category", "segment", "paired_segment")
        .order_by("assignment_id", "segment__index", "start", "end", "category__key", "id")
    )
    for row in rows.iterator(chunk_size=5000):
        grouped.setdefault(row.assignment_id, []).append(row)
    return grouped


def _assignment_record(assignment, annotations, who):
    annotator, platform = who(assignment)
    record = {
        "document": assignment.document.external_id,
        "annotator": annotator,
        "platform": platform,
        "kind": assignment.kind,
        "block": assignment.block,
        "active_seconds": assignment.active_seconds,
    }
    if assignment.submitted_at is not None:
        record["submitted_at"] = assignment.submitted_at.isoformat()
    record["annotations"] = [_annotation_record(row) for row in annotations]
    return record


def _annotation_record(row):
    record = {
        "segment": row.segment.index, "category": row.category.key,
        "start": row.start, "end": row.end, "text": row.text, "comment": row.comment,
    }  # fmt: skip
    if row.paired_segment is not None:
        record["paired"] = {
            "segment": row.paired_segment.index, "start": row.paired_start,
            "end": row.paired_end, "text": row.paired_text,
        }  # fmt: skip
    if row.answers:
        record["answers"] = row.answers
    return record


def _csv_row(study, assignment, row, who):
    paired = row.paired_segment is not None
    return [
        study.slug, assignment.document.external_id, assignment.document.system, *who(assignment),
        assignment.kind,
        assignment.block, row.segment.index, row.start, row.end, row.text, row.category.key,
        row.paired_segment.index if paired else "", row.paired_start if paired else "",
        row.paired_end if paired else "", row.paired_text, row.comment,
    ]  # fmt: skip
