"""Reads for the span page: the document's segments, the taxonomy, the worker's spans."""

from django.conf import settings
from django.urls import reverse

from annotations.selectors import completion_data, task_urls

from .assistance.suggestions import shows_suggestions, task_suggestions
from .document_questions import ordered_answers, study_questions
from .models import DocumentAnswer


def span_task_urls(token, *, suggestion_arm=False):
    """The page's API addresses; the suggestions' only for the suggestion arm (arms stay blind)."""
    urls = {
        **task_urls(token),
        "annotations": reverse("task-api-annotations", args=[token]),
        "move": reverse("task-api-move", args=[token]),
        "document_answers": reverse("task-api-document-answers", args=[token]),
    }
    if suggestion_arm:
        urls["suggestions"] = reverse("task-api-suggestions", args=[token])
    return urls


def annotation_data(annotation, segment_index, paired_index=None):
    return {
        "client_id": annotation.client_id,
        "category": annotation.category.key,
        "segment": segment_index,
        "start": annotation.start,
        "end": annotation.end,
        "text": annotation.text,
        "comment": annotation.comment,
        "paired": None
        if annotation.paired_segment_id is None
        else {
            "segment": paired_index,
            "start": annotation.paired_start,
            "end": annotation.paired_end,
            "text": annotation.paired_text,
        },
    }


def task_annotations(assignment, segment_index_of=None):
    """The assignment's annotations in reading order, as the page's JSON."""
    rows = assignment.annotations.select_related("category", "segment", "paired_segment").order_by(
        "segment__index", "start", "end", "id"
    )
    return [
        annotation_data(row, row.segment.index, row.paired_segment.index if row.paired_segment_id else None)
        for row in rows
    ]


def document_answers_of(assignment, questions):
    """The assignment's stored answers about the whole document, in the questions' order."""
    if not questions:
        return {}
    row = DocumentAnswer.objects.filter(assignment=assignment).only("answers").first()
    return ordered_answers(questions, row.answers) if row is not None else {}


def task_state(assignment):
    """The part of the page's data that changes as the worker works (GET state)."""
    questions = study_questions(assignment.study)
    state = {
        "status": assignment.status,
        "current_segment": assignment.current_segment,
        "furthest_segment": max([assignment.current_segment, *assignment.segments_visited]),
        "active_seconds": assignment.active_seconds,
        "annotations": task_annotations(assignment),
        "completion": completion_data(assignment),
        "document_questions": questions,
        "document_answers": document_answers_of(assignment, questions),
    }
    # The control arm's page never receives a suggestion, nor even the key.
    if shows_suggestions(assignment):
        state["suggestions"] = task_suggestions(assignment)
    return state


def task_page_data(assignment):
    """Everything the annotation page starts from, for json_script (never raw HTML)."""
    study = assignment.study
    segments = assignment.document.segments.order_by("index").only("index", "text", "sentences")
    categories = study.taxonomy.categories.order_by("order", "key") if study.taxonomy_id else []
    ui = study.config.get("ui", {}) if isinstance(study.config.get("ui", {}), dict) else {}
    return {
        "token": assignment.token,
        "api": span_task_urls(assignment.token, suggestion_arm=shows_suggestions(assignment)),
        "study": {
            "title": study.title,
            "coreference_cue": ui.get("coreference_cue", True) is not False,
        },
        "document": {"id": assignment.document.external_id},
        "segments": [{"index": s.index, "text": s.text, "sentences": s.sentences} for s in segments],
        "categories": [
            {
                "key": c.key,
                "label": c.label,
                "description": c.description,
                "kind": c.kind,
                "group": c.group,
                "color": c.color,
                "shortcut": c.shortcut,
                "whole_sentence": c.whole_sentence,
                "snap_to_words": c.snap_to_words,
            }
            for c in categories
        ],
        "activity_interval_seconds": getattr(settings, "TASK_ACTIVITY_INTERVAL_SECONDS", 15),
        **task_state(assignment),
    }
