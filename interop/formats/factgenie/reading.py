"""Reading factgenie campaigns (the format: interop/formats/factgenie/__init__.py)."""

from pathlib import Path

from interop.corpus import MAIN, MODEL, Annotation, Document, Region
from interop.shelf import Shelf

from ..jsonlines import json_file, json_lines, json_type
from ..offsets import CODE_POINTS, UTF16, Offsets, check_covered_text, is_offset, region_span

LLM_EVAL, CROWDSOURCING, EXTERNAL = "llm_eval", "crowdsourcing", "external"
KEY_FIELDS = ("dataset", "split", "setup_id", "example_idx")
DEFAULT_FILE = "annotations.jsonl"


def read(path, name, problems, *, outputs=None):
    """The outputs and every annotator's spans in a factgenie campaign folder or records file."""
    shelf = read_parts(path, name, problems, outputs=outputs)
    corpus = shelf.corpus()
    shelf.close()
    return corpus


def read_parts(path, name, problems, *, outputs=None):
    """The campaign as parts (interop/parts.py), an output with every annotator's annotation of it at
    a time, read once into a Shelf (interop/shelf.py), as are the texts of the outputs files."""
    path = Path(path)
    campaign = None
    if path.is_dir():
        campaign = _campaign(path / "metadata.json", f"{name}/metadata.json", problems)
        files = sorted((path / "files").glob("*.jsonl"))
        if not files:
            problems.add(name, 0, "the campaign has no files/*.jsonl of annotation records")
    else:
        metadata = path.parent.parent / "metadata.json"
        if path.parent.name == "files" and metadata.is_file():
            campaign = _campaign(metadata, "metadata.json", problems)
        files = [path]
    shelf = Shelf()
    if outputs:
        _outputs(outputs, problems, shelf)
    reading = _Reading(problems, campaign, shelf)
    for file in files:
        file_name = f"{name}/files/{file.name}" if path.is_dir() else name
        for line, record in json_lines(file, file_name, problems):
            reading.record(record, line, file_name, file.name if path.is_dir() else Path(name).name)
    return reading.corpus


def _campaign(path, name, problems):
    metadata = json_file(path, name, problems)
    if metadata is None:
        return None
    if not isinstance(metadata, dict):
        problems.add(name, 0, f"must hold a JSON object, not {json_type(metadata)}")
        return None
    if metadata.get("mode") not in (LLM_EVAL, CROWDSOURCING, EXTERNAL):
        problems.add(name, 0, f"campaign mode {metadata.get('mode')!r} holds no span annotations")
    # What is wrong is a problem; the rest (the mode above all: it says how offsets count) is still used.
    config = metadata.get("config", {})
    if not isinstance(config, dict):
        problems.add(name, 0, "'config' must be an object")
        return {**metadata, "config": {}}
    categories = config.get("annotation_span_categories")
    names = category_names(categories) if categories is not None else []
    if names is None or len(set(names)) != len(names):
        wrong = "must be a list of objects with a 'name'" if names is None else "name a category twice"
        problems.add(name, 0, f"config.annotation_span_categories {wrong}")
        return {**metadata, "config": {k: v for k, v in config.items() if k != "annotation_span_categories"}}
    return metadata


def category_names(categories):
    if not isinstance(categories, list):
        return None
    names = [category.get("name") if isinstance(category, dict) else None for category in categories]
    return names if all(isinstance(name, str) and name for name in names) else None


def _outputs(path, problems, shelf):
    """Each output text of factgenie's outputs files onto `shelf`, by its (dataset, split, setup_id,
    example_idx); of two with one key, the later."""
    path = Path(path)
    for file in sorted(path.rglob("*.jsonl")) if path.is_dir() else [path]:
        for line, record in json_lines(file, file.name, problems):
            key = tuple(record.get(field) for field in KEY_FIELDS)
            if not isinstance(record.get("output"), str) or None in key:
                problems.add(
                    file.name, line, "an output record needs dataset, split, setup_id, example_idx and output"
                )
                continue
            shelf.add_given_text(_key(*key), record["output"])


