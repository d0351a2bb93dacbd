"""The corpus of a span study as the export built it before it was streamed: the study's bundle
exported to a folder and read back whole (interop/exporting.py at commit f4c42be).

Kept as the reference the streamed export (interop.exporting.StudyCorpus) must equal: the same
files, byte for byte, from the same writers.
"""

import json
import tempfile
from pathlib import Path

import yaml

from bundles.services import study_export_bundle
from interop import corpus as c
from interop.categories import file_label
from interop.exporting import RETEST, SEGMENT_SEPARATOR, WRITTEN_KINDS, _annotation, _is_relation
from interop.links import RELATION_GROUP
from interop.segmenting import join_segments, segment_starts


def bundle_corpus(study, *, fmt, identities=True):
    with tempfile.TemporaryDirectory(prefix="interop-export-") as directory:
        study_export_bundle(study=study, directory=directory, identities=identities)
        directory = Path(directory)
        settings = yaml.safe_load((directory / "study.yaml").read_text(encoding="utf-8"))
        documents = _jsonl(directory / "documents.jsonl")
        assignments = _jsonl(directory / "assignments.jsonl")
    categories = (settings.get("taxonomy") or {}).get("categories") or []
    label_of = {item["key"]: file_label(item["key"], item["label"]) for item in categories}
    relation_keys = {item["key"] for item in categories if item.get("group") == RELATION_GROUP}
    corpus = c.Corpus()
    starts_of = {}
    for record in documents:
        kept = (record.get("meta") or {}).get("interop") or {}
        segments = record["segments"]
        separators = kept.get("separators")
        if not isinstance(separators, list) or len(separators) != len(segments) + 1:
            separators = ["", *[SEGMENT_SEPARATOR] * (len(segments) - 1), ""]
        starts_of[record["id"]] = segment_starts(segments, separators)
        corpus.documents.append(
            c.Document(
                id=record["id"],
                text=join_segments(segments, separators),
                system=record.get("system", ""),
                meta=(kept.get("meta") or {}) if kept.get("format") == fmt else {},
            )  # fmt: skip
        )
    assignments = [
        record for record in assignments
        if record.get("document") in starts_of and record.get("kind", c.MAIN) in (*WRITTEN_KINDS, RETEST)
    ]  # fmt: skip
    first_kind = {}
    for record in assignments:
        if record.get("kind", c.MAIN) != RETEST:
            first_kind.setdefault((record["document"], record["annotator"]), record.get("kind", c.MAIN))
    relation_keys.update(
        item["category"]
        for record in assignments
        for item in record.get("annotations", [])
        if _is_relation(item)
    )
    link_labels, region_keys = {}, set()
    for record in assignments:
        spans = (item for item in record.get("annotations", []) if not _is_relation(item, relation_keys))
        region_keys.update(item["category"] for item in spans)
        annotation = _annotation(record, starts_of[record["document"]], label_of, relation_keys, link_labels)
        if annotation.kind == RETEST:
            annotation.kind = first_kind.get((annotation.document, annotation.annotator), c.MAIN)
        corpus.annotations.append(annotation)
    corpus.labels = [
        label for key, label in label_of.items() if key not in relation_keys or key in region_keys
    ]
    corpus.link_labels = [label for label in link_labels if label]
    return corpus


def _jsonl(path):
    if not path.is_file():
        return []
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]
