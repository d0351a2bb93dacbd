"""An MQM or ESA study written as an MQM TSV file (interop/formats/mqm_tsv.py): one line per
error, and a No-error line for each rated segment without one (docs/translation-studies.md).

Which work: every submitted main assignment, the work the study's report scores, so
`mqm_scores` on the file gives the report's figures. Which segments: those an assignment
rated (its `items`, for an imported rater), else every segment of its document.

The order is the one public releases use: by source document (input id, as the study first
lists it), then segment, then system (the study's document order), then rater (assignment
order), then the rater's errors in the order they were stored (the file's order, for an
imported file).

An ESA study's lines have an empty category: ESA marks spans with a severity alone. Its segment
scores have no column in the format; the annotation table has them.

What an import kept of the file (Document.meta["interop"], writing.py) is written back: the
header, the number of columns, the doc_id and seg_id columns, the comment column as it was, and
a <v> never closed; so an imported file exported again is the same file, byte for byte, as far
as docs/translation-studies.md says.
"""

import gzip
from dataclasses import dataclass

from accounts.pseudonyms import pseudonyms_of
from annotations.models import Assignment
from protocols.translation.keys import ESA, MQM, SOURCE, SOURCES, TARGET
from protocols.translation.models import TranslationError
from reports.metrics.mqm import NO_ERROR
from studies.batches import by_index
from studies.models import Category, Document, Segment

from ..formats.mqm_tsv import COLUMNS, Line, Marked, write
from .writing import FORMAT

HEADER = (*COLUMNS, "comment")
NO_ERROR_LINE = "No-error"
DOCUMENTS_AT_ONCE = 500  # documents read together: their segments, assignments and errors
assert NO_ERROR_LINE.lower() == NO_ERROR


class NotErrorSpans(ValueError):
    """Only MQM and ESA studies have error spans to write."""


@dataclass
class MQMExport:
    lines: int = 0
    errors: int = 0
    rated: int = 0  # (segment, rater) pairs
    documents: int = 0

    def describe(self):
        return (
            f"{self.lines:,} lines: {self.errors:,} errors over {self.rated:,} rated segments "
            f"of {self.documents:,} documents"
        )


def _kept(meta):
    """What an import kept of its file, or {} for a document made on the platform."""
    kept = meta.get("interop") if isinstance(meta, dict) else None
    return kept if isinstance(kept, dict) and kept.get("format") == FORMAT else {}


def _one_line(text):
    """A platform comment in one column: no tab, no line break."""
    return text.replace("\t", " ").replace("\r", " ").replace("\n", " ")


def _groups(study):
    """[[document row, ...] of one input id, ...] in the study's order: (pk, input id, system)."""
    groups = {}
    for pk, input_id, external_id, system in (
        study.documents.filter(kind="main")
        .order_by("position", "id")
        .values_list("pk", "input_id", "external_id", "system")
        .iterator(chunk_size=DOCUMENTS_AT_ONCE)
    ):
        groups.setdefault(input_id or external_id, []).append((pk, system, input_id or external_id))
    return list(groups.values())


def _batches(groups):
    batch = []
    for group in groups:
        batch.append(group)
        if sum(len(g) for g in batch) >= DOCUMENTS_AT_ONCE:
            yield batch
            batch = []
    if batch:
        yield batch


