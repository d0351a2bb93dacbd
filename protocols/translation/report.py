"""The translation report: each system's score with its interval, the ranking with pairwise
significance and clusters (DA also on z-scores), errors by severity and category, score and
span agreement, rank stability between halves of the raters, and each rater's reliability on
the study's quality checks (quality_checks.py; the checks' copies count nowhere else).

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
from studies.models import Document, Segment

from . import config
from .assistance.report import assistance_for
from .keys import DA, MQM, WITH_SPANS, is_contrastive, scheme
from .models import SegmentScore, TranslationError
from .quality_checks.report import quality_control

CHUNK = 20_000
SCORE_NAMES = {MQM: "MQM score", "esa": "ESA score", DA: "DA score"}


def _submitted(study):
    """Submitted main work on main documents: quality checks (attention) are in quality_control."""
    return Assignment.objects.filter(
        study=study, status=Assignment.Status.SUBMITTED, kind=Assignment.Kind.MAIN
    ).exclude(document__kind=Document.Kind.ATTENTION)


def rated_documents(submitted):
    """(assignment pk, worker pk, document pk, segment indices or None) of every translation the
    submitted assignments rated: an assignment's document, with the segments its `items` name
    when it has them (an imported rater rated only some segments of a document: interop/mqm),
    or each document of a contrastive block (its items are the block's documents)."""
    for pk, worker, document, items in submitted.values_list(
        "id", "worker_id", "document_id", "items"
    ).iterator(chunk_size=CHUNK):
        if document is not None:
            yield pk, worker, document, [i for i in items or [] if isinstance(i, int)] or None
        else:
            for item in items or []:
                if isinstance(item, dict) and "document" in item:
                    yield pk, worker, item["document"], None


def rated_segments(study, submitted=None):
    """Every rated segment of every submitted main assignment (or of the `submitted` assignments,
    e.g. an LLM judge's model assignments), as RatedSegment rows (pseudonyms only; a judge keeps
    its key): the segments an assignment's `items` name when it has them (rated_documents), else
    all of the document's. An MQM row's score is its errors' weights summed; WeightMissing names
    an unweighted severity."""
    annotator_of = pseudonyms_of(study.pk)
    submitted = _submitted(study) if submitted is None else submitted
    rated = list(rated_documents(submitted))
    # The study's documents, read whole rather than by a list of the rated ones' ids: a campaign
    # of 300,000 documents would pass SQLite's limit of parameters in one statement.
    described = {
        pk: (input_id or external_id, system)
        for pk, input_id, external_id, system in study.documents.values_list(
            "id", "input_id", "external_id", "system"
        ).iterator(chunk_size=CHUNK)
    }
    errors = {}
    for assignment, document, index, side, start, end, label, severity in (
        TranslationError.objects.filter(assignment__in=submitted)
        .values_list(
            "assignment_id",
            "segment__document_id",
            "segment__index",
            "side",
            "start",
            "end",
            "category__label",
            "severity",
        )  # fmt: skip
        .iterator(chunk_size=CHUNK)
    ):
        errors.setdefault((assignment, document, index), []).append(
            MarkedError(side, start, end, label or "", severity)
        )
    scores = {
        (assignment, document, index): score
        for assignment, document, index, score in SegmentScore.objects.filter(assignment__in=submitted)
        .values_list("assignment_id", "segment__document_id", "segment__index", "score")
        .iterator(chunk_size=CHUNK)
    }
    indices_of = segment_indices(study.documents.values("id"))
    weights = config.weights(study) if scheme(study.protocol) == MQM else None
    rows = []
    for pk, worker, document, subset in rated:
        if document not in described:
            continue
        input_id, system = described[document]
        for index in rated_indices(subset, indices_of.get(document, ())):
            marked = tuple(errors.get((pk, document, index), ()))
            if weights is not None:
                score = sum(weights.weight(e.category, e.severity) for e in marked)
            else:
                score = scores.get((pk, document, index))
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
    protocol = scheme(study.protocol)
    try:
        rows = rated_segments(study)
    except WeightMissing as missing:
        return {"scheme": protocol, "segments_rated": 0, "reason": f"the study's MQM weights: {missing}"}
    if progress:
        progress(0.5)
    scored = [row for row in rows if row.score is not None]
    higher_is_better = protocol != MQM
    systems = sorted({row.system for row in rows})
    result = {
        "scheme": protocol,
        "contrastive": is_contrastive(study.protocol),
        "score_name": SCORE_NAMES[protocol],
        "higher_is_better": higher_is_better,
        "segments_rated": len(rows),
        "raters": len({row.rater for row in rows}),
        "systems": [],
    }
    checks = quality_control(study)
    if checks is not None:
        result["quality_control"] = checks
    if not rows:
        result["reason"] = "no submitted work yet"
        return result
    by_system = {}
    for row in scored:
        by_system.setdefault(row.system, []).append(row.score)
    severities = config.severities(study)
    counts = _severity_table(rows, severities) if protocol in WITH_SPANS else {}
    # The severities in the study's order, mildest first: a JSON object's keys lose their order
    # in PostgreSQL's jsonb, so the tables read this list, not the keys of `errors`.
    result["severities"] = severities if counts else []
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
    settings = config.ranking_settings(study)
    result["ranking"] = rank_systems(
        item_means(items, systems), higher_is_better=higher_is_better, **settings
    )
    quads = [(row.system, (row.document, row.segment), row.rater, row.score) for row in scored]
    if protocol == DA:
        z = [(s, i, score) for s, i, _, score in z_normalised(quads)]
        result["ranking_z"] = rank_systems(item_means(z, systems), higher_is_better=True, **settings)
    result["ranking"]["stability"] = rank_stability(quads)
    if protocol == DA:
        result["ranking_z"]["stability"] = rank_stability(z_normalised(quads))
    result["score_agreement"] = score_agreement(rows)
    if protocol in WITH_SPANS:
        result["span_agreement"] = span_agreement(rows)
        if (assistance := assistance_for(study, rated_segments)) is not None:
            result["assistance"] = assistance
    if progress:
        progress(1.0)
    return result
