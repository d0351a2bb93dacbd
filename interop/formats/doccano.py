"""doccano's JSONL exports of sequence-labelling projects (docs/interop-formats.md).

One JSON object a line, in either of the two shapes doccano's export writes:

- without relations: ``{"id": 1, "text": "...", "label": [[0, 2, "ORG"]], "Comments": [...]}``
- with relations: ``{"id": 1, "text": "...", "entities": [{"id": 7, "label": "ORG",
  "start_offset": 0, "end_offset": 2}], "relations": [{"id": 3, "from_id": 7, "to_id": 8,
  "type": "worksFor"}], "Comments": [...]}``

Every other field of a line is the example's own metadata (doccano spreads it into the
line) and is kept in ``Document.meta``. A line without ``id`` is numbered by its line.

Annotators: doccano exports one ``{username}.jsonl`` per member (unless the project is
collaborative, when it writes one ``all.jsonl``). ``path`` may be such a file or the
folder of them: a file's name is its annotator ("all" is the project as a whole, named
"doccano"), unless a line carries a ``user`` or ``annotator`` field, which wins.

Offsets: doccano's annotation page counts UTF-16 code units (JavaScript string
indices: an emoji outside the Basic Multilingual Plane counts two), so they are converted
to code points here and back on writing. A file made by a script that counts code points
(Python ``len``) is read with ``offsets=CODE_POINTS``. Projects with "count grapheme
clusters as one character" switched on count graphemes, which is not read.
"""

import re
from pathlib import Path

from interop.corpus import Annotation, Corpus, Document, Link, Region

from .jsonlines import dump_line, json_lines, json_type
from .offsets import CODE_POINTS, UTF16, Offsets, is_offset, region_span, unit_named

__all__ = ["read", "write", "CODE_POINTS", "UTF16"]

ANNOTATOR_FIELDS = ("user", "annotator")
LABELLING_FIELDS = {"id", "text", "label", "entities", "relations", "Comments", *ANNOTATOR_FIELDS}
WHOLE_PROJECT = "doccano"  # the annotator of a collaborative project's all.jsonl


def read(path, name, problems, *, offsets=UTF16):
    """The documents and each annotator's labels in a doccano export (a file or a folder of them)."""
    path = Path(path)
    unit = unit_named(offsets)
    if unit is None:
        problems.add(name, 0, f"offsets {offsets!r}: say utf-16 (doccano's own) or code-points")
        return Corpus()
    files = sorted(path.glob("*.jsonl")) if path.is_dir() else [path]
    if not files:
        problems.add(name, 0, "the folder holds no .jsonl file")
    reading = _Reading(Corpus(), problems, unit)
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
        self.corpus, self.problems, self.unit = corpus, problems, unit
        self.documents = {}  # id -> (Document, file, line)
        self.seen = {}  # (document id, annotator) -> line

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
        first = self.seen.setdefault((document.id, annotator), line)
        if first != line:
            problem(f"{item}: annotator {annotator!r} labels it twice (first on line {first})")
            return
        has_label, has_entities = "label" in record, "entities" in record or "relations" in record
        if has_label and has_entities:
            problem(f"{item}: both 'label' and 'entities' are given; a doccano line has one of them")
            return
        annotation = Annotation(document=document.id, annotator=annotator, meta={"doccano": doccano})
        offsets = Offsets(document.text, self.unit)
        if has_entities:
            doccano["shape"] = "entities"
            self.entities(record, annotation, offsets, item, problem)
        else:
            doccano["shape"] = "label"
            self.labels(record.get("label", []), annotation, offsets, item, problem)
        if "Comments" in record:
            doccano["comments"] = record["Comments"]
        annotation.line, annotation.item = line, f"{item}, annotator {annotator!r}"
        self.corpus.annotations.append(annotation)

    def document(self, record, line, file_name, problem):
        identifier = record.get("id", line)
        if isinstance(identifier, bool) or not isinstance(identifier, str | int) or str(identifier) == "":
            problem(f"line {line}: id {identifier!r} is not a number or a name")
            return None
        identifier, text = str(identifier), record.get("text")
        if not isinstance(text, str):
            problem(f"document {identifier!r}: 'text' is {'missing' if text is None else json_type(text)}")
            return None
        known = self.documents.get(identifier)
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
        self.documents[identifier] = (document, file_name, line)
        self.corpus.documents.append(document)
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
            return
        span = region_span(offsets, start, end, where, problem)
        if span is None:
            return
        annotation.regions.append(Region(start=span[0], end=span[1], label=label, id=region_id))
        if label not in self.corpus.labels:
            self.corpus.labels.append(label)