class _Writer:
    def __init__(self, study, identities):
        self.study = study
        self.doc_of = {}  # document pk -> the doc column: its input id
        self.categories = study.protocol == MQM
        self.pseudonym = None if identities else pseudonyms_of(study.pk)
        self.seg_offset = 0  # segments of the source documents written so far: the seg_id of a platform study
        self.header, self.columns = None, None  # the first document's: as its import kept them
        self.done = MQMExport()
        self.labels = {}  # category pk -> label, as errors name them

    def lines(self, groups):
        for batch in _batches(groups):
            yield from self._batch(batch)

    def _batch(self, batch):
        with by_index():
            meta, texts, assignments, errors = self._read([pk for group in batch for pk, _ in group])
        for group in batch:
            yield from self._group(group, meta, texts, assignments, errors)

    def _read(self, pks):
        """The batch's documents' meta, segment texts, submitted main assignments and errors.

        Each read is keyed by the batch's rows alone and asks for no order that would join another
        table (the models' default orderings join the document and the study): its cost is the
        batch's, whatever the size of the study."""
        meta = dict(Document.objects.filter(pk__in=pks).order_by().values_list("pk", "meta"))
        texts, index_of = {}, {}
        for segment, document, index, text in (
            Segment.objects.filter(document__in=pks).order_by().values_list("pk", "document_id", "index", "text")
        ):  # fmt: skip
            texts.setdefault(document, {})[index] = text
            index_of[segment] = index
        assignments = {}
        for pk, document, items, worker, name in (
            Assignment.objects.filter(
                study=self.study, document__in=pks, status=Assignment.Status.SUBMITTED, kind=Assignment.Kind.MAIN
            )
            .order_by("id")
            .values_list("pk", "document_id", "items", "worker_id", "worker__external_id")
        ):  # fmt: skip
            assignments.setdefault(document, []).append((pk, items, worker, name))
        marked = list(
            TranslationError.objects.filter(assignment__in=[a[0] for rows in assignments.values() for a in rows])
            .order_by("id")
            .values_list("assignment_id", "segment_id", "side", "start", "end", "category_id", "severity", "comment")
        )  # fmt: skip
        self._learn(index_of, {row[1] for row in marked}, self.labels, {row[5] for row in marked})
        errors = {}
        for assignment, segment, side, start, end, category, severity, comment in marked:
            errors.setdefault((assignment, index_of[segment]), []).append(
                (side, start, end, self.labels.get(category), severity, comment)
            )
        return meta, texts, assignments, errors

    @staticmethod
    def _learn(index_of, segments, labels, categories):
        """The indices of segments outside the batch's documents (none unless an error names a
        segment of another document) and the labels of categories not met yet, by primary key."""
        if unknown := segments - index_of.keys():
            index_of.update(Segment.objects.filter(pk__in=unknown).order_by().values_list("pk", "index"))
        if unknown := categories - labels.keys() - {None}:
            labels.update(Category.objects.filter(pk__in=unknown).order_by().values_list("pk", "label"))

    def _group(self, group, meta, texts, assignments, errors):
        indices = sorted({index for pk, _ in group for index in texts.get(pk, {})})
        rated = {}
        for pk, _ in group:
            for assignment, items, worker, name in assignments.get(pk, ()):
                for index in items or sorted(texts.get(pk, {})):
                    rated.setdefault((pk, index), []).append((assignment, worker, name))
        if self.columns is None:
            first = _kept(meta[group[0][0]])
            self.header = first.get("header") if first else list(HEADER)
            self.columns = first.get("columns", len(HEADER)) if first else len(HEADER)
        for index in indices:
            for pk, system in group:
                document_meta = meta[pk]
                kept = _kept(document_meta)
                for assignment, worker, name in rated.get((pk, index), ()):
                    if index not in texts.get(pk, {}):
                        continue  # an item naming no segment: nothing to write
                    yield from self._rated(pk, system, index, document_meta, kept, texts[pk][index],
                                           (assignment, worker, name), errors.get((assignment, index), ()))  # fmt: skip
        self.seg_offset += (indices[-1] + 1) if indices else 0

    def _rated(self, pk, system, index, meta, kept, target, who, marked):
        assignment, worker, name = who
        sources = meta.get(SOURCES) if isinstance(meta, dict) else None
        source = sources[index] if isinstance(sources, list) and index < len(sources) else ""
        seg_ids, doc_ids = kept.get("seg_ids"), kept.get("doc_ids")
        if (
            isinstance(seg_ids, list)
            and index < len(seg_ids)
            and isinstance(doc_ids, list)
            and index < len(doc_ids)
        ):
            doc_id, seg_id = str(doc_ids[index]), str(seg_ids[index])
        else:
            doc_id, seg_id = str(index + 1), str(self.seg_offset + index + 1)
        unclosed = {tuple(item) for item in kept.get("unclosed", ()) if isinstance(item, list)}
        rater = name if self.pseudonym is None else self.pseudonym(worker)
        extra = max(0, self.columns - len(COLUMNS))
        shared = {"system": system, "doc_id": doc_id, "seg_id": seg_id, "rater": rater}
        self.done.rated += 1
        if not marked:
            self.done.lines += 1
            yield self._line(shared, pk, Marked(source, ()), Marked(target, ()), NO_ERROR_LINE, NO_ERROR_LINE,
                             ("",) * extra)  # fmt: skip
            return
        for side, start, end, category, severity, comment in marked:
            open_ended = (index, name, side, start) in unclosed and end == len(
                target if side == TARGET else source
            )
            span = ((start, end),)
            source_marked = Marked(source, span if side == SOURCE else (), open_ended and side == SOURCE)
            target_marked = Marked(target, span if side == TARGET else (), open_ended and side == TARGET)
            rest = comment.split("\t") if kept else [_one_line(comment)]
            rest = tuple((rest + [""] * extra)[:extra]) if len(rest) != extra else tuple(rest)
            self.done.lines += 1
            self.done.errors += 1
            yield self._line(shared, pk, source_marked, target_marked,
                             (category or "") if self.categories else "", severity, rest)  # fmt: skip

    def _line(self, shared, pk, source, target, category, severity, rest):
        return Line(0, shared["system"], self.doc_of[pk], shared["doc_id"], shared["seg_id"], shared["rater"],
                    source, target, category, severity, rest)  # fmt: skip


def export_mqm(*, study, path, identities=True):
    """Write the MQM or ESA study `study` to `path` as MQM TSV (.gz: compressed); NotErrorSpans
    for another protocol. identities=False names raters by their pseudonym in the study."""
    if study.protocol not in (MQM, ESA):
        raise NotErrorSpans(
            f"study '{study.slug}' is a {study.protocol} study; only MQM and ESA studies have error spans "
            "to write as MQM TSV (the annotation table has every protocol's work)"
        )
    writer = _Writer(study, identities)
    groups = _groups(study)
    writer.doc_of = {pk: doc for group in groups for pk, _, doc in group}
    groups = [[(pk, system) for pk, system, _ in group] for group in groups]
    lines = writer.lines(groups)
    first = next(lines, None)  # reads the first document, whose import says if there is a header
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "wt", encoding="utf-8", newline="") as handle:
        header = writer.header if writer.columns is not None else list(HEADER)
        write(handle, [first] if first is not None else [], header=header)
        write(handle, lines, header=None)
    writer.done.documents = sum(len(group) for group in groups)
    return writer.done
