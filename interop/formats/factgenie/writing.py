"""Writing factgenie campaigns (the format: interop/formats/factgenie/__init__.py)."""

import json
import re
import shutil
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from interop.corpus import MODEL

from ..jsonlines import dump_line
from ..offsets import CODE_POINTS, UTF16, Offsets
from ..spool import Files
from .reading import CROWDSOURCING, DEFAULT_FILE, EXTERNAL, category_names

COLORS = ["rgb(214, 39, 40)", "rgb(148, 103, 189)", "rgb(230, 171, 2)", "rgb(102, 102, 102)", "rgb(31, 119, 180)",
          "rgb(44, 160, 44)", "rgb(255, 127, 14)", "rgb(23, 190, 207)"]  # fmt: skip
CATEGORY_NAME = re.compile(r"category (\d+)")  # the label a category without a name is read as


def write(corpus, path):
    """The corpus as factgenie records: a ``.jsonl`` file, or (any other path) a campaign folder.

    Every record carries its output text. A campaign folder gets the metadata.json the
    corpus was read with, or a new external campaign whose categories are the corpus's
    labels. A span's ``type`` indexes its record's own categories where the record names
    them (factgenie copies them into each record), else the campaign's; a label read as
    "category N" is index N. Documents nobody annotated are not written: a factgenie
    record is an annotator's work.
    """
    path = Path(path)
    campaign = next(
        (
            a.meta["factgenie"]["campaign"]
            for a in corpus.annotations
            if "campaign" in a.meta.get("factgenie", {})
        ),
        None,
    )
    if campaign is None:
        campaign = _new_campaign(corpus, path)
    categories = category_names(campaign.get("config", {}).get("annotation_span_categories")) or []
    unit = UTF16 if campaign.get("mode") == CROWDSOURCING else CODE_POINTS
    if path.suffix == ".jsonl":  # each record file's lines together, in the order of their first
        with tempfile.TemporaryDirectory(prefix="factgenie-") as spooled:
            spooled_as = {}
            with Files() as files:
                for record_file, line in _lines(corpus, categories, unit):
                    if record_file not in spooled_as:
                        spooled_as[record_file] = Path(spooled) / f"{len(spooled_as)}.jsonl"
                    files.write(spooled_as[record_file], line)
            with open(path, "wb") as handle:
                for spool in spooled_as.values():
                    with open(spool, "rb") as lines:
                        shutil.copyfileobj(lines, handle)
        return
    (path / "files").mkdir(parents=True, exist_ok=True)
    (path / "metadata.json").write_text(json.dumps(campaign, indent=4, ensure_ascii=False), encoding="utf-8")
    with Files() as files:
        for record_file, line in _lines(corpus, categories, unit):
            files.write(path / "files" / Path(record_file).name, line)


def _lines(corpus, categories, unit):
    """(record file, its line) for each annotation, in the corpus's order."""
    for document, annotation in corpus.with_documents():
        factgenie = annotation.meta.get("factgenie", {})
        record_unit = factgenie.get("offsets", unit)  # e.g. a crowdsourcing record outside its campaign
        yield factgenie.get("file", DEFAULT_FILE), _record(document, annotation, categories, record_unit)


def _new_campaign(corpus, path):
    """An external campaign: factgenie opens one without the db.csv its own campaigns keep."""
    names = [label for label in corpus.labels if not CATEGORY_NAME.fullmatch(label)]
    categories = [
        {"name": label, "color": COLORS[number % len(COLORS)], "description": ""}
        for number, label in enumerate(names)
    ]
    created = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S")
    return {
        "id": path.stem,
        "mode": EXTERNAL,
        "config": {"annotation_span_categories": categories},
        "created": created,
    }


def _record(document, annotation, categories, unit):
    factgenie = annotation.meta.get("factgenie", {})
    meta = document.meta
    record = {
        "dataset": meta.get("dataset", document.id),
        "split": meta.get("split", ""),
        "setup_id": meta.get("setup_id", document.system),
        "example_idx": meta.get("example_idx", 0),
    }
    if not factgenie.get("no_text"):
        record[factgenie.get("text_field", "output")] = document.text
    rest = dict(factgenie.get("record", {}))
    metadata = rest.get("metadata")
    if isinstance(metadata, dict):
        categories = category_names(metadata.get("annotation_span_categories")) or categories
    if "record" not in factgenie:
        rest["metadata"] = {"annotator_id": annotation.annotator}
        if annotation.kind == MODEL:  # how a record of an external campaign says it is an LLM's
            rest["metadata"]["model"] = annotation.annotator
    record.update(rest)
    offsets = Offsets(document.text, unit)
    extras = factgenie.get("span_extra", [])
    if len(extras) != len(annotation.regions):  # the regions were changed after reading
        extras = [{} for _ in annotation.regions]
    spans = []
    for region, extra in zip(annotation.regions, extras, strict=True):
        extra = dict(extra)
        span = {"text": region.text or document.text[region.start : region.end]}
        span["start"] = offsets.from_code_points(region.start)
        span["type"] = _category_index(region.label, categories)
        if not extra.pop("no_reason", False):
            span["reason"] = region.note
        if region.id:
            span["id"] = region.id
        span.update(extra)
        spans.append(span)
    record["annotations"] = spans
    return dump_line(record)


def _category_index(label, categories):
    if label in categories:
        return categories.index(label)
    numbered = CATEGORY_NAME.fullmatch(label)
    return int(numbered.group(1)) if numbered else len(categories)
