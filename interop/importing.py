"""A corpus read from another tool's file, written as a study bundle for bundles.importing.

Everything a bundle cannot say is checked here first, against the file's own
items (a span across a segment border, a link naming no region, a label
the taxonomy lacks); what the bundle's checks find afterwards is named by the
file's items too (`BundleLines.translate`). The corpus comes as parts (parts.py): the
bundle's lines are written a document at a time, and only the whole file's few facts
(its Survey) and a name for each written line are held.

Every link is imported, as a paired span of its label or as a relation span
(links.py).
"""

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from bundles.problems import Problem
from bundles.reading import plain

from . import corpus as c
from .categories import LABEL_LENGTH, keys_for
from .links import RELATION_GROUP, annotation_items
from .repeats import RETEST, named, stored_kinds
from .segmenting import segment_document

# evaluators.models.key_validator and Evaluator.key's length
EVALUATOR_KEY, EVALUATOR_KEY_LENGTH = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$"), 64
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
    # (the file's line, how the file names the item) of each line of documents.jsonl and
    # assignments.jsonl, in their order: not the items themselves, which a large file cannot hold.
    documents: list = field(default_factory=list)
    assignments: list = field(default_factory=list)

    def translate(self, problem):
        for file, written in (("documents.jsonl", self.documents), ("assignments.jsonl", self.assignments)):
            if problem.file == file and problem.line and 0 < problem.line <= len(written):
                line, item = written[problem.line - 1]
                return Problem(self.name, line, f"{item}: {problem.message}")
        # study.yaml was written here: its lines are not the given file's, so the file as a whole.
        return Problem(self.settings_file, 0, problem.message)


def write_corpus_bundle(parts, directory, *, name, fmt, slug, problems, settings=None, settings_name="",
                        sentences_per_segment=None, notes=None, repeats=RETEST):  # fmt: skip
    """Write the corpus `parts` (parts.py; read from file `name` in format `fmt`) as a bundle in
    `directory`, a part at a time.

    `settings` is a study.yaml read with bundles.reading.read_yaml (its taxonomy, title,
    instructions, config), or None: a taxonomy of the labels found. Problems are added
    as `name:line: item: message`; the returned BundleLines names the bundle's own.
    Each model that annotated (Label Studio's predictions, factgenie's LLM campaigns) becomes
    an imported evaluator of the study, its annotations the evaluator's; `notes` gets what
    could not be, and which repeated annotations became retests (`repeats`: RETEST or LATEST).
    """
    directory = Path(directory)
    notes = notes if notes is not None else []
    survey = parts.survey
    lines = BundleLines(name=name, settings_file=settings_name or name)
    if settings is not None:
        study, categories, relations = _given_study(settings, survey, name, settings_name, problems)
    else:
        study, categories, relations = _found_study(survey, name)
    study = {"slug": slug, "protocol": "span", **study}
    if settings is None:
        study["taxonomy"]["slug"] = slug  # the study's own labels: one taxonomy per study
    taxonomy = (categories, relations, survey.plan)
    with open(directory / "documents.jsonl", "w", encoding="utf-8") as documents_file, \
            open(directory / "assignments.jsonl", "w", encoding="utf-8") as assignments_file:  # fmt: skip
        written = written_parts(parts, documents_file, name, sentences_per_segment, fmt, lines, problems)
        for documents, annotations, segmented in written:
            kinds = stored_kinds(annotations, documents, repeats, name, notes)
            for annotation, record in _assignments(documents, annotations, segmented, taxonomy, kinds, name,
                                                   problems):  # fmt: skip
                assignments_file.write(json.dumps(record, ensure_ascii=False) + "\n")
                lines.assignments.append((annotation.line, annotation.item or "annotation"))
    if not categories and settings is None:
        problems.add(
            name,
            0,
            "the file uses no label, so there is no category to make; give the categories with --taxonomy",
        )
    if problems:
        return lines
    if "annotators_per_document" not in study:
        study["annotators_per_document"] = survey.annotators_per_document or 3
    evaluators = _evaluators(survey, name, notes)
    if evaluators:
        study["evaluators"] = evaluators
    write_study(directory, study)
    return lines


