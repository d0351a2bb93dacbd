"""Reads for the translation page: the document's segments with their sources, the study's
severities, categories and scale, and what the worker has saved."""

from django.conf import settings
from django.db.models import Avg
from django.urls import reverse

from annotations.models import Assignment
from annotations.selectors import completion_data, task_urls
from studies.models import Document

from . import config
from .keys import MQM, REFERENCES, SOURCES, WITH_SCORES, WITH_SPANS, is_contrastive, scheme
from .models import SegmentScore
from .services import outputs, score_warning

SUGGESTED_BADGE = "Suggested"


def translation_task_urls(token):
    return {
        **task_urls(token),
        "errors": reverse("task-api-translation-errors", args=[token]),
        "scores": reverse("task-api-translation-scores", args=[token]),
        "move": reverse("task-api-translation-move", args=[token]),
    }


def error_data(error, segment_index, output=0):
    # Only a judge's error pre-filled for the suggestion arm says so (assistance/), with the badge
    # the page shows on it: the control arm's data (and the page's code) never holds the word.
    suggested = {"suggested": True, "badge": SUGGESTED_BADGE} if error.suggestion_id is not None else {}
    return {
        **suggested,
        "client_id": error.client_id,
        "output": output,
        "segment": segment_index,
        "side": error.side,
        "start": error.start,
        "end": error.end,
        "text": error.text,
        "category": error.category.key if error.category_id else None,
        "severity": error.severity,
        "comment": error.comment,
    }


def score_key(assignment, output, index):
    """The key of a segment's score in the page's state: its index, or "output:index" on a
    contrastive page (several translations of each segment)."""
    return f"{output}:{index}" if is_contrastive(assignment.study.protocol) else str(index)


def translation_state(assignment):
    """The part of the page's data that changes as the worker works (GET state)."""
    study = assignment.study
    place = {document: position for position, document in enumerate(outputs(assignment))}
    errors = [
        error_data(e, e.segment.index, place.get(e.segment.document_id, 0))
        for e in assignment.translation_errors.select_related("segment", "category").order_by(
            "segment__index", "side", "start", "id"
        )
    ]
    scores = {
        (place.get(s.segment.document_id, 0), s.segment.index): s.score
        for s in assignment.segment_scores.select_related("segment")
    }
    severities_by_segment = {}
    for e in errors:
        severities_by_segment.setdefault((e["output"], e["segment"]), []).append(e["severity"])
    return {
        "status": assignment.status,
        "current_segment": assignment.current_segment,
        "furthest_segment": max([assignment.current_segment, *assignment.segments_visited]),
        "active_seconds": assignment.active_seconds,
        "errors": errors,
        "scores": {score_key(assignment, *key): score for key, score in sorted(scores.items())},
        "warnings": {
            score_key(assignment, *key): warning
            for key, score in scores.items()
            if (warning := score_warning(study, score, severities_by_segment.get(key, [])))
        },
        "completion": completion_data(assignment),
    }


def _aligned(meta, key, count):
    values = meta.get(key) if isinstance(meta, dict) else None
    if not isinstance(values, list):
        return [""] * count
    return [v if isinstance(v, str) else "" for v in values[:count]] + [""] * max(0, count - len(values))


def _document_segments(document, study):
    segments = list(document.segments.order_by("index").only("index", "text"))
    sources = _aligned(document.meta, SOURCES, len(segments))
    references = _aligned(document.meta, REFERENCES, len(segments)) if config.show_reference(study) else None
    return segments, sources, references


def translation_page_data(assignment):
    """Everything the page starts from, for json_script (never raw HTML). A contrastive page
    lists its translations as `outputs` under neutral names, and each segment's `targets` in
    the worker's order; it never names a system or a document."""
    study = assignment.study
    contrastive = is_contrastive(study.protocol)
    documents = {d.pk: d for d in study.documents.filter(pk__in=outputs(assignment))}
    ordered = [documents[pk] for pk in outputs(assignment) if pk in documents]
    first = ordered[0]
    segments, sources, references = _document_segments(first, study)
    count = min(d.segments.count() for d in ordered)
    if contrastive:
        texts = [dict(d.segments.order_by("index").values_list("index", "text")) for d in ordered]
        rows = [
            {"index": s.index, "source": sources[i], "targets": [by_index.get(s.index, "") for by_index in texts],
             **({"reference": references[i]} if references is not None else {})}
            for i, s in enumerate(segments[:count])
        ]  # fmt: skip
    else:
        rows = [
            {"index": s.index, "source": sources[i], "target": s.text,
             **({"reference": references[i]} if references is not None else {})}
            for i, s in enumerate(segments)
        ]  # fmt: skip
    categories = (
        study.taxonomy.categories.order_by("order", "key")
        if scheme(study.protocol) == MQM and study.taxonomy_id
        else []
    )
    scale = config.scale(study)
    warnings = config.score_warnings(study)
    meta = first.meta or {}
    return {
        "token": assignment.token,
        "protocol": study.protocol,
        "scheme": scheme(study.protocol),
        "api": translation_task_urls(assignment.token),
        "study": {
            "title": study.title,
            "marks_errors": scheme(study.protocol) in WITH_SPANS,
            "scores": scheme(study.protocol) in WITH_SCORES,
            "severities": config.severities(study),
            "scale": {"min": scale[0], "max": scale[1], "labels": config.scale_labels(study)}
            if scale
            else None,
            "score_warnings": {"low": warnings[0], "high": warnings[1]} if warnings else None,
            "source_spans": config.source_spans(study),
            "missing_marker": config.missing_marker(study),
            "max_errors_per_segment": config.max_errors(study),
            "show_reference": references is not None,
            "contrastive": contrastive,
            # Whether the worker is told that quality checks exist (never which document is one).
            "quality_checks_announced": config.checks_announced(study),
        },
        "document": {
            # A quality check shows its original's id: nothing on the page tells it apart.
            **(
                {}
                if contrastive
                else {
                    "id": meta.get(Document.COPY_OF) or first.external_id
                    if first.kind == Document.Kind.ATTENTION
                    else first.external_id
                }
            ),
            "source_lang": meta.get("source_lang", ""),
            "target_lang": meta.get("target_lang", ""),
        },
        **(
            {"outputs": [{"position": n, "label": f"Translation {n + 1}"} for n in range(len(ordered))]}
            if contrastive
            else {}
        ),
        "segments": rows,
        "categories": [
            {
                "key": c.key,
                "label": c.label,
                "description": c.description,
                "group": c.group,
                "color": c.color,
                "shortcut": c.shortcut,
                "whole_segment": c.whole_sentence,
            }
            for c in categories
        ],
        "available_from": assignment.available_from.isoformat() if assignment.available_from else None,
        "activity_interval_seconds": getattr(settings, "TASK_ACTIVITY_INTERVAL_SECONDS", 15),
        **translation_state(assignment),
    }


def document_scores(study):
    """{document id: the mean of its segment scores over its submitted main assignments}: one cell
    (system, item) each, for adaptive allocation (annotations/services/allocation.py). One query."""
    rows = (
        SegmentScore.objects.filter(
            assignment__study=study,
            assignment__kind=Assignment.Kind.MAIN,
            assignment__status=Assignment.Status.SUBMITTED,
            assignment__document__kind=Document.Kind.MAIN,
        )
        .values("assignment__document_id")
        .annotate(mean=Avg("score"))
        .values_list("assignment__document_id", "mean")
    )
    return dict(rows)
