"""A span study as a corpus, for a format to write: the study's bundle export read back.

Going through the bundle export keeps one answer to "who may see which
annotator name" (pseudonyms for analysts, bundles/exporting.py) and to which
assignments leave the platform (submitted ones).
"""

import json
import tempfile
from pathlib import Path

import yaml

from bundles.services import study_export_bundle

from . import corpus as c
from .categories import file_label
from .links import LINK_ANSWER, RELATION_GROUP
from .segmenting import join_segments, segment_starts

SEGMENT_SEPARATOR = "\n\n"  # between the segments of a study that was not imported from a file
# People's, experts' and evaluators' work, and their retests: a retest of a document is a second
# annotation of it by the same annotator, as a repeated annotation of an imported file became one
# (importing.py, repeats). Qualification rounds are the platform's own.
WRITTEN_KINDS = (c.MAIN, c.GOLD, c.MODEL)
RETEST = "retest"  # Assignment.Kind.RETEST


class NotSpans(ValueError):
    """Only span studies have spans to write."""


def study_corpus(study, *, fmt, identities=True):
    """The study's documents (whole texts), annotations and links; the file's own fields
    (task ids, other data fields) where the study was imported from format `fmt`."""
    if study.protocol != "span":
        raise NotSpans(
            f"study '{study.slug}' is a {study.protocol} study; only span studies can be exported as spans"
        )
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
    # A retest is written as the annotator's further annotation of the document, of the kind of their
    # first one (main, gold, model). The bundle lists it after that one (bundles/exporting.py), so
    # importing the file again gives the same main annotation and retests.
    first_kind = {}
    for record in assignments:
        if record.get("kind", c.MAIN) != RETEST:
            first_kind.setdefault((record["document"], record["annotator"]), record.get("kind", c.MAIN))
    # A category that some link was imported into is a relation for its spans made on the platform too.
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
    # A relation category's label names links, not regions (unless a region of it was made too).
    corpus.labels = [
        label for key, label in label_of.items() if key not in relation_keys or key in region_keys
    ]
    corpus.link_labels = [label for label in link_labels if label]
    return corpus


def _is_relation(item, relation_keys=()):
    """A paired span that stands for a link between two regions, not for two regions of its category:
    as imported, or (a span made on the platform) by its category."""
    kept = (item.get("answers") or {}).get(LINK_ANSWER)
    if not item.get("paired"):
        return False
    return kept.get("relation") is True if isinstance(kept, dict) else item["category"] in relation_keys


def _jsonl(path):
    if not path.is_file():
        return []
    with open(path, encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def _annotation(record, starts, label_of, relation_keys, link_labels):
    kind = record.get("kind", c.MAIN)
    annotation = c.Annotation(
        document=record["document"], annotator=record["annotator"],
        kind=kind, seconds=record.get("active_seconds", 0),
    )  # fmt: skip
    ids = {}

    def region(segment, start, end, text, label, note=""):
        at = (starts[segment] + start, starts[segment] + end, label)
        if at not in ids:  # one region for a stretch that two spans share (a pair of two links)
            ids[at] = f"r{len(ids) + 1}"
            annotation.regions.append(
                c.Region(start=at[0], end=at[1], label=label, text=text, id=ids[at], note=note)
            )
        return ids[at]

    def end_of(segment, start, end, text, label):
        """The region a relation's end is: the one of this label at these offsets, else any
        region at them, else a new one of this label (a relation made on the platform)."""
        offsets = (starts[segment] + start, starts[segment] + end)
        if (*offsets, label) not in ids:
            label = next((at[2] for at in ids if at[:2] == offsets), label)
        return region(segment, start, end, text, label)

    relations = []
    for item in record.get("annotations", []):
        if _is_relation(item, relation_keys):
            relations.append(item)  # after every region, which its ends name
            continue
        label = label_of.get(item["category"], item["category"])
        span = region(
            item["segment"], item["start"], item["end"], item.get("text", ""), label, item.get("comment", "")
        )
        paired = item.get("paired")
        if not paired:
            continue
        pair = region(paired["segment"], paired["start"], paired["end"], paired.get("text", ""), label)
        annotation.links.append(_link(item, span, pair, link_labels))
    for item in relations:
        kept = (item.get("answers") or {}).get(LINK_ANSWER) or {}
        relation = label_of.get(item["category"], item["category"])
        from_span = kept.get("source", "span") == "span"
        span_label = kept.get("source_label" if from_span else "target_label")
        pair_label = kept.get("target_label" if from_span else "source_label")
        paired = item["paired"]
        span = end_of(item["segment"], item["start"], item["end"], item.get("text", ""),
                      span_label if isinstance(span_label, str) else relation)  # fmt: skip
        pair = end_of(paired["segment"], paired["start"], paired["end"], paired.get("text", ""),
                      pair_label if isinstance(pair_label, str) else relation)  # fmt: skip
        annotation.links.append(_link(item, span, pair, link_labels, unlabelled=relation))
    return annotation


def _link(item, span, pair, link_labels, unlabelled=""):
    """The link a paired span keeps in its answers (a span made on the platform: from the span
    to its pair, labelled `unlabelled`)."""
    kept = dict((item.get("answers") or {}).get(LINK_ANSWER) or {})
    for key in ("relation", "source_label", "target_label"):
        kept.pop(key, None)
    from_span = kept.pop("source", "span") == "span"
    link_label = kept.pop("label", unlabelled)
    link_labels[link_label] = True
    return c.Link(
        source=span if from_span else pair, target=pair if from_span else span, label=link_label, meta=kept
    )