def _evaluators(survey, name, notes):
    """study.yaml's `evaluators`: one imported evaluator per model whose name is an evaluator key.

    Its annotations go in assignments.jsonl as a bundle carries an imported evaluator's
    (evaluators/bundle.py), so the study lists the evaluator and its results as any other.
    """
    evaluators = []
    for model in survey.models:
        if EVALUATOR_KEY.match(model) and len(model) <= EVALUATOR_KEY_LENGTH:
            evaluators.append({"key": model, "kind": "import", "description": f"imported from {name}"[:200]})
        else:
            notes.append(f"{name}: the model {model!r} is no evaluator key (letters, digits, '.', '-', '_'); "
                         "its annotations are imported as model work without an evaluator entry")  # fmt: skip
    return evaluators


def write_study(directory, study):
    (directory / "study.yaml").write_text(
        yaml.safe_dump(study, sort_keys=False, allow_unicode=True), encoding="utf-8"
    )


def write_documents(handle, documents, segmented, fmt, lines):
    """documents.jsonl's lines of `documents`; each document keeps, in its meta, what lies between
    its segments and the file's own fields, so export gives them back."""
    for document in documents:
        cut = segmented.get(document.id)
        if cut is None:
            continue  # its problem is reported, and nothing is imported
        record = {
            "id": document.id, "system": document.system, "segments": cut.segments,
            "sentences": cut.sentences,
            "meta": {"interop": {"format": fmt, "separators": cut.separators, "meta": document.meta}},
        }  # fmt: skip
        handle.write(json.dumps(record, ensure_ascii=False) + "\n")
        lines.documents.append((document.line, document.item or f"document {document.id}"))


def written_parts(parts, documents_file, name, sentences_per_segment, fmt, lines, problems):
    """(documents, annotations, their segments) of each part of `parts` (corpus.Parts), once its
    documents are cut and written to `documents_file`; a document id given in an earlier part
    too is a problem, as within one."""
    seen = set()
    for documents, annotations in parts.parts():
        segmented = segment_documents(documents, name, sentences_per_segment, problems, seen=seen)
        write_documents(documents_file, documents, segmented, fmt, lines)
        yield documents, annotations, segmented


def segment_documents(documents, name, sentences_per_segment, problems, *, seen=None):
    """{document id: its segments} of each of `documents`; a repeated id (among these, or in `seen`,
    the ids of documents cut before, which this adds to) or an empty text is a problem."""
    segmented, seen = {}, seen if seen is not None else set()
    for document in documents:
        where = document.item or f"document {document.id}"
        if document.id in seen:
            problems.add(name, document.line, f"{where}: document id {document.id!r} is given twice")
            continue
        seen.add(document.id)
        cut = segment_document(document.text, sentences_per_segment)
        if cut is None:
            problems.add(name, document.line, f"{where}: the text is empty")
            continue
        segmented[document.id] = cut
    return segmented


def _found_study(survey, name):
    """study.yaml of a taxonomy made of the labels the file uses, in their order, then of its relations."""
    labels, plan = survey.labels, survey.plan
    keys = keys_for(labels)
    relation_keys = keys_for(plan.relations, taken=keys.values())
    categories = [
        {"key": keys[label], "label": label[:LABEL_LENGTH],
         "kind": "paired" if label in plan.paired_labels else "singleton", "order": position}
        for position, label in enumerate(labels, start=1)
    ] + [
        {"key": relation_keys[relation], "label": relation[:LABEL_LENGTH], "kind": "paired",
         "group": RELATION_GROUP, "order": position}
        for position, relation in enumerate(plan.relations, start=len(labels) + 1)
    ]  # fmt: skip
    study = {
        "title": f"Annotations of {name}"[:200],
        "taxonomy": {"slug": "", "name": f"Labels of {name}"[:200], "version": "1", "categories": categories},
    }
    return (
        study,
        {label: (keys[label], categories[i]["kind"]) for i, label in enumerate(labels)},
        relation_keys,
    )


