"""A worker's quality checks scored against their injected errors: per degraded segment, whether
they marked it (MQM, ESA) and scored it lower than they scored the original (ESA, DA)."""

from dataclasses import dataclass

from django.db.models.fields.json import KT

from annotations.models import Assignment
from reports.metrics.mqm import WeightMissing
from reports.metrics.quality_checks import (
    DETECTED,
    DETECTED_OR_WORSE,
    WORSE,
    Injected,
    check_caught,
    check_verdict,
    detected,
    worse,
)
from reports.metrics.translation import MarkedError
from studies.models import Document, Segment

from .. import config
from ..degrade import REPLACE
from ..keys import DA, ESA, MQM, QUALITY_CHECK
from ..models import SegmentScore, TranslationError

RULES = {MQM: DETECTED, ESA: DETECTED_OR_WORSE, DA: WORSE}
RULE_WORDS = {
    DETECTED: "the injected span is marked",
    DETECTED_OR_WORSE: "the injected span is marked, or the segment is scored lower than in the original",
    WORSE: "the segment is scored lower than in the original",
}


def injected_errors(document):
    """{segment index: Injected} of a check document ({} for any other document)."""
    meta = document.meta if isinstance(document.meta, dict) else {}
    gold = meta.get(QUALITY_CHECK)
    if document.kind != Document.Kind.ATTENTION or not isinstance(gold, dict):
        return {}
    found = {}
    for entry in gold.get("segments") or ():
        try:
            window = entry.get("window") or [entry["start"], entry["end"]]
            found[int(entry["index"])] = Injected(
                int(entry["start"]),
                int(entry["end"]),
                int(window[0]),
                int(window[1]),
                gold.get("mode", REPLACE),
            )
        except (KeyError, TypeError, ValueError, IndexError):
            continue  # a hand-edited entry that says nothing usable
    return found


def _segment_work(study, assignments):
    """{(assignment, index): (score or None, [MarkedError])} of the `assignments` (a queryset, read
    as a subquery): ESA and DA the worker's score, MQM the errors' weights summed (None when a
    severity has no weight; a segment without an error scores 0)."""
    errors = {}
    for assignment, index, side, start, end, label, severity in TranslationError.objects.filter(
        assignment__in=assignments.values("id")
    ).values_list("assignment_id", "segment__index", "side", "start", "end", "category__label", "severity"):
        errors.setdefault((assignment, index), []).append(
            MarkedError(side, start, end, label or "", severity)
        )
    if study.protocol != MQM:
        scores = {
            (a, i): score
            for a, i, score in SegmentScore.objects.filter(
                assignment__in=assignments.values("id")
            ).values_list("assignment_id", "segment__index", "score")
        }
        return {key: (scores.get(key), errors.get(key, [])) for key in {*scores, *errors}}
    weights = config.weights(study)
    indexes = {}
    for document, index in Segment.objects.filter(document__in=assignments.values("document_id")).values_list(
        "document_id", "index"
    ):
        indexes.setdefault(document, []).append(index)
    work = {}
    for assignment, document in assignments.values_list("id", "document_id"):
        for index in indexes.get(document, ()):
            marked = errors.get((assignment, index), [])
            try:
                score = sum(weights.weight(e.category, e.severity) for e in marked)
            except WeightMissing:
                score = None
            work[(assignment, index)] = (score, marked)
    return work


@dataclass(frozen=True)
class CheckedWork:
    """One worker's judgment of one degraded segment, beside their judgment of the original."""

    assignment: int
    worker: int
    document: str  # the check's external_id
    original: str  # the original's external_id
    segment: int
    degraded_score: float | None
    original_score: float | None
    detected: bool | None  # None for DA
    caught: bool | None


def checked_work(study, check_assignments):
    """CheckedWork of each degraded segment of `check_assignments` (a queryset of submitted main
    assignments on checks), beside the same worker's submitted work on the original."""
    checks = [a for a in check_assignments.select_related("document") if injected_errors(a.document)]
    if not checks:
        return []
    originals = Document.objects.filter(study=study, kind=Document.Kind.ATTENTION).annotate(
        original=KT(f"meta__{Document.COPY_OF}")
    )
    on_originals = Assignment.objects.filter(
        study=study, kind=Assignment.Kind.MAIN, status=Assignment.Status.SUBMITTED,
        document__kind=Document.Kind.MAIN, document__external_id__in=originals.values("original"),
        worker__in=check_assignments.values("worker_id"),
    )  # fmt: skip
    original_of = {
        (worker, external_id): pk
        for pk, worker, external_id in on_originals.values_list("id", "worker_id", "document__external_id")
    }
    work = {**_segment_work(study, check_assignments), **_segment_work(study, on_originals)}
    rule = RULES[study.protocol]
    higher_is_better = study.protocol != MQM
    rows = []
    for assignment in checks:
        copy_of = assignment.document.meta.get(Document.COPY_OF)
        original = original_of.get((assignment.worker_id, copy_of))
        for index, error in sorted(injected_errors(assignment.document).items()):
            degraded_score, marked = work.get((assignment.pk, index), (None, []))
            original_score = work.get((original, index), (None, []))[0] if original is not None else None
            was_detected = detected(marked, error) if study.protocol != DA else None
            was_worse = worse(original_score, degraded_score, higher_is_better)
            rows.append(
                CheckedWork(
                    assignment.pk, assignment.worker_id, assignment.document.external_id, copy_of, index,
                    degraded_score, original_score, was_detected,
                    check_caught(rule, was_detected=was_detected, was_worse=was_worse),
                )
            )  # fmt: skip
    return rows


def score_checks(assignments):
    """Protocol.score_against_gold of translation studies: one worker's check assignments scored
    against their injected errors, or None when none of them is a check.

    `passed` is None when no degraded segment could be judged (DA, before the worker rated the
    original), else whether they caught at least `attention_min_caught` of them."""
    assignments = [a for a in assignments if a.document_id is not None and a.kind == Assignment.Kind.MAIN]
    if not assignments:
        return None
    study = assignments[0].study
    rows = checked_work(study, Assignment.objects.filter(pk__in=[a.pk for a in assignments]))
    if not rows:
        return None
    threshold = config.min_caught(study)
    passed, judged, caught = check_verdict([row.caught for row in rows], threshold)
    return {
        "documents": len({row.assignment for row in rows}),
        "rule": RULE_WORDS[RULES[study.protocol]],
        "min_caught": threshold,
        "segments": [
            {
                "document": row.document,
                "original": row.original,
                "segment": row.segment,
                "degraded_score": row.degraded_score,
                "original_score": row.original_score,
                "detected": row.detected,
                "caught": row.caught,
            }
            for row in rows
        ],  # fmt: skip
        "judged": judged,
        "caught": caught,
        "passed": passed,
    }


def checks_of_original(assignment):
    """The same worker's submitted check assignments on copies of this assignment's document. A
    submit's locked assignment says whether there is any (`copies_submitted`, read with the lock:
    annotations/services/task.py), and none is then read."""
    if assignment.document_id is None or assignment.document.kind != Document.Kind.MAIN:
        return Assignment.objects.none()
    if not getattr(assignment, "copies_submitted", True):
        return Assignment.objects.none()
    return Assignment.objects.filter(
        study_id=assignment.study_id, worker_id=assignment.worker_id, kind=Assignment.Kind.MAIN,
        status=Assignment.Status.SUBMITTED, document__kind=Document.Kind.ATTENTION,
        **{f"document__meta__{Document.COPY_OF}": assignment.document.external_id},
    ).select_related("document", "study")  # fmt: skip


# --- the report -------------------------------------------------------------------------------
