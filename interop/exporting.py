"""A span study as a corpus for a format to write, read from the database a chunk at a time.

The records are the study bundle's lines (study_records.py: who may see which annotator
name and which assignments leave the platform are decided as the bundle decides them). No
pass holds more than one document position's work: a format's writer walks the corpus
(StudyCorpus.by_document, .with_documents), and each walk reads the study again.
"""

from functools import cached_property
from itertools import groupby

from . import corpus as c
from . import study_records
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
    return StudyCorpus(study, fmt=fmt, identities=identities)


class StudyCorpus:
    """The corpus of a span study (corpus.Corpus's attributes and walks), read again on each walk."""

    def __init__(self, study, *, fmt, identities):
        self.study, self.fmt, self.identities = study, fmt, identities
        self.kinds = (*WRITTEN_KINDS, RETEST)
        categories = study_records.category_items(study)
        self.label_of = {item["key"]: file_label(item["key"], item["label"]) for item in categories}
        self.relation_keys = {item["key"] for item in categories if item.get("group") == RELATION_GROUP}
        # A category that some link was imported into is a relation for its spans made on the platform too.
        self.relation_keys.update(
            category
            for category, answers in study_records.paired_spans(study, self.kinds)
            if _is_relation({"category": category, "paired": True, "answers": answers})
        )
        self.notes = []

    def describe(self):
        documents = self.study.documents.count()
        annotations = self.study.assignments.filter(status="submitted", kind__in=self.kinds).count()
        return f"{documents} documents, {annotations} annotations"

    @property
    def documents(self):
        for documents, _ in self._positions():
            yield from documents

    @property
    def annotations(self):
        for _, annotations in self._positions():
            yield from annotations

    def by_document(self):
        """(document, its annotations) in the study's order of documents."""
        for documents, annotations in self._positions():
            of = {document.id: [] for document in documents}
            for annotation in annotations:
                of[annotation.document].append(annotation)
            for document in documents:
                yield document, of[document.id]

    def with_documents(self):
        """(document, annotation) in the bundle's order of assignments."""
        for documents, annotations in self._positions():
            by_id = {document.id: document for document in documents}
            for annotation in annotations:
                yield by_id[annotation.document], annotation

    @cached_property
    def labels(self):
        """The categories' labels, but a relation category's only when a region of it was made too
        (its label names links, not regions)."""
        region_keys = {
            item["category"]
            for _, records in study_records.assignment_groups(
                self.study, self.kinds, identities=self.identities
            )
            for record in records
            for item in record["annotations"]
            if not _is_relation(item, self.relation_keys)
        }
        return [
            label
            for key, label in self.label_of.items()
            if key not in self.relation_keys or key in region_keys
        ]

    @cached_property
    def link_labels(self):
        link_labels = {}
        for _ in self._positions(link_labels):
            pass
        return [label for label in link_labels if label]

    def _positions(self, link_labels=None):
        """([document], [annotation]) of each document position, in order: the documents and the
        annotations of their submitted work, read a position (one document in most studies) at a time."""
        link_labels = {} if link_labels is None else link_labels
        groups = study_records.assignment_groups(self.study, self.kinds, identities=self.identities)
        waiting = next(groups, None)
        for position, documents in groupby(study_records.documents(self.study), key=lambda pair: pair[0]):
            records = []
            while waiting is not None and waiting[0] <= position:
                if waiting[0] == position:
                    records = waiting[1]
                waiting = next(groups, None)
            yield self._position([record for _, record in documents], records, link_labels)

    def _position(self, records, assignments, link_labels):
        documents, starts_of = [], {}
        for record in records:
            kept = (record.get("meta") or {}).get("interop") or {}
            segments = record["segments"]
            separators = kept.get("separators")
            if not isinstance(separators, list) or len(separators) != len(segments) + 1:
                separators = ["", *[SEGMENT_SEPARATOR] * (len(segments) - 1), ""]
            starts_of[record["id"]] = segment_starts(segments, separators)
            documents.append(
                c.Document(
                    id=record["id"],
                    text=join_segments(segments, separators),
                    system=record.get("system", ""),
                    meta=(kept.get("meta") or {}) if kept.get("format") == self.fmt else {},
                )  # fmt: skip
            )
        # A retest is written as the annotator's further annotation of the document, of the kind of their
        # first one (main, gold, model). The bundle lists it after that one (bundles/exporting.py), so
        # importing the file again gives the same main annotation and retests.
        first_kind = {}
        for record in assignments:
            if record.get("kind", c.MAIN) != RETEST:
                first_kind.setdefault((record["document"], record["annotator"]), record.get("kind", c.MAIN))
        annotations = []
        for record in assignments:
            starts = starts_of[record["document"]]
            annotation = _annotation(record, starts, self.label_of, self.relation_keys, link_labels)
            if annotation.kind == RETEST:
                annotation.kind = first_kind.get((annotation.document, annotation.annotator), c.MAIN)
            annotations.append(annotation)
        return documents, annotations


def _is_relation(item, relation_keys=()):
    """A paired span that stands for a link between two regions, not for two regions of its category:
    as imported, or (a span made on the platform) by its category."""
    kept = (item.get("answers") or {}).get(LINK_ANSWER)
    if not item.get("paired"):
        return False
    return kept.get("relation") is True if isinstance(kept, dict) else item["category"] in relation_keys


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