def _key(dataset, split, setup_id, example_idx):
    return (str(dataset), str(split), str(setup_id), str(example_idx))


def record_mode(campaign, record, metadata):
    """Who made a record, which says how its offsets count: LLM_EVAL (code points, a model's),
    CROWDSOURCING (the browser's UTF-16 units, a person's) or EXTERNAL (code points, a person's).

    The campaign's mode says it; without one (external campaigns, lone files, a metadata.json
    that cannot be read) the record does: factgenie copies the campaign's config into each
    record's metadata, and an LLM's names its model, a crowdsourcing one its service.
    """
    mode = (campaign or {}).get("mode")
    if mode in (LLM_EVAL, CROWDSOURCING):
        return mode
    if any(key in metadata for key in ("model", "prompt_template", "api_provider")):
        return LLM_EVAL
    crowd_keys = ("service", "examples_per_batch", "annotators_per_example", "idle_time")
    if "time_last_saved" in record or any(key in metadata for key in crowd_keys):
        return CROWDSOURCING
    return EXTERNAL


class _Reading:
    def __init__(self, problems, campaign, shelf):
        self.problems, self.campaign = problems, campaign
        self.corpus = shelf
        self.campaign_unit = UTF16 if (campaign or {}).get("mode") == CROWDSOURCING else CODE_POINTS
        config = (campaign or {}).get("config", {})
        self.categories = category_names(config.get("annotation_span_categories")) or []
        self.corpus.labels.extend(dict.fromkeys(self.categories))

    def record(self, record, line, file_name, file):
        def problem(message):
            self.problems.add(file_name, line, message)

        missing = [field for field in (*KEY_FIELDS, "annotations") if field not in record]
        if missing:
            problem(f"record: {', '.join(missing)} missing")
            return
        wrong = [field for field in KEY_FIELDS[:3] if not isinstance(record[field], str)]
        for field in wrong:
            problem(f"record: {field} {record[field]!r} is not text")
        if not is_offset(record["example_idx"]):
            problem(f"record: example_idx {record['example_idx']!r} is not a whole number")
            return
        if wrong:
            return
        key = _key(*(record[field] for field in KEY_FIELDS))
        document = self.document(record, key, line, file_name, problem)
        if document is None:
            return
        item = f"output {document.id!r}"
        metadata = record.get("metadata", {})
        if not isinstance(metadata, dict):
            problem(f"{item}: metadata must be an object, not {json_type(metadata)}")
            return
        annotator = metadata.get("annotator_id", record.get("annotator_id"))
        if annotator is None:
            annotator = metadata.get("campaign_id") or (self.campaign or {}).get("id") or Path(file).stem
        if not isinstance(annotator, str | int) or isinstance(annotator, bool) or str(annotator) == "":
            problem(f"{item}: annotator_id {annotator!r} names no annotator")
            return
        # A second record of one output by one annotator is their repeated annotation, which the import
        # keeps (interop/repeats.py).
        annotator = str(annotator)
        mode = record_mode(self.campaign, record, metadata)
        kind = MODEL if mode == LLM_EVAL else MAIN
        categories = category_names(metadata.get("annotation_span_categories")) or self.categories
        for category in categories:
            if category not in self.corpus.labels:
                self.corpus.labels.append(category)
        rest = {k: v for k, v in record.items() if k not in (*KEY_FIELDS, "annotations", "output", "text")}
        factgenie = {"file": file, "record": rest}
        if self.campaign is not None:
            factgenie["campaign"] = self.campaign
        if "text" in record and "output" not in record:
            factgenie["text_field"] = "text"
        elif "output" not in record:
            factgenie["no_text"] = True
        annotation = Annotation(
            document=document.id, annotator=annotator, kind=kind, meta={"factgenie": factgenie}
        )
        annotation.line, annotation.item = line, f"{item}, annotator {annotator!r}"
        spans = record["annotations"]
        if not isinstance(spans, list):
            problem(f"{item}: annotations must be a list, not {json_type(spans)}")
            return
        unit = UTF16 if mode == CROWDSOURCING else CODE_POINTS
        if unit != self.campaign_unit:
            factgenie["offsets"] = unit
        offsets = Offsets(document.text, unit)
        extras = []
        for number, span in enumerate(spans, start=1):
            region, extra = self.region(
                span, offsets, categories, f"{item}: annotation {number}", kind, problem
            )
            if region is not None:
                annotation.regions.append(region)
                extras.append(extra)
        if any(extras):
            factgenie["span_extra"] = extras
        self.corpus.add_annotation(annotation)

    def document(self, record, key, line, file_name, problem):
        identifier = "/".join(key)
        text = record.get("output", record.get("text"))
        if text is None:
            text = self.corpus.given_text(key)
            if text is None:
                problem(
                    f"output {identifier!r}: the record has no 'output' text and no outputs file gives it"
                    " (pass the factgenie outputs the campaign annotated)"
                )
                return None
        if not isinstance(text, str):
            problem(f"output {identifier!r}: 'output' must be text, not {json_type(text)}")
            return None
        known = self.corpus.known(identifier)
        if known is not None:
            if known[0].text != text:
                problem(f"output {identifier!r}: its text differs from the one on {known[1]} line {known[2]}")
                return None
            return known[0]
        dataset, split, setup_id, _ = key
        meta = {"dataset": record["dataset"], "split": record["split"], "setup_id": record["setup_id"]}
        meta["example_idx"] = record["example_idx"]
        document = Document(id=identifier, text=text, system=str(setup_id), meta=meta)
        document.line, document.item = line, f"output {identifier!r}"
        self.corpus.add_document(document, file_name, line)
        return document

    def region(self, span, offsets, categories, where, kind, problem):
        if not isinstance(span, dict):
            problem(f"{where}: must be an object, not {json_type(span)}")
            return None, None
        missing = [key for key in ("text", "start", "type") if key not in span]
        if missing:
            problem(f"{where}: {', '.join(missing)} missing")
            return None, None
        text, start, category, reason = span["text"], span["start"], span["type"], span.get("reason", "")
        placed = True
        if not isinstance(text, str) or not text.strip():
            problem(f"{where}: text {text!r} is not a stretch of the output")
            placed = False
        if not is_offset(category) or category < 0 or (categories and category >= len(categories)):
            known = f" (the campaign has {len(categories)} categories)" if categories else ""
            problem(f"{where}: type {category!r} is not a category index{known}")
            placed = False
        if not isinstance(reason, str):
            problem(f"{where}: reason must be text, not {json_type(reason)}")
            placed = False
        if not placed:
            return None, None
        if not is_offset(start):
            problem(f"{where}: start {start!r} is not a whole number")
            return None, None
        covered = text.strip() if kind == MODEL else text  # an LLM's start is where the stripped text begins
        span_range = region_span(
            offsets, start, start + Offsets(covered, offsets.unit).length, where, problem
        )
        if span_range is None:
            return None, None
        begin, end = span_range
        if not check_covered_text(
            offsets.text[begin:end], covered, where, problem, ignore_case=kind == MODEL
        ):
            return None, None
        label = categories[category] if categories else f"category {category}"
        extra = {k: v for k, v in span.items() if k not in ("text", "start", "type", "reason", "id")}
        if "reason" not in span:
            extra["no_reason"] = True
        identifier = span.get("id", "")
        if not isinstance(identifier, str):
            extra["id"] = identifier
            identifier = ""
        if label not in self.corpus.labels:
            self.corpus.labels.append(label)
        return Region(start=begin, end=end, label=label, text=text, id=identifier, note=reason), extra
