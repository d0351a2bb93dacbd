"""Write a study back out as a bundle (study.yaml, documents.jsonl,
assignments.jsonl) plus annotations.csv for spreadsheets (text that would run
as a formula is quoted there; the JSONL files, which import reads, stay raw).

The output is deterministic: exporting, importing the export into an empty
database and exporting again gives byte-identical files.

With `identities=False` (the bundle an analyst downloads) annotators appear
under their pseudonym with platform "import", and the config keys the policy
keeps from readers (accounts/policy.py) are left out.
"""

import json
from collections import namedtuple
from pathlib import Path

import yaml
from django.db.models import Prefetch

from accounts import policy
from accounts.models import Worker
from accounts.pseudonyms import pseudonyms_of
from annotations.models import Assignment
from falte_site.collection import bulk_collection
from studies import extensions, protocols
from studies.batches import batched, by_index
from studies.models import Document, Segment

from .study_checks import category_spec_of

CSV_COLUMNS = [
    "study", "document", "system", "annotator", "platform", "kind", "block", "segment",
    "start", "end", "text", "category", "paired_segment", "paired_start", "paired_end",
    "paired_text", "comment",
]  # fmt: skip


DOCUMENT_CHUNK = 500
ASSIGNMENT_CHUNK = 500  # assignments handed to a protocol's export per chunk, with their work read

# What sorting a study's assignments into their lines reads of each: enough for who(), not the row.
_Line = namedtuple("_Line", "pk block kind worker_id worker position")
_Worker = namedtuple("_Worker", "external_id platform")


class _BundleDumper(yaml.SafeDumper):
    """Writes multi-line text (instructions) as a readable literal block."""


def _represent_text(dumper, text):
    style = "|" if "\n" in text else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", text, style=style)


_BundleDumper.add_representer(str, _represent_text)


def json_line(value):
    return json.dumps(value, ensure_ascii=False, sort_keys=False) + "\n"


def _annotators(study, identities):
    """who(assignment) -> (annotator, platform) as the bundle names them."""
    if identities:
        return lambda assignment: (assignment.worker.external_id, assignment.worker.platform)
    pseudonym = pseudonyms_of(study.pk)

    def who(assignment):
        # An automatic evaluator keeps its key and platform, in its retests (repeated predictions) too.
        if assignment.worker.platform == Worker.Platform.MODEL:
            return assignment.worker.external_id, Worker.Platform.MODEL.value
        return pseudonym(assignment.worker_id), Worker.Platform.IMPORT.value

    return who


@bulk_collection()  # it makes no reference cycles (tests/test_collection.py)
def export_study(study, directory, *, identities=True):
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    who = _annotators(study, identities)
    (directory / "study.yaml").write_text(_study_yaml(study, identities), encoding="utf-8")
    with open(directory / "documents.jsonl", "w", encoding="utf-8") as handle:
        documents = study.documents.order_by("position", "id").prefetch_related(
            # By (document, index), the unique index's order: ordered by index alone, PostgreSQL sorted a
            # scan of the whole segment table for each chunk of documents when its statistics were
            # stale (as after an import), 21 ms against 1.4 ms a chunk at 200,000 segments.
            Prefetch(
                "segments", queryset=Segment.objects.order_by("document_id", "index"), to_attr="segment_list"
            )
        )
        # A chunk of documents and their segments at a time, not the whole study's texts at once.
        for document in documents.iterator(chunk_size=DOCUMENT_CHUNK):
            # Taken off the document: the prefetched segments point back at it, and the chunk's
            # documents and segments would stay a cycle until the collector's next pass found them.
            segments = document.segment_list
            del document.segment_list
            record = {
                "id": document.external_id, "input_id": document.input_id,
                "system": document.system, "source": document.source, "kind": document.kind,
                "meta": document.meta, "segments": [segment.text for segment in segments],
                "sentences": [segment.sentences for segment in segments],
            }  # fmt: skip
            if document.block:
                record["block"] = document.block
            handle.write(json_line(record))
    assignments = (
        Assignment.objects.filter(study=study, status=Assignment.Status.SUBMITTED)
        .select_related("document", "worker")
        # A worker's retests of one document (repeated annotations of an imported file) in the order
        # they were made, after the worker's other kinds ("retest" sorts after "gold", "main", "model").
        .order_by("document__position", "worker__platform", "worker__external_id", "kind", "id")
    )
    key = _line_order(protocols.of(study).works_on, who, identities)
    protocols.of(study).bundle_export(study, in_line_order(assignments, key), directory, who)


