"""A corpus read from another tool's file, written as a study bundle for bundles.importing.

Everything a bundle cannot say is checked here first, against the file's own
items (a span across a segment border, a link between two labels, a label
the taxonomy lacks); what the bundle's checks find afterwards is named by the
file's items too (`BundleLines.translate`). Links are kept in the paired
span's `answers` (docs/decisions.md, "Links of imported files").
"""

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from bundles.problems import Problem
from bundles.reading import plain

from . import corpus as c
from .categories import LABEL_LENGTH, keys_for
from .segmenting import SpanOutside, segment_document

LINK_ANSWER = "interop_link"  # the key of a paired span's answers that keeps the file's link
PLATFORM_OF = {c.MAIN: "import", c.GOLD: "expert", c.MODEL: "model"}
STUDY_FIELDS = (
    "title",
    "instructions",
    "status",
    "annotators_per_document",
    "max_documents_per_worker",
    "config",
)


@dataclass
class BundleLines:
    """Which corpus item each line of the written bundle came from, to name a later problem by it."""

    name: str
    settings_file: str
    documents: dict = field(default_factory=dict)  # documents.jsonl line -> Document
    assignments: dict = field(default_factory=dict)  # assignments.jsonl line -> Annotation

    def translate(self, problem):
        if problem.file == "documents.jsonl" and problem.line in self.documents:
            item = self.documents[problem.line]
            return Problem(self.name, item.line, f"{item.item or 'document ' + item.id}: {problem.message}")
        if problem.file == "assignments.jsonl" and problem.line in self.assignments:
            item = self.assignments[problem.line]
            return Problem(self.name, item.line, f"{item.item or 'annotation'}: {problem.message}")
        # study.yaml was written here: its lines are not the given file's, so the file as a whole.
        return Problem(self.settings_file, 0, problem.message)


def write_corpus_bundle(corpus, directory, *, name, fmt, slug, problems, settings=None, settings_name="",
                        sentences_per_segment=None):  # fmt: skip
    """Write `corpus` (read from file `name` in format `fmt`) as a bundle in `directory`.

    `settings` is a study.yaml read with bundles.reading.read_yaml (its taxonomy, title,
    instructions, config), or None: a taxonomy of the labels found. Problems are added
    as `name:line: item: message`; the returned BundleLines names the bundle's own.
    """
    directory = Path(directory)
    lines = BundleLines(name=name, settings_file=settings_name or name)
    segmented = _documents(corpus, name, sentences_per_segment, problems)
    paired_labels = _linked_labels(corpus)
    if settings is not None:
        study, categories = _given_study(settings, corpus, paired_labels, settings_name, problems)
    else:
        study, categories = _found_study(corpus, name, paired_labels)
    study = {"slug": slug, "protocol": "span", **study}
    if settings is None:
        study["taxonomy"]["slug"] = slug  # the study's own labels: one taxonomy per study
    records = _assignments(corpus, segmented, categories, name, problems)
    if not categories and settings is None:
        problems.add(
            name,
            0,
            "the file uses no label, so there is no category to make; give the categories with --taxonomy",
        )
    if problems:
        return lines
    if "annotators_per_document" not in study:
        study["annotators_per_document"] = _annotators_per_document(corpus)
    (directory / "study.yaml").write_text(
        yaml.safe_dump(study, sort_keys=False, allow_unicode=True), encoding="utf-8"
    )
    with open(directory / "documents.jsonl", "w", encoding="utf-8") as handle:
        for number, document in enumerate(corpus.documents, start=1):
            cut = segmented[document.id]
            record = {
                "id": document.id, "system": document.system, "segments": cut.segments,
                "sentences": cut.sentences,
                "meta": {"interop": {"format": fmt, "separators": cut.separators, "meta": document.meta}},
            }  # fmt: skip
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
            lines.documents[number] = document
    with open(directory / "assignments.jsonl", "w", encoding="utf-8") as handle:
        for number, (annotation, record) in enumerate(records, start=1):
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
            lines.assignments[number] = annotation
    return lines


