"""A span study's documents and submitted work read from the database a chunk at a time, in the
shape and order of its bundle (bundles/exporting.py: documents.jsonl, assignments.jsonl).

The export of a study in another tool's format (exporting.py) reads these instead of
exporting the bundle and reading it back whole: memory stays that of a chunk, whatever the
study's size. What the bundle decides is decided the same way here: submitted assignments
only, annotators named by their pseudonym for analysts (an evaluator keeps its key), and the
bundle's order (a document study's work in the order of what the file shows).
"""

from itertools import groupby

from accounts.models import Worker
from accounts.pseudonyms import pseudonyms_of
from annotations.models import Assignment
from protocols.span.models import ErrorAnnotation
from studies.batches import batched
from studies.models import Segment

CHUNK = 1000  # documents or assignments per query: their texts and spans are what is held


def category_items(study):
    """The taxonomy's categories (key, label, group) in the bundle's study.yaml order."""
    if study.taxonomy_id is None:
        return []
    return [
        {"key": key, "label": label, "group": group}
        for key, label, group in study.taxonomy.categories.all().values_list("key", "label", "group")
    ]


def documents(study):
    """(position, record) of each document in the bundle's order; a record has the id, the system,
    the meta and the segments' texts of its documents.jsonl line."""
    rows = study.documents.order_by("position", "id").values_list(
        "id", "position", "external_id", "system", "meta"
    )
    for chunk in batched(rows.iterator(chunk_size=CHUNK), CHUNK):
        texts = {}
        segments = Segment.objects.filter(document_id__in=[row[0] for row in chunk]).order_by(
            "document_id", "index"
        )
        for document_id, text in segments.values_list("document_id", "text"):
            texts.setdefault(document_id, []).append(text)
        for pk, position, external_id, system, meta in chunk:
            yield position, {"id": external_id, "system": system, "meta": meta, "segments": texts.get(pk, [])}


def assignment_groups(study, kinds, *, identities):
    """(position, [record]) for each document position that has submitted work of `kinds`: the
    records of its assignments.jsonl lines (document, annotator, kind, active_seconds, annotations)."""
    who = _annotators(study, identities)
    rows = (
        Assignment.objects.filter(study=study, status=Assignment.Status.SUBMITTED, kind__in=kinds)
        .order_by("document__position", "worker__platform", "worker__external_id", "kind", "id")
        .values_list(
            "id",
            "document__position",
            "document__external_id",
            "worker_id",
            "worker__external_id",
            "worker__platform",
            "kind",
            "active_seconds",
        )  # fmt: skip
    )
    for position, group in groupby(rows.iterator(chunk_size=CHUNK), key=lambda row: row[1]):
        group = [(row, who(row)) for row in group]
        if not identities:  # as the bundle sorts an analyst's: by what the file shows (a stable sort)
            group.sort(key=lambda pair: (*pair[1], pair[0][6]))
        records = []
        for chunk in batched(group, CHUNK):
            spans = _spans_of([row[0] for row, _ in chunk])
            for row, (annotator, _platform) in chunk:
                records.append({
                    "document": row[2], "annotator": annotator, "kind": row[6],
                    "active_seconds": row[7], "annotations": spans.get(row[0], []),
                })  # fmt: skip
        yield position, records


def paired_spans(study, kinds):
    """(category key, answers) of every paired span of the submitted work of `kinds`."""
    rows = ErrorAnnotation.objects.filter(
        assignment__study=study, assignment__status=Assignment.Status.SUBMITTED,
        assignment__kind__in=kinds, paired_segment__isnull=False,
    ).values_list("category__key", "answers")  # fmt: skip
    return rows.iterator(chunk_size=CHUNK * 10)


def _annotators(study, identities):
    """who(row) -> (annotator, platform) as the bundle names them (bundles/exporting.py)."""
    if identities:
        return lambda row: (row[4], row[5])
    pseudonym = pseudonyms_of(study.pk)

    def who(row):
        if row[5] == Worker.Platform.MODEL:  # an automatic evaluator keeps its key
            return row[4], Worker.Platform.MODEL.value
        return pseudonym(row[3]), Worker.Platform.IMPORT.value

    return who


def _spans_of(assignment_ids):
    """{assignment id: [the bundle's annotation items]} in the bundle's order of each one's spans."""
    rows = (
        ErrorAnnotation.objects.filter(assignment_id__in=assignment_ids)
        .order_by("assignment_id", "segment__index", "start", "end", "category__key", "id")
        .values_list(
            "assignment_id",
            "segment__index",
            "category__key",
            "start",
            "end",
            "text",
            "comment",
            "paired_segment__index",
            "paired_start",
            "paired_end",
            "paired_text",
            "answers",
        )  # fmt: skip
    )
    spans = {}
    for assignment_id, segment, category, start, end, text, comment, *paired, answers in rows:
        item = {"segment": segment, "category": category, "start": start, "end": end, "text": text,
                "comment": comment}  # fmt: skip
        if paired[0] is not None:
            item["paired"] = {"segment": paired[0], "start": paired[1], "end": paired[2], "text": paired[3]}
        if answers:
            item["answers"] = answers
        spans.setdefault(assignment_id, []).append(item)
    return spans
