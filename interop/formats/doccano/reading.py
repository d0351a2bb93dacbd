"""Reading doccano's JSONL exports (the format: interop/formats/doccano/__init__.py)."""

from pathlib import Path

from interop.corpus import Annotation, Corpus, Document, Link, Region
from interop.shelf import Shelf

from ..jsonlines import json_lines, json_type
from ..offsets import UTF16, Offsets, is_offset, region_span, unit_named

ANNOTATOR_FIELDS = ("user", "annotator")
LABELLING_FIELDS = {
    "id",
    "text",
    "label",
    "labels",
    "entities",
    "relations",
    "annotations",
    "Comments",
    *ANNOTATOR_FIELDS,
}
# The labelling a line holds, by its key: doccano 1.x wrote "labels" (JSONL text label) or
# "annotations" (JSONL: label, offsets and user of each span); today's export "label" or "entities".
SHAPES = {
    "label": "label",
    "labels": "label",
    "entities": "entities",
    "relations": "entities",
    "annotations": "annotations",
}
WHOLE_PROJECT = "doccano"  # the annotator of a collaborative project's all.jsonl


def read(path, name, problems, *, offsets=UTF16):
    """The documents and each annotator's labels in a doccano export (a file or a folder of them)."""
    shelf = read_parts(path, name, problems, offsets=offsets)
    if shelf is None:
        return Corpus()
    corpus = shelf.corpus()
    shelf.close()
    return corpus


def read_parts(path, name, problems, *, offsets=UTF16):
    """The export as parts (interop/parts.py), a document with its annotations from every file at a
    time, read once into a Shelf (interop/shelf.py); None when `offsets` names no convention."""
    path = Path(path)
    unit = unit_named(offsets)
    if unit is None:
        problems.add(name, 0, f"offsets {offsets!r}: say utf-16 (doccano's own) or code-points")
        return None
    files = sorted(path.glob("*.jsonl")) if path.is_dir() else [path]
    if not files:
        problems.add(name, 0, "the folder holds no .jsonl file")
    reading = _Reading(Shelf(), problems, unit)
    for file in files:
        # A single file may be an upload kept under another name: its own name is `name`.
        file_name = f"{name}/{file.name}" if path.is_dir() else name
        for line, record in json_lines(file, file_name, problems):
            reading.line(record, line, file_name, annotator_from(file_name))
    return reading.corpus


def annotator_from(path):
    """Whose labels a file holds, by doccano's export naming ({username}.jsonl, all.jsonl)."""
    stem = Path(path).stem
    return WHOLE_PROJECT if stem in ("all", "") else stem