def _documents(corpus, name, sentences_per_segment, problems):
    segmented = {}
    for document in corpus.documents:
        where = document.item or f"document {document.id}"
        if document.id in segmented:
            problems.add(name, document.line, f"{where}: document id {document.id!r} is given twice")
            continue
        cut = segment_document(document.text, sentences_per_segment)
        if cut is None:
            problems.add(name, document.line, f"{where}: the text is empty")
            continue
        segmented[document.id] = cut
    return segmented


def _linked_labels(corpus):
    """Labels of regions at either end of a link: their categories are paired."""
    linked = set()
    for annotation in corpus.annotations:
        label_of = {region.id: region.label for region in annotation.regions}
        for link in annotation.links:
            linked.update(label_of[end] for end in (link.source, link.target) if end in label_of)
    return linked


def _labels_used(corpus):
    return list(dict.fromkeys([*corpus.labels, *(r.label for a in corpus.annotations for r in a.regions)]))


def _found_study(corpus, name, paired_labels):
    """study.yaml of a taxonomy made of the labels the file uses, in their order."""
    labels = _labels_used(corpus)
    keys = keys_for(labels)
    categories = [
        {"key": keys[label], "label": label[:LABEL_LENGTH], "kind": "paired" if label in paired_labels else "singleton",
         "order": position}
        for position, label in enumerate(labels, start=1)
    ]  # fmt: skip
    study = {
        "title": f"Annotations of {name}"[:200],
        "taxonomy": {"slug": "", "name": f"Labels of {name}"[:200], "version": "1", "categories": categories},
    }
    return study, {label: (keys[label], categories[i]["kind"]) for i, label in enumerate(labels)}


def _given_study(settings, corpus, paired_labels, settings_name, problems):
    """The study settings of a given study.yaml; each label of the file must name one of its categories."""
    raw = plain(settings)
    if raw.get("protocol", "span") != "span":
        problems.add(
            settings_name, 1, f"protocol is {raw['protocol']!r}; files of spans import into span studies"
        )
    taxonomy = raw.get("taxonomy") if "taxonomy" in raw else None
    study = {key: raw[key] for key in STUDY_FIELDS if key in raw}
    if not isinstance(taxonomy, dict) or not isinstance(taxonomy.get("categories"), list):
        problems.add(settings_name, 1, "give a study.yaml with a taxonomy (slug, name, categories)")
        return study, {}
    study["taxonomy"] = taxonomy
    by_name = {}
    for item in taxonomy["categories"]:
        if isinstance(item, dict) and isinstance(item.get("key"), str):
            by_name.setdefault(item["key"], (item["key"], item.get("kind", "singleton")))
    for item in taxonomy["categories"]:
        if isinstance(item, dict) and isinstance(item.get("label"), str) and isinstance(item.get("key"), str):
            by_name.setdefault(item["label"], (item["key"], item.get("kind", "singleton")))
    categories = {}
    for label in _labels_used(corpus):
        if label in by_name:
            categories[label] = by_name[label]
        else:
            keys = sorted({key for key, _ in by_name.values()})
            problems.add(settings_name, getattr(settings.get("taxonomy"), "line", 1),
                         f"the file's label {label!r} is neither the key nor the label of a category "
                         f"(the taxonomy has {', '.join(keys)})")  # fmt: skip
    for label in sorted(paired_labels):
        if label in categories and categories[label][1] != "paired":
            problems.add(settings_name, getattr(settings.get("taxonomy"), "line", 1),
                         f"category {categories[label][0]} is singleton, but the file links spans labelled {label!r}; "
                         "make it paired")  # fmt: skip
    return study, categories


def _annotators_per_document(corpus):
    people = Counter(a.document for a in corpus.annotations if a.kind == c.MAIN)
    return max(people.values(), default=0) or 3


def _assignments(corpus, segmented, categories, name, problems):
    """[(Annotation, assignments.jsonl record)] for every annotation whose document was read."""
    records, seen = [], {}
    known = {document.id for document in corpus.documents}
    for annotation in corpus.annotations:
        where = annotation.item or f"document {annotation.document}, annotator {annotation.annotator}"
        if annotation.document not in known:
            problems.add(name, annotation.line, f"{where}: no document {annotation.document!r} in the file")
            continue
        if annotation.document not in segmented:
            continue  # its document's problem is reported
        identity = (annotation.document, annotation.kind, annotation.annotator)
        if identity in seen:
            problems.add(name, annotation.line, f"{where}: annotator {annotation.annotator!r} already has a "
                                                f"{annotation.kind} annotation of this document ({seen[identity]})")  # fmt: skip
            continue
        seen[identity] = annotation.item or f"line {annotation.line}"
        items = _items(annotation, segmented[annotation.document], categories, name, where, problems)
        if items is None:
            continue
        record = {
            "document": annotation.document, "annotator": annotation.annotator,
            "platform": PLATFORM_OF[annotation.kind], "kind": annotation.kind,
            "active_seconds": max(0, int(annotation.seconds or 0)), "annotations": items,
        }  # fmt: skip
        records.append((annotation, record))
    return records


