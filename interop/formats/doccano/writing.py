"""Writing doccano's JSONL exports (the format: interop/formats/doccano/__init__.py)."""

import re
from pathlib import Path

from ..jsonlines import dump_line
from ..offsets import UTF16, Offsets, unit_named
from ..spool import Files
from .reading import WHOLE_PROJECT, annotator_from


def write(corpus, path, *, offsets=UTF16):
    """The corpus as doccano JSONL: a file, or (a path without suffix) a folder of {annotator}.jsonl.

    Each annotation is written in the shape it was read in (entities and relations
    when it was not read from doccano); a document nobody labelled is written once,
    with no labels, after the labelled ones. Lines are written as the corpus is walked.
    """
    path, offsets = Path(path), unit_named(offsets) or UTF16
    if path.suffix:
        with open(path, "w", encoding="utf-8") as handle:
            lines = _Lines(handle.write, path, offsets)
            for document, annotation in corpus.with_documents():
                lines.add(document, annotation)
            lines.finish()
            for document, annotations in corpus.by_document():
                if not annotations:
                    handle.write(dump_line(_unlabelled(document)))
        return
    path.mkdir(parents=True, exist_ok=True)
    with Files() as files:
        writers = {}
        for document, annotation in corpus.with_documents():
            file = path / f"{_file_stem(annotation.annotator)}.jsonl"
            if file not in writers:
                writers[file] = _Lines(lambda text, file=file: files.write(file, text), file, offsets)
            writers[file].add(document, annotation)
        for lines in writers.values():
            lines.finish()


class _Lines:
    """A file's lines: one per annotation, but one per document for doccano 1.x's "annotations"
    (all users'), which later annotations of its document add to. A line is written when it is
    made, unless such a shared line waits before it (then the rest waits until finish)."""

    def __init__(self, write, file, unit):
        self.write, self.file, self.unit = write, file, unit
        self.waiting, self.shared = [], {}

    def add(self, document, annotation):
        if annotation.meta.get("doccano", {}).get("shape") != "annotations":
            self._put(_line(document, annotation, self.file, self.unit))
        elif document.id in self.shared:
            self.shared[document.id]["annotations"].extend(_entries(document, annotation, self.unit))
        else:
            self.shared[document.id] = _line(document, annotation, self.file, self.unit)
            self.waiting.append(self.shared[document.id])

    def _put(self, record):
        if self.waiting:
            self.waiting.append(record)
        else:
            self.write(dump_line(record))

    def finish(self):
        for record in self.shared.values():
            record["annotations"] = [
                entry for _, entry in sorted(record["annotations"], key=lambda pair: pair[0])
            ]
        for record in self.waiting:
            self.write(dump_line(record))
        self.waiting, self.shared = [], {}


def _file_stem(annotator):
    stem = re.sub(r"[^\w.@+-]", "_", annotator).strip(".")
    return "all" if annotator == WHOLE_PROJECT else stem or "annotator"


def _line(document, annotation, file, unit):
    doccano = annotation.meta.get("doccano", {})
    record = {} if doccano.get("line_id") else {"id": _identifier(document.id)}
    record["text"] = document.text
    record.update(document.meta)
    per_user_entries = doccano.get("shape") == "annotations"  # each entry names its user
    if not per_user_entries and (
        annotator_from(file) != annotation.annotator or "annotator_field" in doccano
    ):
        value = doccano.get("annotator_value")
        field = doccano.get("annotator_field", "user")
        record[field] = (
            value if value is not None and str(value) == annotation.annotator else annotation.annotator
        )
    offsets = Offsets(document.text, unit)
    if doccano.get("shape") == "annotations":
        record["annotations"] = _entries(document, annotation, unit)  # (position, entry), sorted later
    elif doccano.get("shape") == "label":
        record[doccano.get("label_key", "label")] = [
            [offsets.from_code_points(r.start), offsets.from_code_points(r.end), r.label]
            for r in annotation.regions
        ]
    else:
        record.update(_entities(annotation, offsets, doccano.get("relation_ids", [])))
    if "comments" in doccano:
        record["Comments"] = doccano["comments"]
    return record


def _entries(document, annotation, unit):
    """(position in the line, entry) for each region, as doccano 1.x's "annotations" held them."""
    doccano, offsets = annotation.meta.get("doccano", {}), Offsets(document.text, unit)
    kept = doccano.get("entries", [])
    if len(kept) != len(annotation.regions):  # the regions were changed after reading
        kept = [{} for _ in annotation.regions]
    user = doccano.get("user_value", annotation.annotator)
    if str(user) != annotation.annotator:
        user = annotation.annotator
    entries = []
    for number, (region, entry) in enumerate(zip(annotation.regions, kept, strict=True)):
        entry = dict(entry)
        position = entry.pop("position", float("inf"))
        label = entry.pop("label", region.label)
        written = {
            "label": label if str(label) == region.label else region.label,
            "start_offset": offsets.from_code_points(region.start),
            "end_offset": offsets.from_code_points(region.end),
            "user": user,
            **entry,
        }
        entries.append(((position, number), written))
    return entries


def _entities(annotation, offsets, relation_ids):
    # doccano's ids are numbers: regions keep theirs when all are numbers, else are numbered 0, 1, ...
    keep = all(region.id.isdigit() for region in annotation.regions)
    numbers = [_identifier(region.id) if keep else n for n, region in enumerate(annotation.regions)]
    written = {
        region.id: number for region, number in zip(annotation.regions, numbers, strict=True) if region.id
    }
    entities = [
        {
            "id": number,
            "label": region.label,
            "start_offset": offsets.from_code_points(region.start),
            "end_offset": offsets.from_code_points(region.end),
        }
        for region, number in zip(annotation.regions, numbers, strict=True)
    ]
    if len(relation_ids) != len(annotation.links):
        relation_ids = list(range(len(annotation.links)))
    relations = []
    for identifier, link in zip(relation_ids, annotation.links, strict=True):
        relation = {} if identifier is None else {"id": identifier}
        relation.update(
            from_id=written.get(link.source, _identifier(link.source)),
            to_id=written.get(link.target, _identifier(link.target)),
            type=link.label,
        )
        relations.append(relation)
    return {"entities": entities, "relations": relations}


def _unlabelled(document):
    return {
        "id": _identifier(document.id),
        "text": document.text,
        **document.meta,
        "entities": [],
        "relations": [],
    }


def _identifier(value):
    """doccano's ids are numbers: a name made of digits is written back as one."""
    return int(value) if isinstance(value, str) and value.isdigit() and value == str(int(value)) else value
