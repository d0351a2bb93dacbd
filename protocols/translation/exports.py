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


def _errors_by_segment(study):
    errors = {}
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
    for assignment, segment, side, start, end, text, category, severity, comment in rows.iterator(
        chunk_size=CHUNK
    ):
        errors.setdefault((assignment, segment), []).append(
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


def translation_rows(study):
    """One row per segment of each submitted assignment (per rated segment, when its `items` name
    them: report.rated_indices), by assignment and segment."""
    pseudonym = pseudonyms_of(study.pk)
    errors = _errors_by_segment(study)
    scores = {
        (a, s): score
        for a, s, score in submitted_rows(SegmentScore, study).values_list(
            "assignment_id", "segment_id", "score"
        )
    }
    segments_of = {}
    assignments = (
        study.assignments.filter(status="submitted", document__isnull=False)
        .order_by("id")
        .values_list("id", "document_id", "document__external_id", "document__input_id", "document__system",
                     "worker_id", "kind", "submitted_at", "active_seconds", "worker__platform", "worker__external_id",
                     "items")
    )  # fmt: skip
    for (pk, document, external_id, input_id, system, worker, kind, submitted_at, seconds, platform,
         worker_id, items) in assignments.iterator(chunk_size=CHUNK):  # fmt: skip
        if document not in segments_of:  # a document's segments, read once for all its raters
            segments_of[document] = list(
                Segment.objects.filter(document_id=document).order_by("index").values_list("id", "index")
            )
        rated = set(items) if items else None
        for segment, index in segments_of[document]:
            if rated is not None and index not in rated:
                continue
            score = scores.get((pk, segment))
            row = [study.slug, external_id, input_id, system, index, "" if score is None else score,
                   json.dumps(errors.get((pk, segment), []), ensure_ascii=False), pseudonym(worker), pk, kind,
                   iso(submitted_at), seconds]  # fmt: skip
            yield row, (platform, worker_id)


def translation_row_count(study):
    counts = dict(
        Segment.objects.filter(document__study=study)
        .values("document_id")
        .annotate(n=Count("id"))
        .values_list("document_id", "n")
    )
    return sum(
        len(items) if items else counts.get(document, 0)
        for document, items in study.assignments.filter(status="submitted", document__isnull=False)
        .values_list("document_id", "items")
        .iterator(chunk_size=CHUNK)
    )
