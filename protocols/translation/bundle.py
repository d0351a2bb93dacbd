"""The translation protocols' part of a bundle: the sources and references in documents.jsonl's
meta, and one assignments.jsonl line per worker and document with their errors (MQM, ESA) and
segment scores (ESA, DA).

    {"document": "d1#sysA", "annotator": "r1", "errors": [{"segment": 0, "side": "target",
     "start": 4, "end": 7, "text": "dog", "category": "Mistranslation", "severity": "Major",
     "comment": ""}], "scores": [{"segment": 0, "score": 70}]}

A contrastive study's line is a worker's block (one source document): its translations in the
order the worker saw them, and each error and score naming its translation.

    {"block": "d1", "annotator": "r1", "order": ["d1#sysB", "d1#sysA"],
     "scores": [{"document": "d1#sysB", "segment": 0, "score": 70}, ...]}

An assisted study (ESA-AI, MQM-AI) has its judge's suggestions too (bundle_suggestions.py).
Export writes the errors by segment, side and place, the scores by segment, so export -> import
-> export gives the same bytes. annotations.csv has its header only: the annotation export
(exports/) has a row per segment and interop's MQM TSV a row per error.
"""

import dataclasses

from bundles.bulk import insert_rows
from bundles.exporting import assignment_record, external_ids, json_line, write_annotations_csv_header
from bundles.reading import read_jsonl
from bundles.references import references_checked_here
from bundles.writing import batch_document_ids, batch_segment_ids, submitted_assignments, workers_for
from studies.batches import by_index
from studies.models import Category
from studies.protocols import BundleWork

from .bundle_checks import DocumentMetaCheck, check_assignments, check_document_meta
from .bundle_errors import Rules
from .bundle_suggestions import (
    check_suggestions,
    export_suggestions,
    prefilled_counts,
    suggestion_ids,
    suggestion_positions,
    write_prefilled,
    write_suggestions,
)  # fmt: skip
from .keys import MQM, WITH_SCORES, WITH_SPANS, is_contrastive, scheme
from .models import SegmentScore, TranslationError


def check_documents(documents, problems, file, protocol):
    return check_document_meta(documents, problems, file, protocol)


def document_check(problems, file, protocol):
    """check_documents of one DocumentSpec at a time, for documents added to a study."""
    return DocumentMetaCheck(problems, file, protocol)


def needs_texts(directory):
    """A whole bundle's assignments are checked against the documents' segments; documents added to
    a study are checked one at a time (document_check) and need nothing kept."""
    return directory is not None


# A bundle's checks read a document's texts and sources by its id: the import keeps them on disk
# (bundles/texts.py), and checks each document's meta while it still holds them (document_check).
TEXTS_BY_DOCUMENT = True


class ShelvedDocuments:
    """{external id: DocumentSpec} whose specs (a CheckedDocuments) and segments and meta (a
    SegmentTexts) are read back from disk on look-up: a campaign's texts and sources are the size
    of its corpus, and even its specs without them some 0.5 KB a document."""

    def __init__(self, specs, texts):
        self._specs = specs
        self._texts = texts

    def __contains__(self, external_id):
        return external_id in self._specs

    def __getitem__(self, external_id):
        spec = self._specs.get(external_id)
        if spec is None:
            raise KeyError(external_id)
        return dataclasses.replace(
            spec, segments=list(self._texts[external_id]), meta=self._texts.meta(external_id)
        )

    def get(self, external_id, default=None):
        return self[external_id] if external_id in self._specs else default

    def values(self):
        """The specs without their texts (id, block, input, line), for grouping."""
        return iter(self._specs)

    def translations_by_block(self):
        """{block: the ids of its translations in file order}, read on look-up (a contrastive line
        names its block); a document without a block is in no block, as the block "" is none."""
        return NamedBlocks(self._specs.blocks(lambda members: [member.external_id for member in members]))


class NamedBlocks:
    """A CheckedDocuments' blocks without the block "" (the documents given no block)."""

    def __init__(self, blocks):
        self._blocks = blocks

    def get(self, block, default=None):
        return self._blocks.get(block, default) if block else default


def check_work(directory, spec, documents, broken, locate, problems, texts=None):
    documents = {d.external_id: d for d in documents} if texts is None else ShelvedDocuments(documents, texts)
    suggestions = check_suggestions(directory, documents, Rules.of(spec), problems)
    rules = dataclasses.replace(Rules.of(spec), suggestions=suggestion_positions(suggestions))
    path = directory / "assignments.jsonl"
    if not path.is_file():
        return BundleWork(extra=suggestions)
    records = read_jsonl(path, "assignments.jsonl", problems)
    assignments = check_assignments(records, problems, documents=documents, rules=rules, broken=broken)
    return BundleWork(
        assignments=assignments, annotations=assignments.annotations,
        extra=suggestions,
    )  # fmt: skip


def write_work(study, work):
    """The suggestions, and one submitted assignment per line with its errors and scores (inside the
    import's transaction), a batch of assignments at a time as checking spooled them: each batch
    reads the ids of its own documents and segments, and its rows go in through the bulk path."""
    category_ids = dict(study.taxonomy.categories.values_list("key", "id")) if study.taxonomy_id else {}
    if work.extra:
        write_suggestions(study, work.extra, category_ids)
    if not work.assignments:
        return
    workers = workers_for(work.assignments.workers)
    for batch in work.assignments.batches():
        _write_batch(study, batch, workers, category_ids)


ERROR_COLUMNS = ("assignment_id", "segment_id", "side", "start", "end", "text", "category_id", "severity", "comment",
                 "client_id", "suggestion_id")  # fmt: skip
SCORE_COLUMNS = ("assignment_id", "segment_id", "score")


