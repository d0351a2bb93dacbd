"""A corpus's evaluators' annotations written as a review study bundle (docs/interop.md,
"Into a review study").

Each region of an annotation of kind model becomes one review item: its evaluator is the
annotation's annotator, its span the region's text at offsets mapped through the same
segmenting as a span study's, its explanation the region's note. The review bundle's
items have no field for a category, so the region's label leads the explanation
("Incorrect: the forecast says 21°C"). People's annotations are not reviewed: a note
says how many were left out.
"""

import json
from dataclasses import dataclass, field
from pathlib import Path

from bundles.problems import Problem
from bundles.reading import plain

from . import corpus as c
from .importing import (
    STUDY_FIELDS,
    BundleLines,
    annotations_to_write,
    segment_documents,  # cut as a span study's are, checked alike
    write_study_and_documents,
)
from .repeats import repeated
from .segmenting import SpanOutside

NO_EVALUATORS = (
    "no evaluator's (model) annotations to review; human annotations are imported with --into span"
)


@dataclass
class ReviewLines(BundleLines):
    """BundleLines that also name review_items.jsonl's lines by the file's annotation and region."""

    # review_items.jsonl line -> (the file's line, how the file's region is named)
    items: dict = field(default_factory=dict)

    def translate(self, problem):
        if problem.file == "review_items.jsonl" and problem.line in self.items:
            line, item = self.items[problem.line]
            return Problem(self.name, line, f"{item}: {problem.message}")
        return super().translate(problem)


def _region_item(annotation, region, number):
    """How a problem names a region: by its id, else by its number among its annotation's regions."""
    where = annotation.item or f"document {annotation.document}, annotator {annotation.annotator}"
    return f"{where}, region {region.id}" if region.id else f"{where}, annotation {number}"


def explanation_of(region):
    """The item's explanation: the region's label, then its note (the label alone when there is none)."""
    return f"{region.label}: {region.note}" if region.note else region.label


def write_review_bundle(corpus, directory, *, name, fmt, slug, problems, notes, settings=None, settings_name="",
                        sentences_per_segment=None):  # fmt: skip
    """Write the evaluators' annotations of `corpus` (read from file `name` in format `fmt`) as
    a review bundle in `directory`.

    `settings` is a study.yaml of protocol review (title, instructions, config.questions),
    or None: the default questions. Problems are added as `name:line: item: message`, what
    is left out to `notes`; the returned ReviewLines names the bundle's own problems.
    """
    directory = Path(directory)
    lines = ReviewLines(name=name, settings_file=settings_name or name)
    evaluated = [annotation for annotation in corpus.annotations if annotation.kind == c.MODEL]
    if not evaluated:
        problems.add(name, 0, NO_EVALUATORS)
        return lines
    segmented = segment_documents(corpus.documents, name, sentences_per_segment, problems)
    study = {"title": f"Review of the evaluators in {name}"[:200]}
    if settings is not None:
        study.update(_given_study(settings, settings_name, problems, notes))
    items = _items(corpus, evaluated, segmented, name, problems)
    people = [annotation for annotation in corpus.annotations if annotation.kind != c.MODEL]
    if people:
        annotators = len({annotation.annotator for annotation in people})
        notes.append(f"{name}: {len(people)} annotations of {annotators} people not imported: a review study "
                     "reviews the evaluators' annotations (import the people's with --into span)")  # fmt: skip
    documents = {document.id: document.item or f"document {document.id!r}" for document in corpus.documents}
    for group in repeated(evaluated):
        notes.append(f"{name}: evaluator {group[0].annotator!r} annotated {documents.get(group[0].document)} more "
                     f"than once: the regions of each are review items ({len(group)} annotations)")  # fmt: skip
    linked = sum(len(annotation.links) for annotation in evaluated)
    if linked:
        notes.append(f"{name}: {linked} links of the evaluators not imported: review items are single spans")
    if problems:
        return lines
    study = {"slug": slug, "protocol": "review", **study}
    write_study_and_documents(directory, study, corpus, segmented, fmt, lines)
    with open(directory / "review_items.jsonl", "w", encoding="utf-8") as handle:
        for number, (annotation, item, record) in enumerate(items, start=1):
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
            lines.items[number] = (annotation.line, item)
    return lines


def _given_study(settings, settings_name, problems, notes):
    """The study settings of a given study.yaml, which must be a review study's."""
    raw = plain(settings)
    if raw.get("protocol") != "review":
        problems.add(settings_name, 1, f"protocol is {raw.get('protocol', 'span')!r}; --into review takes a "
                                       "study.yaml with protocol: review (its questions in config)")  # fmt: skip
    if "taxonomy" in raw:
        notes.append(f"{settings_name}: the taxonomy is not used: a review study's items carry their "
                     "evaluator's label in the explanation")  # fmt: skip
    return {key: raw[key] for key in STUDY_FIELDS if key in raw}


def _items(corpus, evaluated, segmented, name, problems):
    """[(Annotation, the region's name, review_items.jsonl record)], in the file's order of regions."""
    items = []
    for annotation, _ in annotations_to_write(corpus.documents, evaluated, segmented, name, problems):
        cut = segmented[annotation.document]
        for number, region in enumerate(annotation.regions, start=1):
            item = _region_item(annotation, region, number)
            try:
                segment, start, end = cut.locate(region.start, region.end)
            except SpanOutside as outside:
                problems.add(name, annotation.line, f"{item}: {region.label} {outside}")
                continue
            record = {
                "document": annotation.document, "evaluator": annotation.annotator,
                "span": cut.segments[segment][start:end], "segment": segment, "start": start, "end": end,
                "explanation": explanation_of(region),
            }  # fmt: skip
            items.append((annotation, item, record))
    return items
