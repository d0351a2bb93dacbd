"""Potato's annotation output for span tasks (docs/interop-formats.md).

Potato (1.x) keeps each annotator's work in ``<output_annotation_dir>/<user>/
annotated_instances.jsonl``, one instance a line::

    {"id": "inst_1", "displayed_text": "...", "label_annotations": {"certainty": {"certain": "true"}},
     "span_annotations": [{"start": 0, "end": 6, "span": "Potato", "annotation": "tool"}],
     "behavioral_data": {"time_string": "Time spent: 0d 0h 0m 42s "}}

and, with ``output_annotation_format: jsonl``, all of them in one
``annotated_instances.jsonl`` whose lines carry ``user_id`` and ``instance_id`` instead
of ``id``. ``path`` is either file or the output folder (its ``*/annotated_instances.jsonl``).
A per-user file's annotator is its folder's name (or the file's, when it is not named
annotated_instances.jsonl).

Offsets are code points: Potato's server finds them with Python ``len`` in the displayed
text with its span markup removed, so ``span`` must be the text they cover. A span's
label is ``annotation`` (``label`` or ``name``, as later versions call it, is read too);
``label_annotations`` and ``behavioral_data`` are kept for writing back, and the time
spent becomes the annotation's seconds. An instance whose spans are ``{}`` or ``[]``
found nothing. Potato 2's ``user_state.json`` and export files carry no text and are
not read.
"""

import json
import re
from pathlib import Path

from interop.corpus import Annotation, Document, Region
from interop.shelf import Shelf

from .jsonlines import json_lines, json_type
from .offsets import CODE_POINTS, Offsets, check_covered_text, region_span
from .spool import Files

FILE = "annotated_instances.jsonl"
LABEL_KEYS = ("annotation", "label", "name")
TEXT_KEYS = ("span", "text")
TIME_SPENT = re.compile(r"Time spent:\s*(\d+)d\s+(\d+)h\s+(\d+)m\s+(\d+)s")


def read(path, name, problems):
    """The instances and every annotator's spans in Potato's output (a file or the output folder)."""
    shelf = read_parts(path, name, problems)
    corpus = shelf.corpus()
    shelf.close()
    return corpus


def read_parts(path, name, problems):
    """The output as parts (interop/parts.py), an instance with every annotator's annotation of it
    at a time, read once into a Shelf (interop/shelf.py)."""
    path = Path(path)
    if path.is_dir():
        files = sorted(path.glob(f"*/{FILE}")) or sorted(path.glob(FILE))
        if not files:
            problems.add(name, 0, f"the folder holds no {FILE}, nor a folder per annotator with one")
    else:
        files = [path]
    reading = _Reading(problems)
    for file in files:
        file_name = f"{name}/{file.relative_to(path)}" if path.is_dir() else name
        reading_as = file if path.is_dir() else _named(name, file)
        for line, record in json_lines(file, file_name, problems):
            reading.record(record, line, file_name, annotator_from(reading_as))
    return reading.corpus


def annotator_from(path):
    """Whose instances a per-user file holds: its folder's name, or its own when renamed."""
    path = Path(path)
    return path.parent.name if path.name == FILE else path.stem


def _named(name, file):
    """A single file as its name says (an upload may be kept under another), with its folder
    when the name has none."""
    name = Path(name)
    return name if name.name != FILE or name.parent.name else file


def seconds_spent(behavioral_data):
    """Potato's "Time spent: 0d 0h 1m 5s" as seconds; 0 when it is not there."""
    time_string = behavioral_data.get("time_string") if isinstance(behavioral_data, dict) else None
    found = TIME_SPENT.search(time_string) if isinstance(time_string, str) else None
    if not found:
        return 0
    days, hours, minutes, seconds = (int(part) for part in found.groups())
    return ((days * 24 + hours) * 60 + minutes) * 60 + seconds