class _Reading:
    def __init__(self, corpus, problems, unit):
        self.corpus, self.problems, self.unit = corpus, problems, unit  # corpus: a Shelf

    def line(self, record, line, file_name, file_annotator):
        def problem(message):
            self.problems.add(file_name, line, message)

        document = self.document(record, line, file_name, problem)
        if document is None:
            return
        item = f"document {document.id!r}"
        doccano = {}
        annotator = file_annotator
        for field in ANNOTATOR_FIELDS:
            if field in record:
                value = record[field]
                if isinstance(value, bool) or not isinstance(value, str | int) or str(value) == "":
                    problem(f"{item}: {field} {value!r} names no annotator")
                    return
                annotator = str(value)
                doccano.update(annotator_field=field, annotator_value=value)
                break
        if "id" not in record:
            doccano["line_id"] = True
        keys = [key for key in SHAPES if key in record]
        if len({SHAPES[key] for key in keys}) > 1:
            problem(
                f"{item}: {' and '.join(repr(key) for key in keys)} are given; a doccano line has one of them"
            )
            return
        shape = SHAPES[keys[0]] if keys else "label"
        offsets = Offsets(document.text, self.unit)
        if shape == "annotations":
            self.per_user(record["annotations"], document, annotator, doccano, offsets, (line, item, problem))
            return
        # A second line of the same document and annotator is their repeated annotation: the import
        # keeps it (interop/repeats.py).
        annotation = Annotation(document=document.id, annotator=annotator, meta={"doccano": doccano})
        doccano["shape"] = shape
        if shape == "entities":
            self.entities(record, annotation, offsets, item, problem)
        else:
            if "labels" in record:
                doccano["label_key"] = "labels"
            self.labels(record.get(keys[0] if keys else "label", []), annotation, offsets, item, problem)
        self.add(annotation, record, line, item)

    def add(self, annotation, record, line, item):
        if "Comments" in record:
            annotation.meta["doccano"]["comments"] = record["Comments"]
        annotation.line, annotation.item = line, f"{item}, annotator {annotation.annotator!r}"
        self.corpus.add_annotation(annotation)

    def per_user(self, entries, document, file_annotator, doccano, offsets, at):
        """doccano 1.x's "annotations": every user's spans of the line, each naming its user."""
        line, item, problem = at
        if not isinstance(entries, list):
            problem(f"{item}: 'annotations' must be a list, not {json_type(entries)}")
            return
        annotations = {}
        for number, entry in enumerate(entries, start=1):
            where = f"{item}: annotation {number}"
            if not isinstance(entry, dict):
                problem(f"{where}: must be an object, not {json_type(entry)}")
                continue
            missing = [key for key in ("start_offset", "end_offset", "label") if key not in entry]
            if missing:
                problem(f"{where}: {', '.join(missing)} missing")
                continue
            user = entry.get("user", file_annotator)
            if isinstance(user, bool) or not isinstance(user, str | int) or str(user) == "":
                problem(f"{where}: user {user!r} names no annotator")
                continue
            annotation = annotations.get(str(user))
            if annotation is None:
                meta = {**doccano, "shape": "annotations", "user_value": user, "entries": []}
                annotation = Annotation(document=document.id, annotator=str(user), meta={"doccano": meta})
                annotations[str(user)] = annotation
            label = entry["label"]
            label = str(label) if is_offset(label) else label  # 1.x exported label ids, not names
            placed = self.region(
                annotation, offsets, entry["start_offset"], entry["end_offset"], label, "", where, problem
            )
            if placed:
                extra = {
                    k: v for k, v in entry.items() if k not in ("start_offset", "end_offset", "label", "user")
                }
                annotation.meta["doccano"]["entries"].append(
                    {"position": number - 1, "label": entry["label"], **extra}
                )
        # Nobody labelled the example: the file's annotator found nothing.
        if not annotations and entries == []:
            meta = {**doccano, "shape": "annotations", "entries": []}
            annotations[file_annotator] = Annotation(
                document=document.id, annotator=file_annotator, meta={"doccano": meta}
            )
        for annotation in annotations.values():
            self.add(annotation, {}, line, item)

    def document(self, record, line, file_name, problem):
        identifier = record.get("id", line)
        if isinstance(identifier, bool) or not isinstance(identifier, str | int) or str(identifier) == "":
            problem(f"line {line}: id {identifier!r} is not a number or a name")
            return None
        identifier, text = str(identifier), record.get("text")
        if not isinstance(text, str):
            problem(f"document {identifier!r}: 'text' is {'missing' if text is None else json_type(text)}")
            return None
        known = self.corpus.known(identifier)
        if known is not None:
            document, first_file, first_line = known
            if document.text != text:
                problem(
                    f"document {identifier!r}: its text differs from the one on {first_file} line {first_line}"
                )
                return None
            return document
        meta = {key: value for key, value in record.items() if key not in LABELLING_FIELDS}
        document = Document(id=identifier, text=text, meta=meta)
        document.line, document.item = line, f"document {identifier!r}"
        self.corpus.add_document(document, file_name, line)
        return document

    def labels(self, labels, annotation, offsets, item, problem):
        if not isinstance(labels, list):
            problem(f"{item}: 'label' must be a list of [start, end, label], not {json_type(labels)}")
            return
        for number, entry in enumerate(labels, start=1):
            where = f"{item}: label {number}"
            if not isinstance(entry, list) or len(entry) != 3:
                problem(f"{where}: must be [start, end, label], not {entry!r}")
                continue
            self.region(annotation, offsets, entry[0], entry[1], entry[2], "", where, problem)

    def entities(self, record, annotation, offsets, item, problem):
        entities, relations = record.get("entities", []), record.get("relations", [])
        for field, value in (("entities", entities), ("relations", relations)):
            if not isinstance(value, list):
                problem(f"{item}: '{field}' must be a list, not {json_type(value)}")
                return
        ids = {}
        for number, entity in enumerate(entities, start=1):
            where = f"{item}: entity {number}"
            if not isinstance(entity, dict):
                problem(f"{where}: must be an object, not {json_type(entity)}")
                continue
            missing = [key for key in ("start_offset", "end_offset", "label") if key not in entity]
            if missing:
                problem(f"{where}: {', '.join(missing)} missing")
                continue
            identifier = entity.get("id")
            if identifier is not None:
                if not is_offset(identifier) and not isinstance(identifier, str):
                    problem(f"{where}: id {identifier!r} is not a number or a name")
                    continue
                if str(identifier) in ids:
                    problem(f"{where}: id {identifier!r} is entity {ids[str(identifier)]}'s already")
                    continue
                ids[str(identifier)] = number
            region_id = "" if identifier is None else str(identifier)
            self.region(
                annotation,
                offsets,
                entity["start_offset"],
                entity["end_offset"],
                entity["label"],
                region_id,
                where,
                problem,
            )
        relation_ids, seen = [], set()
        for number, relation in enumerate(relations, start=1):
            where = f"{item}: relation {number}"
            if not isinstance(relation, dict):
                problem(f"{where}: must be an object, not {json_type(relation)}")
                continue
            missing = [key for key in ("from_id", "to_id", "type") if key not in relation]
            if missing:
                problem(f"{where}: {', '.join(missing)} missing")
                continue
            placed = True
            for key in ("from_id", "to_id"):
                if str(relation[key]) not in ids or isinstance(relation[key], bool | list | dict):
                    problem(f"{where}: {key} {relation[key]!r} is not the id of an entity of this line")
                    placed = False
            kind = relation["type"]
            if not isinstance(kind, str) or not kind:
                problem(f"{where}: type {kind!r} is not a relation label")
                placed = False
            if "id" in relation:
                if str(relation["id"]) in seen:
                    problem(f"{where}: id {relation['id']!r} is used twice")
                    placed = False
                seen.add(str(relation["id"]))
            if placed:
                annotation.links.append(
                    Link(source=str(relation["from_id"]), target=str(relation["to_id"]), label=kind)
                )
                relation_ids.append(relation.get("id"))
                if kind not in self.corpus.link_labels:
                    self.corpus.link_labels.append(kind)
        if relation_ids:
            annotation.meta["doccano"]["relation_ids"] = relation_ids

    def region(self, annotation, offsets, start, end, label, region_id, where, problem):
        if not isinstance(label, str) or not label:
            problem(f"{where}: label {label!r} is not a label name")
            return False
        span = region_span(offsets, start, end, where, problem)
        if span is None:
            return False
        annotation.regions.append(Region(start=span[0], end=span[1], label=label, id=region_id))
        if label not in self.corpus.labels:
            self.corpus.labels.append(label)
        return True