def _write_batch(study, batch, workers, category_ids):
    named = set()
    for spec in batch:
        named.update(filter(None, [spec.document, *spec.order]))
        named.update(error.document for error in spec.errors)
        named.update(document for document, _, _ in spec.scores)
    document_ids = batch_document_ids(study, named)
    segment_ids = batch_segment_ids(document_ids)
    suggested = (
        suggestion_ids(document_ids) if any(e.suggestion for spec in batch for e in spec.errors) else {}
    )
    rows = submitted_assignments(study, batch, workers, document_ids, items_of=_items_of(study, document_ids))

    def error_rows():
        for row, spec in zip(rows, batch, strict=True):
            for number, e in enumerate(spec.errors, start=1):
                yield (
                    row.pk, segment_ids[(e.document, e.segment)], e.side, e.start, e.end, e.text,
                    category_ids[e.category] if e.category else None, e.severity, e.comment,
                    e.client_id or f"import-{number}", suggested[(e.document, e.suggestion)] if e.suggestion else None,
                )  # fmt: skip

    def score_rows():
        for row, spec in zip(rows, batch, strict=True):
            for document, index, score in spec.scores:
                yield row.pk, segment_ids[(document, index)], score

    # The rows refer to this import's own assignments, segments and suggestions, and to the
    # taxonomy's categories, which may be older and shared: those are locked (bundles/references.py).
    with references_checked_here(existing=[(Category, category_ids.values())]):
        insert_rows(TranslationError, ERROR_COLUMNS, error_rows())
        insert_rows(SegmentScore, SCORE_COLUMNS, score_rows())
    write_prefilled(
        [
            (row.pk, spec.prefilled)
            for row, spec in zip(rows, batch, strict=True)
            if spec.prefilled is not None
        ]
    )


def _items_of(study, document_ids):
    """An assignment's items from its line: a contrastive block's translations in the worker's order
    (as block_items gives them), or the segments rated when not all (report.rated_indices)."""
    if is_contrastive(study.protocol):
        return lambda spec: [{"position": n, "document": document_ids[d]} for n, d in enumerate(spec.order)]
    return lambda spec: list(spec.segments)


def export_work(study, assignments, directory, who):
    """assignments.jsonl a chunk of assignments at a time (bundles/exporting.in_line_order), each
    chunk reading its own errors, scores, pre-filled counts and shown translations."""
    judged, contrastive = scheme(study.protocol), is_contrastive(study.protocol)
    export_suggestions(study, directory)
    with open(directory / "assignments.jsonl", "w", encoding="utf-8") as handle:
        for chunk in assignments:
            ids = [assignment.pk for assignment in chunk]
            with by_index():  # a chunk's reads by its own keys, never a scan per chunk
                errors = _errors_by_assignment(study, ids, contrastive) if judged in WITH_SPANS else None
                scores = _scores_by_assignment(ids, contrastive) if judged in WITH_SCORES else None
                prefilled = prefilled_counts(ids)
                external = _shown_documents(chunk) if contrastive else {}
            for assignment in chunk:
                record = assignment_record(assignment, who)
                if contrastive:
                    shown = sorted(assignment.items or [], key=lambda item: item["position"])
                    record["order"] = [external[item["document"]] for item in shown]
                elif assignment.items:  # a rater's share of the document's segments (an imported MQM file)
                    record["segments"] = assignment.items
                if assignment.pk in prefilled:  # the suggestion arm's: how many suggestions it received
                    record["prefilled"] = prefilled[assignment.pk]
                if errors is not None:
                    record["errors"] = errors.get(assignment.pk, [])
                if scores is not None:
                    record["scores"] = scores.get(assignment.pk, [])
                handle.write(json_line(record))
    write_annotations_csv_header(directory)


def _shown_documents(chunk):
    """{document id: external id} of the translations a chunk of contrastive assignments showed."""
    shown = {item["document"] for assignment in chunk for item in assignment.items or []}
    return external_ids(shown)


def _errors_by_assignment(study, ids, contrastive):
    grouped = {}
    rows = (
        TranslationError.objects.filter(assignment_id__in=ids)
        .order_by("assignment_id", "segment__document__position", "segment__index", "side", "start", "end",
                  "category__key", "severity", "id")
        .values_list("assignment_id", "segment__document__external_id", "segment__index", "side", "start", "end",
                     "text", "category__key", "severity", "comment", "suggestion__position")
    )  # fmt: skip
    for (
        assignment,
        document,
        index,
        side,
        start,
        end,
        text,
        category,
        severity,
        comment,
        suggestion,
    ) in rows.iterator(chunk_size=5000):
        error = {"document": document} if contrastive else {}
        error.update(segment=index, side=side, start=start, end=end, text=text)
        if scheme(study.protocol) == MQM:
            error["category"] = category
        error.update(severity=severity, comment=comment)
        if suggestion is not None:  # pre-filled from the document's suggestion, and kept
            error["suggestion"] = suggestion
        grouped.setdefault(assignment, []).append(error)
    return grouped


def _scores_by_assignment(ids, contrastive):
    grouped = {}
    rows = (
        SegmentScore.objects.filter(assignment_id__in=ids)
        .order_by("assignment_id", "segment__document__position", "segment__index")
        .values_list("assignment_id", "segment__document__external_id", "segment__index", "score")
    )
    for assignment, document, index, score in rows.iterator(chunk_size=5000):
        entry = {"document": document} if contrastive else {}
        # A whole score as a whole number: 70, as it was given, not 70.0.
        entry.update(segment=index, score=int(score) if score.is_integer() else score)
        grouped.setdefault(assignment, []).append(entry)
    return grouped