def _line_order(works_on, who, identities):
    """The sort key of the lines of assignments.jsonl, or None where the database's order is theirs:
    a block study's by block, the names the bundle shows and kind; a document study's by document,
    then the same, when the names are pseudonyms (not in the order of the hidden platform ids)."""
    if works_on == "block":
        return lambda line: (line.block, *who(line), line.kind)
    if not identities:
        return lambda line: (line.position, *who(line), line.kind)
    return None


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
    config = study.config if identities else policy.config_without_secrets(study.config)
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
    for extension in extensions.registered():
        if extension.study_yaml_key:
            value = extension.study_yaml_export(study)
            if value is not None:
                data[extension.study_yaml_key] = value
    return yaml.dump(data, Dumper=_BundleDumper, sort_keys=False, allow_unicode=True, width=100)


def in_line_order(assignments, key=None):
    """`assignments` (a queryset with the worker and document selected) as lists of at most
    ASSIGNMENT_CHUNK, in the order of the bundle's lines: the queryset's own, or `key(line)` of a
    few fields of each (pk, block, kind, worker_id, worker with external_id and platform, and the
    document's position), enough for who(). The sort reads those fields of every assignment, and
    each chunk its own rows: an export holds no more than a chunk of assignments and their work."""
    if key is None:
        yield from batched(assignments.iterator(chunk_size=ASSIGNMENT_CHUNK), ASSIGNMENT_CHUNK)
        return
    workers = {}
    lines = [
        _Line(
            pk,
            block,
            kind,
            worker_id,
            workers.setdefault(worker_id, _Worker(external_id, platform)),
            position,
        )
        for pk, block, kind, worker_id, external_id, platform, position in assignments.values_list(
            "pk",
            "block",
            "kind",
            "worker_id",
            "worker__external_id",
            "worker__platform",
            "document__position",
        ).iterator(chunk_size=5000)
    ]  # in the queryset's order, so ties keep it as they did when whole assignments were sorted
    lines.sort(key=key)
    for part in batched(lines, ASSIGNMENT_CHUNK):
        with by_index():
            rows = Assignment.objects.select_related("worker", "document").in_bulk([line.pk for line in part])
        yield [rows[line.pk] for line in part]


def external_ids(document_ids):
    """{document id: external id} of these documents: what a chunk's work names, read by its keys."""
    return dict(Document.objects.filter(pk__in=document_ids).values_list("id", "external_id"))


def write_assignment_lines(directory, assignments, who, field, work_of):
    """assignments.jsonl of a protocol whose line is the common fields (assignment_record) and its
    work under `field`: `assignments` as export_study gives them (chunks in line order), and
    `work_of(ids)` the chunk's work, {assignment id: [...]}, read by index."""
    with open(directory / "assignments.jsonl", "w", encoding="utf-8") as handle:
        for chunk in assignments:
            with by_index():  # a chunk's reads by its own keys, never a scan per chunk
                work = work_of([assignment.pk for assignment in chunk])
            for assignment in chunk:
                record = assignment_record(assignment, who)
                record[field] = work.get(assignment.pk, [])
                handle.write(json_line(record))


def assignment_record(assignment, who):
    """The fields every line of assignments.jsonl starts with ("document" only for a document study)."""
    annotator, platform = who(assignment)
    record = {"document": assignment.document.external_id} if assignment.document_id is not None else {}
    record.update(
        annotator=annotator,
        platform=platform,
        kind=assignment.kind,
        block=assignment.block,
        active_seconds=assignment.active_seconds,
    )
    if assignment.submitted_at is not None:
        record["submitted_at"] = assignment.submitted_at.isoformat()
    if assignment.arm:
        record["arm"] = assignment.arm
    # Left out when empty, so a bundle from before feedback existed exports unchanged.
    if assignment.worker_feedback:
        record["feedback"] = assignment.worker_feedback
    return record


def write_annotations_csv_header(directory):
    """annotations.csv with its header only: the table of spans, for studies that have none."""
    (directory / "annotations.csv").write_text(",".join(CSV_COLUMNS) + "\n", encoding="utf-8")
