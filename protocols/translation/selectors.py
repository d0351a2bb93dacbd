"""Reads for the translation page: the document's segments with their sources, the study's
severities, categories and scale, and what the worker has saved."""

from django.conf import settings
from django.urls import reverse

from annotations.selectors import completion_data, task_urls

from . import config
from .keys import REFERENCES, SOURCES, WITH_SCORES, WITH_SPANS
from .services import score_warning


def translation_task_urls(token):
    return {
        **task_urls(token),
        "errors": reverse("task-api-translation-errors", args=[token]),
        "scores": reverse("task-api-translation-scores", args=[token]),
        "move": reverse("task-api-translation-move", args=[token]),
    }


def error_data(error, segment_index):
    suggested = {"suggested": True} if error.suggestion_id is not None else {}
    return {
        **suggested,
        "client_id": error.client_id,
        "segment": segment_index,
        "side": error.side,
        "start": error.start,
        "end": error.end,
        "text": error.text,
        "category": error.category.key if error.category_id else None,
        "severity": error.severity,
        "comment": error.comment,
    }


def translation_state(assignment):
    """The part of the page's data that changes as the worker works (GET state)."""
    study = assignment.study
    errors = [
        error_data(e, e.segment.index)
        for e in assignment.translation_errors.select_related("segment", "category").order_by(
            "segment__index", "side", "start", "id"
        )
    ]
    scores = {s.segment.index: s.score for s in assignment.segment_scores.select_related("segment")}
    severities_by_segment = {}
    for e in errors:
        severities_by_segment.setdefault(e["segment"], []).append(e["severity"])
    return {
        "status": assignment.status,
        "current_segment": assignment.current_segment,
        "furthest_segment": max([assignment.current_segment, *assignment.segments_visited]),
        "active_seconds": assignment.active_seconds,
        "errors": errors,
        "scores": {str(index): score for index, score in sorted(scores.items())},
        "warnings": {
            str(index): warning
            for index, score in scores.items()
            if (warning := score_warning(study, score, severities_by_segment.get(index, [])))
        },
        "completion": completion_data(assignment),
    }


def _aligned(meta, key, count):
    values = meta.get(key) if isinstance(meta, dict) else None
    if not isinstance(values, list):
        return [""] * count
    return [v if isinstance(v, str) else "" for v in values[:count]] + [""] * max(0, count - len(values))


def translation_page_data(assignment):
    """Everything the page starts from, for json_script (never raw HTML)."""
    study = assignment.study
    document = assignment.document
    segments = list(document.segments.order_by("index").only("index", "text"))
    sources = _aligned(document.meta, SOURCES, len(segments))
    references = _aligned(document.meta, REFERENCES, len(segments)) if config.show_reference(study) else None
    categories = (
        study.taxonomy.categories.order_by("order", "key")
        if study.protocol == "mqm" and study.taxonomy_id
        else []
    )
    scale = config.scale(study)
    warnings = config.score_warnings(study)
    return {
        "token": assignment.token,
        "protocol": study.protocol,
        "api": translation_task_urls(assignment.token),
        "study": {
            "title": study.title,
            "marks_errors": study.protocol in WITH_SPANS,
            "scores": study.protocol in WITH_SCORES,
            "severities": config.severities(study),
            "scale": {"min": scale[0], "max": scale[1], "labels": config.scale_labels(study)}
            if scale
            else None,
            "score_warnings": {"low": warnings[0], "high": warnings[1]} if warnings else None,
            "source_spans": config.source_spans(study),
            "missing_marker": config.missing_marker(study),
            "max_errors_per_segment": config.max_errors(study),
            "show_reference": references is not None,
        },
        "document": {
            "id": document.external_id,
            "source_lang": (document.meta or {}).get("source_lang", ""),
            "target_lang": (document.meta or {}).get("target_lang", ""),
        },
        "segments": [
            {
                "index": s.index,
                "source": sources[i],
                "target": s.text,
                **({"reference": references[i]} if references is not None else {}),
            }
            for i, s in enumerate(segments)
        ],
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