def _items(annotation, cut, categories, name, where, problems):
    """The bundle's annotation items of one annotation: a span per unlinked region, a paired span per link."""
    regions, ok = {}, True
    for region in annotation.regions:
        if region.id and region.id in regions:
            problems.add(name, annotation.line, f"{where}: region id {region.id!r} is given twice")
            ok = False
        regions[region.id or f"#{len(regions)}"] = region
    place = {}
    for key, region in regions.items():
        try:
            place[key] = cut.locate(region.start, region.end)
        except SpanOutside as outside:
            problems.add(name, annotation.line, f"{where}, region {region.id}: {region.label} {outside}")
            ok = False
    linked, items = {}, []
    for link in annotation.links:
        missing = [end for end in (link.source, link.target) if end not in regions]
        if missing:
            problems.add(name, annotation.line, f"{where}: link {link.source} -> {link.target} names no region "
                                                f"{', '.join(map(repr, missing))}")  # fmt: skip
            ok = False
            linked.update({end: "a broken link" for end in (link.source, link.target) if end in regions})
            continue
        for end in (link.source, link.target):
            if end in linked:
                problems.add(name, annotation.line, f"{where}, region {end}: in two links ({linked[end]} and "
                                                    f"{link.source} -> {link.target}); a paired span has one pair")  # fmt: skip
                ok = False
            linked[end] = f"{link.source} -> {link.target}"
        source, target = regions[link.source], regions[link.target]
        if source.label != target.label:
            problems.add(name, annotation.line, f"{where}: link {link.source} -> {link.target} joins labels "
                                                f"{source.label!r} and {target.label!r}; a paired span is one category")  # fmt: skip
            ok = False
            continue
        if link.source in place and link.target in place:
            items.append(
                _paired_item(cut, source, target, place[link.source], place[link.target], link, categories)
            )
    for key, region in regions.items():
        if key in linked or key not in place or region.label not in categories:
            continue
        category, kind = categories[region.label]
        if kind == "paired" and annotation.kind != c.MODEL:
            problems.add(name, annotation.line, f"{where}, region {region.id}: label {region.label!r} is linked "
                                                "elsewhere (a paired category), but this region is in no link; "
                                                "a person's paired span needs its pair")  # fmt: skip
            ok = False
            continue
        segment, start, end = place[key]
        items.append({"segment": segment, "category": category, "start": start, "end": end,
                      "text": cut.segments[segment][start:end], "comment": region.note})  # fmt: skip
    return items if ok else None


def _paired_item(cut, source, target, source_place, target_place, link, categories):
    """The link's later region is the span, its earlier one the pair (the bundle's rule); which of
    them the link starts from, its label and what else the file says of it, go to `answers`."""
    span_is_source = source_place[0] >= target_place[0]
    (span, span_at), (pair, pair_at) = (
        ((source, source_place), (target, target_place)) if span_is_source else ((target, target_place), (source, source_place))
    )  # fmt: skip
    kept = {"label": link.label, "source": "span" if span_is_source else "paired", **link.meta}
    notes = list(dict.fromkeys(note for note in (span.note, pair.note) if note))
    return {
        "segment": span_at[0], "category": categories[span.label][0], "start": span_at[1], "end": span_at[2],
        "text": cut.segments[span_at[0]][span_at[1] : span_at[2]], "comment": "\n".join(notes),
        "paired": {"segment": pair_at[0], "start": pair_at[1], "end": pair_at[2],
                   "text": cut.segments[pair_at[0]][pair_at[1] : pair_at[2]]},
        "answers": {LINK_ANSWER: kept},
    }  # fmt: skip