class _Reading:
    def __init__(self, problems):
        self.problems = problems
        self.corpus = Shelf()
        self.shapes = {}  # file name -> (the shape of its first line, that line)

    def record(self, record, line, file_name, file_annotator):
        def problem(message):
            self.problems.add(file_name, line, message)

        combined = "user_id" in record or "instance_id" in record
        shape = "an all-users line (user_id, instance_id)" if combined else "a per-user line (id)"
        first_shape = self.shapes.setdefault(file_name, (shape, line))
        if first_shape[0] != shape:
            problem(
                f"instance on line {line}: {shape} after {first_shape[0]} on line {first_shape[1]};"
                " Potato writes one shape to a file"
            )
            return
        id_key = "instance_id" if combined else "id"
        missing = [
            key
            for key in (id_key, "displayed_text") + (("user_id",) if combined else ())
            if key not in record
        ]
        if missing:
            problem(f"instance on line {line}: {', '.join(missing)} missing")
            return
        identifier, text = record[id_key], record["displayed_text"]
        if isinstance(identifier, bool) or not isinstance(identifier, str | int) or str(identifier) == "":
            problem(f"instance on line {line}: {id_key} {identifier!r} is not a name or a number")
            return
        identifier, item = str(identifier), f"instance {str(identifier)!r}"
        if not isinstance(text, str):
            problem(f"{item}: displayed_text must be text, not {json_type(text)}")
            return
        annotator = record["user_id"] if combined else file_annotator
        if not isinstance(annotator, str | int) or isinstance(annotator, bool) or str(annotator) == "":
            problem(f"{item}: user_id {annotator!r} names no annotator")
            return
        annotator = str(annotator)
        document = self.document(identifier, text, line, file_name, problem)
        if document is None:
            return
        # An instance annotated twice by one annotator is their repeated annotation, which the import
        # keeps (interop/repeats.py).
        ignored = {id_key, "displayed_text", "span_annotations", "user_id"}
        potato = {
            "shape": "all" if combined else "user",
            "record": {k: v for k, v in record.items() if k not in ignored},
        }
        for key, value in ((id_key, record[id_key]), ("user_id", record.get("user_id"))):
            if value is not None and not isinstance(value, str):  # a number, written back as one
                potato[f"{key}_value"] = value
        annotation = Annotation(
            document=identifier,
            annotator=annotator,
            seconds=seconds_spent(record.get("behavioral_data")),
            meta={"potato": potato},
        )
        annotation.line, annotation.item = line, f"{item}, annotator {annotator!r}"
        spans = record.get("span_annotations", [])
        if spans == {}:  # what Potato writes for an instance that has labels but no spans
            potato["spans"] = {}
        elif not isinstance(spans, list):
            problem(f"{item}: span_annotations must be a list, not {json_type(spans)}")
            return
        else:
            self.spans(spans, annotation, Offsets(text, CODE_POINTS), item, problem)
        self.corpus.add_annotation(annotation)

    def document(self, identifier, text, line, file_name, problem):
        known = self.corpus.known(identifier)
        if known is not None:
            if known[0].text != text:
                problem(
                    f"instance {identifier!r}: its displayed_text differs from the one on {known[1]} line {known[2]}"
                )
                return None
            return known[0]
        document = Document(id=identifier, text=text)
        document.line, document.item = line, f"instance {identifier!r}"
        self.corpus.add_document(document, file_name, line)
        return document

    def spans(self, spans, annotation, offsets, item, problem):
        extras = []
        for number, span in enumerate(spans, start=1):
            where = f"{item}: span {number}"
            if not isinstance(span, dict):
                problem(f"{where}: must be an object, not {json_type(span)}")
                continue
            label_key = next((key for key in LABEL_KEYS if key in span), None)
            missing = [key for key in ("start", "end") if key not in span] + (
                [] if label_key else ["annotation"]
            )
            if missing:
                problem(f"{where}: {', '.join(missing)} missing")
                continue
            label = span[label_key]
            if not isinstance(label, str) or not label:
                problem(f"{where}: {label_key} {label!r} is not a label name")
                continue
            placed = region_span(offsets, span["start"], span["end"], where, problem)
            if placed is None:
                continue
            start, end = placed
            text_key = next((key for key in TEXT_KEYS if key in span), None)
            given = span[text_key] if text_key else ""
            if text_key and not isinstance(given, str):
                problem(f"{where}: {text_key} must be text, not {json_type(given)}")
                continue
            if text_key and not check_covered_text(offsets.text[start:end], given, where, problem):
                continue
            annotation.regions.append(Region(start=start, end=end, label=label, text=given))
            if label not in self.corpus.labels:
                self.corpus.labels.append(label)
            extra = {k: v for k, v in span.items() if k not in ("start", "end", label_key, text_key)}
            if label_key != "annotation" or text_key != "span":
                extra["keys"] = [label_key, text_key]
            extras.append(extra)
        if any(extras):
            annotation.meta["potato"]["span_extra"] = extras


def write(corpus, path):
    """The corpus as Potato output: one ``annotated_instances.jsonl``, or (a path without suffix)
    the output folder with one ``<annotator>/annotated_instances.jsonl`` each.

    A single file is per-user when all its annotations are one annotator's (the one its
    name says) and were read that way, else the all-users shape. Documents nobody
    annotated are not written: Potato's output lists annotated instances only.
    """
    path = Path(path)
    if path.suffix:
        per_user = all(
            a.meta.get("potato", {}).get("shape", "user") == "user" and a.annotator == annotator_from(path)
            for a in corpus.annotations
        )
        with open(path, "w", encoding="utf-8") as handle:
            for document, annotation in corpus.with_documents():
                handle.write(_line(document, annotation, per_user))
        return
    with Files() as files:
        for document, annotation in corpus.with_documents():
            folder = path / (re.sub(r"[^\w.@+-]", "_", annotation.annotator).strip(".") or "annotator")
            if folder / FILE not in files.started:
                folder.mkdir(parents=True, exist_ok=True)
            files.write(folder / FILE, _line(document, annotation, True))


def _line(document, annotation, per_user):
    potato = annotation.meta.get("potato", {})

    def kept(key, value):  # a number the file gave, when it still says the same
        return potato.get(f"{key}_value", value) if str(potato.get(f"{key}_value")) == value else value

    if per_user:
        record = {"id": kept("id", document.id), "displayed_text": document.text}
    else:
        record = {
            "user_id": kept("user_id", annotation.annotator),
            "instance_id": kept("instance_id", document.id),
            "displayed_text": document.text,
        }
    rest = potato.get("record", {"label_annotations": {}, "behavioral_data": {}})
    if "label_annotations" in rest:
        record["label_annotations"] = rest["label_annotations"]
    extras = potato.get("span_extra", [])
    if len(extras) != len(annotation.regions):  # the regions were changed after reading
        extras = [{} for _ in annotation.regions]
    spans = []
    for region, extra in zip(annotation.regions, extras, strict=True):
        extra = dict(extra)
        label_key, text_key = extra.pop("keys", ("annotation", "span"))
        span = {"start": region.start, "end": region.end}
        if text_key:
            span[text_key] = region.text or document.text[region.start : region.end]
        span[label_key] = region.label
        span.update(extra)
        spans.append(span)
    record["span_annotations"] = potato["spans"] if "spans" in potato and not spans else spans
    record.update({k: v for k, v in rest.items() if k != "label_annotations"})
    return json.dumps(record) + "\n"  # as Potato writes it: ASCII, with \u escapes