def write(corpus, path, *, offsets=UTF16):
    """The corpus as doccano JSONL: a file, or (a path without suffix) a folder of {annotator}.jsonl.

    Each annotation is written in the shape it was read in (entities and relations
    when it was not read from doccano); a document nobody labelled is written once,
    with no labels.
    """
    path, offsets = Path(path), unit_named(offsets) or UTF16
    documents = {document.id: document for document in corpus.documents}
    if path.suffix:
        lines = [_line(documents[a.document], a, path, offsets) for a in corpus.annotations]
        labelled = {annotation.document for annotation in corpus.annotations}
        lines += [_unlabelled(d) for d in corpus.documents if d.id not in labelled]
        path.write_text("".join(lines), encoding="utf-8")
        return
    path.mkdir(parents=True, exist_ok=True)
    files = {}
    for annotation in corpus.annotations:
        file = path / f"{_file_stem(annotation.annotator)}.jsonl"
        files.setdefault(file, []).append(_line(documents[annotation.document], annotation, file, offsets))
    for file, lines in files.items():
        file.write_text("".join(lines), encoding="utf-8")


def _file_stem(annotator):
    stem = re.sub(r"[^\w.@+-]", "_", annotator).strip(".")
    return "all" if annotator == WHOLE_PROJECT else stem or "annotator"


def _line(document, annotation, file, unit):
    doccano = annotation.meta.get("doccano", {})
    record = {} if doccano.get("line_id") else {"id": _identifier(document.id)}
    record["text"] = document.text
    record.update(document.meta)
    if annotator_from(file) != annotation.annotator or "annotator_field" in doccano:
        value = doccano.get("annotator_value")
        field = doccano.get("annotator_field", "user")
        record[field] = (
            value if value is not None and str(value) == annotation.annotator else annotation.annotator
        )
    offsets = Offsets(document.text, unit)
    if doccano.get("shape") == "label":
        record["label"] = [
            [offsets.from_code_points(r.start), offsets.from_code_points(r.end), r.label]
            for r in annotation.regions
        ]
    else:
        record.update(_entities(annotation, offsets, doccano.get("relation_ids", [])))
    if "comments" in doccano:
        record["Comments"] = doccano["comments"]
    return dump_line(record)


def _entities(annotation, offsets, relation_ids):
    written, used = {}, {str(region.id) for region in annotation.regions if region.id}
    entities, next_id = [], 0
    for region in annotation.regions:
        identifier = region.id
        if not identifier:
            while str(next_id) in used:
                next_id += 1
            identifier = str(next_id)
            used.add(identifier)
        written[region.id or identifier] = _identifier(identifier)
        entities.append(
            {
                "id": _identifier(identifier),
                "label": region.label,
                "start_offset": offsets.from_code_points(region.start),
                "end_offset": offsets.from_code_points(region.end),
            }
        )
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
    return dump_line(
        {
            "id": _identifier(document.id),
            "text": document.text,
            **document.meta,
            "entities": [],
            "relations": [],
        }
    )


def _identifier(value):
    """doccano's ids are numbers: a name made of digits is written back as one."""
    return int(value) if isinstance(value, str) and value.isdigit() and value == str(int(value)) else value