def _given_study(settings, survey, name, settings_name, problems):
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
        return study, {}, {}
    study["taxonomy"] = taxonomy
    by_name = {}
    for item in taxonomy["categories"]:
        if isinstance(item, dict) and isinstance(item.get("key"), str):
            by_name.setdefault(item["key"], (item["key"], item.get("kind", "singleton")))
    for item in taxonomy["categories"]:
        if isinstance(item, dict) and isinstance(item.get("label"), str) and isinstance(item.get("key"), str):
            by_name.setdefault(item["label"], (item["key"], item.get("kind", "singleton")))
    categories = {}
    plan = survey.plan
    for label in survey.labels:
        if label in by_name:
            categories[label] = by_name[label]
        else:
            keys = sorted({key for key, _ in by_name.values()})
            problems.add(settings_name, getattr(settings.get("taxonomy"), "line", 1),
                         f"the file's label {label!r} is neither the key nor the label of a category "
                         f"(the taxonomy has {', '.join(keys)})")  # fmt: skip
    for label in sorted(plan.paired_labels):
        if label in categories and categories[label][1] != "paired":
            problems.add(settings_name, getattr(settings.get("taxonomy"), "line", 1),
                         f"category {categories[label][0]} is singleton, but the file links spans labelled {label!r}; "
                         "make it paired")  # fmt: skip
    # A relation names a paired category by its key, else by its label (a region's label may be a key).
    paired = {}
    for field_name in ("key", "label"):
        for item in taxonomy["categories"]:
            if isinstance(item, dict) and item.get("kind") == "paired" and isinstance(item.get("key"), str):
                paired.setdefault(item.get(field_name), item["key"])
    relations = {}
    for relation, (annotation, link) in plan.relations.items():
        if relation in paired:
            relations[relation] = paired[relation]
            continue
        where = annotation.item or f"document {annotation.document}, annotator {annotation.annotator}"
        problems.add(name, annotation.line, f"{where}: link {link.source} -> {link.target} is a relation "
                                            f"{relation!r}, which must be the key or the label of a paired category "
                                            f"of {settings_name} (its paired categories: {', '.join(sorted(set(paired.values()))) or 'none'})")  # fmt: skip
    return study, categories, relations


def annotations_to_write(documents, annotations, segmented, name, problems):
    """(annotation, where) for each of `annotations` whose document (one of `documents`) was read;
    an annotation of no document in the file is a problem."""
    known = {document.id for document in documents}
    for annotation in annotations:
        where = named(annotation)
        if annotation.document not in known:
            problems.add(name, annotation.line, f"{where}: no document {annotation.document!r} in the file")
            continue
        if annotation.document not in segmented:
            continue  # its document's problem is reported
        yield annotation, where


def _assignments(documents, annotations, segmented, taxonomy, kinds, name, problems):
    """(Annotation, assignments.jsonl record) for each annotation whose document was read, in the
    file's order; `kinds` (stored_kinds) the repeated ones' kind."""
    for annotation, where in annotations_to_write(documents, annotations, segmented, name, problems):
        items = annotation_items(annotation, segmented[annotation.document], taxonomy, name, where, problems)
        if items is None:
            continue
        record = {
            "document": annotation.document, "annotator": annotation.annotator,
            "platform": PLATFORM_OF[annotation.kind], "kind": kinds.get(id(annotation), annotation.kind),
            "active_seconds": max(0, int(annotation.seconds or 0)), "annotations": items,
        }  # fmt: skip
        yield annotation, record
