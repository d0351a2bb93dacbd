"""The translation protocols' rows of the annotation table: a row per rated segment, with its
score and its errors (a JSON list). interop/formats/mqm_tsv.py writes a row per error."""

import json

from django.db.models import Count

from accounts.pseudonyms import pseudonyms_of
from exports.rows import CHUNK, iso, submitted_rows
from studies.batches import batched, by_index
from studies.models import Document, Segment

from .models import SegmentScore, TranslationError

COLUMNS = [
    "study", "document", "input_id", "system", "segment", "score", "errors", "annotator", "assignment",
    "kind", "submitted_at", "active_seconds",
]  # fmt: skip
IN_QUERY = 1000  # document ids in one query's IN list (SQLite allows 32,766 parameters)
TYPES = {"segment": "int", "score": "float", "assignment": "int", "active_seconds": "int"}


class _ByAssignment:
    """Rows of a query ordered by assignment id (its first field), handed out one assignment's at
    a time as the assignments come in the same order: memory holds one assignment's rows."""

    def __init__(self, rows):
        self._rows = iter(rows)
        self._next = next(self._rows, None)

    def of(self, assignment):
        taken = []
        # Rows of an assignment that rated nothing (no row of its own) are passed over.
        while self._next is not None and self._next[0] <= assignment:
            if self._next[0] == assignment:
                taken.append(self._next)
            self._next = next(self._rows, None)
        return taken


def _errors(study):
    rows = (
        submitted_rows(TranslationError, study)
        .order_by("assignment_id", "segment__index", "side", "start", "id")
        .values_list(
            "assignment_id",
            "segment_id",
            "side",
            "start",
            "end",
            "text",
            "category__key",
            "severity",
            "comment",
        )  # fmt: skip
    )
    return _ByAssignment(rows.iterator(chunk_size=CHUNK))


def _errors_by_segment(rows):
    errors = {}
    for _assignment, segment, side, start, end, text, category, severity, comment in rows:
        errors.setdefault(segment, []).append(
            {
                "side": side,
                "start": start,
                "end": end,
                "text": text,
                "category": category or "",
                "severity": severity,
                "comment": comment,
            }  # fmt: skip
        )
    return errors


def _scores(study):
    rows = (
        submitted_rows(SegmentScore, study)
        .order_by("assignment_id")
        .values_list("assignment_id", "segment_id", "score")
    )
    return _ByAssignment(rows.iterator(chunk_size=CHUNK))


def _assignments(study):
    """The submitted assignments' rows, by id: what a row of the table needs of each."""
    return (
        study.assignments.filter(status="submitted")
        .order_by("id")
        .values_list("id", "document_id", "items", "worker_id", "kind", "submitted_at", "active_seconds",
                     "worker__platform", "worker__external_id")
    )  # fmt: skip


def _rated(assignments):
    """(assignment row, document pk) of every translation the assignments rated: its document,
    or each of a contrastive block's, in the assignment's order."""
    for row in assignments:
        if row[1] is not None:
            yield row, row[1]
        else:
            for item in sorted(row[2] or [], key=lambda item: item["position"]):
                yield row, item["document"]


def _assignment_chunks(study):
    """The submitted assignments, CHUNK at a time, as lists."""
    return batched(_assignments(study).iterator(chunk_size=CHUNK), CHUNK)


def _corpus(study, documents):
    """({document pk: (external id, input id, system)}, {document pk: [(segment pk, index), ...]})
    of those of `documents` that are the study's, their segments by index.

    Each IN list is looked up by index (studies/batches.py, by_index) and neither query joins
    another table: the study is checked on the documents' own rows, so a chunk's reads cost the
    chunk's rows, not a scan of the study's documents and every segment per chunk."""
    described, segments_of = {}, {}
    documents = sorted(set(documents))
    for start in range(0, len(documents), IN_QUERY):
        with by_index():
            for pk, owner, external_id, input_id, system in (
                Document.objects.filter(pk__in=documents[start : start + IN_QUERY])
                .order_by()
                .values_list("id", "study_id", "external_id", "input_id", "system")
            ):
                if owner == study.pk:
                    described[pk] = (external_id, input_id, system)
            for document, segment, index in (
                Segment.objects.filter(document__in=[pk for pk in documents[start : start + IN_QUERY] if pk in described])
                .order_by("document_id", "index")
                .values_list("document_id", "id", "index")
            ):  # fmt: skip
                segments_of.setdefault(document, []).append((segment, index))
    return described, segments_of


def translation_rows(study):
    """One row per rated segment of each translation a submitted assignment rated, by assignment,
    translation and segment (only the segments an assignment's `items` name, when it names
    segments: report.rated_documents).

    The assignments are read CHUNK at a time, and with each chunk the documents it rated and
    their segments; errors and scores are read alongside, in assignment order, so only one
    assignment's are held at a time. Memory holds a chunk's corpus, never the study's.
    """
    pseudonym = pseudonyms_of(study.pk)
    errors_of, scores_of = _errors(study), _scores(study)
    current, errors, scores = None, {}, {}
    for chunk in _assignment_chunks(study):
        described, segments_of = _corpus(study, (document for _row, document in _rated(chunk)))
        for assignment, document in _rated(chunk):
            pk, _document, items, worker, kind, submitted_at, seconds, platform, worker_id = assignment
            if pk != current:
                current = pk
                errors = _errors_by_segment(errors_of.of(pk))
                scores = {segment: score for _assignment, segment, score in scores_of.of(pk)}
            if document not in described:
                continue
            (external_id, input_id, system), segments = described[document], segments_of.get(document, [])
            named = {i for i in items or [] if isinstance(i, int)}
            for segment, index in segments:
                if named and index not in named:
                    continue
                score = scores.get(segment)
                row = [study.slug, external_id, input_id, system, index, "" if score is None else score,
                       json.dumps(errors.get(segment, []), ensure_ascii=False), pseudonym(worker), pk, kind,
                       iso(submitted_at), seconds]  # fmt: skip
                yield row, (platform, worker_id)


def translation_row_count(study):
    counts = dict(
        Segment.objects.filter(document__study=study)
        .values("document_id")
        .annotate(n=Count("id"))
        .values_list("document_id", "n")
    )
    total = 0
    for (_pk, _document, items, *_rest), document in _rated(_assignments(study).iterator(chunk_size=CHUNK)):
        named = [i for i in items or [] if isinstance(i, int)]
        total += len(named) if named else counts.get(document, 0)
    return total
