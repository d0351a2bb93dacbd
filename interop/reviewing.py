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
    write_study,
    written_parts,  # cut as a span study's are, checked alike
)
from .repeats import repeated
from .segmenting import SpanOutside

NO_EVALUATORS = (
    "no evaluator's (model) annotations to review; human annotations are imported with --into span"
)


@dataclass
class ReviewLines(BundleLines):
    """BundleLines that also name review_items.jsonl's lines by the file's annotation and region."""

    # Of each review_items.jsonl line: (the file's line, how the file names the annotation, the
    # region's id or number). The name is one string shared by an annotation's regions: a study
    # has hundreds of thousands of items, and this is all that is held of each.
    items: list = field(default_factory=list)

    def translate(self, problem):
        if problem.file == "review_items.jsonl" and problem.line and 0 < problem.line <= len(self.items):
            line, where, region = self.items[problem.line - 1]
            return Problem(self.name, line, f"{_region_item(where, region)}: {problem.message}")
        return super().translate(problem)


def _region_item(where, region):
    """How a problem names a region of the annotation named `where`: by its id (text), else by its
    number among the annotation's regions."""
    return f"{where}, region {region}" if isinstance(region, str) else f"{where}, annotation {region}"


def explanation_of(region):
    """The item's explanation: the region's label, then its note (the label alone when there is none)."""
    return f"{region.label}: {region.note}" if region.note else region.label


def write_review_bundle(parts, directory, *, name, fmt, slug, problems, notes, settings=None, settings_name="",
                        sentences_per_segment=None):  # fmt: skip
    """Write the evaluators' annotations of the corpus `parts` (interop/parts.py; read from file
    `name` in format `fmt`) as a review bundle in `directory`, a part at a time.

    `settings` is a study.yaml of protocol review (title, instructions, config.questions),
    or None: the default questions. Problems are added as `name:line: item: message`, what
    is left out to `notes`; the returned ReviewLines names the bundle's own problems.
    """
    directory = Path(directory)
    lines = ReviewLines(name=name, settings_file=settings_name or name)
    if not parts.survey.models:  # no annotation of kind model in the whole file
        problems.add(name, 0, NO_EVALUATORS)
        return lines
    study = {"title": f"Review of the evaluators in {name}"[:200]}
    if settings is not None:
        study.update(_given_study(settings, settings_name, problems, notes))
    left_out = _LeftOut()
    with open(directory / "documents.jsonl", "w", encoding="utf-8") as documents_file, \
            open(directory / "review_items.jsonl", "w", encoding="utf-8") as items_file:  # fmt: skip
        written = written_parts(parts, documents_file, name, sentences_per_segment, fmt, lines, problems)
        for documents, annotations, segmented in written:
            evaluated = left_out.add(documents, annotations, name)
            for annotation, where, region, record in _items(documents, evaluated, segmented, name, problems):
                items_file.write(json.dumps(record, ensure_ascii=False) + "\n")
                lines.items.append((annotation.line, where, region))
    notes += left_out.notes(name)
    if problems:
        return lines
    write_study(directory, {"slug": slug, "protocol": "review", **study})
    return lines


class _LeftOut:
    """What a review study does not take, counted a part at a time, said in notes at the end: the
    people's annotations, an evaluator's repeated ones (all reviewed), the evaluators' links."""

    def __init__(self):
        self.people, self.annotators, self.repeats, self.linked = 0, set(), [], 0

    def add(self, documents, annotations, name):
        """The evaluators' annotations among `annotations` (of `documents`)."""
        evaluated = [annotation for annotation in annotations if annotation.kind == c.MODEL]
        for annotation in annotations:
            if annotation.kind != c.MODEL:
                self.people += 1
                self.annotators.add(annotation.annotator)
        named = {document.id: document.item or f"document {document.id!r}" for document in documents}
        for group in repeated(evaluated):
            self.repeats.append(f"{name}: evaluator {group[0].annotator!r} annotated {named.get(group[0].document)} "
                                f"more than once: the regions of each are review items ({len(group)} annotations)")  # fmt: skip
        self.linked += sum(len(annotation.links) for annotation in evaluated)
        return evaluated

    def notes(self, name):
        said = []
        if self.people:
            said.append(f"{name}: {self.people} annotations of {len(self.annotators)} people not imported: a review "
                        "study reviews the evaluators' annotations (import the people's with --into span)")  # fmt: skip
        said += self.repeats
        if self.linked:
            said.append(
                f"{name}: {self.linked} links of the evaluators not imported: review items are single spans"
            )
        return said


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


def _items(documents, evaluated, segmented, name, problems):
    """(Annotation, its name, the region's id or number, review_items.jsonl record) of each region
    of the evaluators' annotations `evaluated` of `documents`, in the file's order of regions."""
    for annotation, where in annotations_to_write(documents, evaluated, segmented, name, problems):
        cut = segmented[annotation.document]
        for number, region in enumerate(annotation.regions, start=1):
            key = region.id or number
            try:
                segment, start, end = cut.locate(region.start, region.end)
            except SpanOutside as outside:
                problems.add(name, annotation.line, f"{_region_item(where, key)}: {region.label} {outside}")
                continue
            record = {
                "document": annotation.document, "evaluator": annotation.annotator,
                "span": cut.segments[segment][start:end], "segment": segment, "start": start, "end": end,
                "explanation": explanation_of(region),
            }  # fmt: skip
            yield annotation, where, key, record
