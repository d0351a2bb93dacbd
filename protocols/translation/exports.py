"""The translation protocols' rows of the annotation table: a row per rated segment, with its
score and its errors (a JSON list). interop/formats/mqm_tsv.py writes a row per error."""

import json

from django.db.models import Count

from accounts.pseudonyms import pseudonyms_of
from exports.rows import CHUNK, iso, submitted_rows
from studies.models import Segment

from .models import SegmentScore, TranslationError

COLUMNS = [
    "study", "document", "input_id", "system", "segment", "score", "errors", "annotator", "assignment",
    "kind", "submitted_at", "active_seconds",
]  # fmt: skip
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


def _rated(study):
    """(assignment row, document pk) of every translation a submitted assignment rated: its
    document, or each of a contrastive block's, in the assignment's order."""
    assignments = (
        study.assignments.filter(status="submitted")
        .order_by("id")
        .values_list("id", "document_id", "items", "worker_id", "kind", "submitted_at", "active_seconds",
                     "worker__platform", "worker__external_id")
    )  # fmt: skip
    for row in assignments.iterator(chunk_size=CHUNK):
        if row[1] is not None:
            yield row, row[1]
        else:
            for item in sorted(row[2] or [], key=lambda item: item["position"]):
                yield row, item["document"]


def translation_rows(study):
    """One row per rated segment of each translation a submitted assignment rated, by assignment,
    translation and segment (only the segments an assignment's `items` name, when it names
    segments: report.rated_documents).

    Errors and scores are read alongside the assignments, in assignment order, so only one
    assignment's are held at a time; the corpus (documents and their segments) is read once.
    """
    pseudonym = pseudonyms_of(study.pk)
    errors_of, scores_of = _errors(study), _scores(study)
    current, errors, scores = None, {}, {}
    # The study's documents and their segments, read once (not two queries per rated document).
    described = {
        pk: (external_id, input_id, system)
        for pk, external_id, input_id, system in study.documents.values_list(
            "id", "external_id", "input_id", "system"
        ).iterator(chunk_size=CHUNK)
    }
    segments_of = {}
    for document, segment, index in (
        Segment.objects.filter(document__study=study)
        .order_by("document_id", "index")
        .values_list("document_id", "id", "index")
        .iterator(chunk_size=CHUNK)
    ):
        segments_of.setdefault(document, []).append((segment, index))
    for (pk, _document, items, worker, kind, submitted_at, seconds, platform, worker_id), document in _rated(
        study
    ):
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
    for (_pk, _document, items, *_rest), document in _rated(study):
        named = [i for i in items or [] if isinstance(i, int)]
        total += len(named) if named else counts.get(document, 0)
    return total
