"""The translation report: each system's score with its interval, the ranking with pairwise
significance and clusters (DA also on z-scores), errors by severity and category, score and
span agreement, and rank stability between halves of the raters.

Scores: MQM, a segment's sum of error weights (lower is better; a rated segment without an
error scores 0 and counts); ESA and DA, the segment's score (higher is better). A system's
score is its mean over the (segment, rater) pairs it was rated in; the ranking compares
systems segment by segment, a segment's raters averaged (reports/metrics/ranking.py).
"""

from accounts.pseudonyms import pseudonyms_of
from annotations.models import Assignment
from reports.metrics.mqm import WeightMissing
from reports.metrics.ranking import item_means, rank_stability, rank_systems, z_normalised
from reports.metrics.translation import (
    MarkedError,
    RatedSegment,
    score_agreement,
    span_agreement,
    top_category,
)
from studies.models import Segment

from . import config
from .keys import DA, MQM, WITH_SPANS
from .models import SegmentScore, TranslationError

CHUNK = 20_000
SCORE_NAMES = {MQM: "MQM score", "esa": "ESA score", DA: "DA score"}


def _submitted(study):
    return Assignment.objects.filter(
        study=study, status=Assignment.Status.SUBMITTED, kind=Assignment.Kind.MAIN, document__isnull=False
    )


def rated_segments(study):
    """Every segment of every submitted main assignment, as RatedSegment rows (pseudonyms only):
    the segments its `items` name when it has them (an imported rater rated only some segments of
    a document: rated_indices), else all of the document's. An MQM row's score is its
    errors' weights summed; WeightMissing names an unweighted severity."""
    annotator_of = pseudonyms_of(study.pk)
    submitted = _submitted(study)
    assignments = {
        pk: (worker, document, input_id or external_id, system, items)
        for pk, worker, document, input_id, external_id, system, items in submitted.values_list(
            "id",
            "worker_id",
            "document_id",
            "document__input_id",
            "document__external_id",
            "document__system",
            "items",
        ).iterator(chunk_size=CHUNK)
    }
    errors, categories = {}, {}
    for assignment, index, side, start, end, label, severity in (
        TranslationError.objects.filter(assignment__in=submitted)
        .values_list("assignment_id", "segment__index", "side", "start", "end", "category__label", "severity")
        .iterator(chunk_size=CHUNK)
    ):
        errors.setdefault((assignment, index), []).append(
            MarkedError(side, start, end, label or "", severity)
        )
        categories[label] = True
    scores = {
        (assignment, index): score
        for assignment, index, score in SegmentScore.objects.filter(assignment__in=submitted)
        .values_list("assignment_id", "segment__index", "score")
        .iterator(chunk_size=CHUNK)
    }
    indices_of = segment_indices(submitted.values("document_id"))
    weights = config.weights(study) if study.protocol == MQM else None
    rows = []
    for pk, (worker, document, input_id, system, items) in assignments.items():
        for index in rated_indices(items, indices_of.get(document, ())):
            marked = tuple(errors.get((pk, index), ()))
            if weights is not None:
                score = sum(weights.weight(e.category, e.severity) for e in marked)
            else:
                score = scores.get((pk, index))
            rows.append(
                RatedSegment(system or "(no system)", input_id, index, annotator_of(worker), score, marked)
            )
    return rows


def rated_indices(items, indices):
    """The indices of the segments an assignment rated: its `items` when it has them (an imported
    rater rated only some segments of a document: interop/mqm), else every one of
    `indices`, the document's."""
    return items or indices


def segment_indices(documents):
    """{document pk: its segments' indices, in order}, of `documents` (pks, or a query of them)."""
    indices = {}
    for document, index in (
        Segment.objects.filter(document__in=documents)
        .order_by("document_id", "index")
        .values_list("document_id", "index")
        .iterator(chunk_size=CHUNK)
    ):
        indices.setdefault(document, []).append(index)
    return indices


def _severity_table(rows, severities):
    by_system = {}
    for row in rows:
        entry = by_system.setdefault(row.system, {"segments": 0, **dict.fromkeys(severities, 0)})
        entry["segments"] += 1
        for error in row.errors:
            entry[error.severity] = entry.get(error.severity, 0) + 1
    return by_system


def _category_points(rows, weights):
    """{system: {top-level category: error points per rated segment}} (MQM)."""
    points, rated = {}, {}
    for row in rows:
        rated[row.system] = rated.get(row.system, 0) + 1
        for error in row.errors:
            top = top_category(error.category) or "(none)"
            by = points.setdefault(row.system, {})
            by[top] = by.get(top, 0.0) + weights.weight(error.category, error.severity)
    return {
        system: {c: v / rated[system] for c, v in sorted(points.get(system, {}).items())} for system in rated
    }


def study_report(study, progress=None):
    protocol = study.protocol
    try:
        rows = rated_segments(study)
    except WeightMissing as missing:
        return {"protocol": protocol, "segments_rated": 0, "reason": f"the study's MQM weights: {missing}"}
    if progress:
        progress(0.5)
    scored = [row for row in rows if row.score is not None]
    higher_is_better = protocol != MQM
    systems = sorted({row.system for row in rows})
    result = {
        "protocol": protocol,
        "score_name": SCORE_NAMES[protocol],
        "higher_is_better": higher_is_better,
        "segments_rated": len(rows),
        "raters": len({row.rater for row in rows}),
        "systems": [],
    }
    if not rows:
        result["reason"] = "no submitted work yet"
        return result
    by_system = {}
    for row in scored:
        by_system.setdefault(row.system, []).append(row.score)
    severities = config.severities(study)
    counts = _severity_table(rows, severities) if protocol in WITH_SPANS else {}
    result["systems"] = [
        {
            "system": system,
            "score": sum(by_system[system]) / len(by_system[system]) if by_system.get(system) else None,
            "segments": len(by_system.get(system, ())),
            "errors": {s: counts[system].get(s, 0) for s in severities} if counts else {},
        }
        for system in systems
    ]
    if protocol == MQM:
        weights = config.weights(study)
        result["weights"] = weights.as_config()
        points = _category_points(rows, weights)
        for entry in result["systems"]:
            entry["categories"] = points.get(entry["system"], {})
    items = [(row.system, (row.document, row.segment), row.score) for row in scored]
    result["ranking"] = rank_systems(item_means(items, systems), higher_is_better=higher_is_better)
    quads = [(row.system, (row.document, row.segment), row.rater, row.score) for row in scored]
    if protocol == DA:
        z = [(s, i, score) for s, i, _, score in z_normalised(quads)]
        result["ranking_z"] = rank_systems(item_means(z, systems), higher_is_better=True)
    result["ranking"]["stability"] = rank_stability(quads)
    if protocol == DA:
        result["ranking_z"]["stability"] = rank_stability(z_normalised(quads))
    result["score_agreement"] = score_agreement(rows)
    if protocol in WITH_SPANS:
        result["span_agreement"] = span_agreement(rows)
    if progress:
        progress(1.0)
    return result
