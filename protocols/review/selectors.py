"""Reads for the review page: the output, its input data, and the evaluators' items
under their labels only (real evaluator names never reach a reviewer)."""

from django.urls import reverse

from annotations.selectors import completion_data
from protocols.review.models import ReviewItem
from protocols.review.questions import study_questions

EVALUATOR_COLORS = ["#ffd166", "#9ad0f5", "#b8e0a8", "#f4a6a6", "#d7b8f3", "#ffc09f", "#a0e7e5", "#e2e2a0"]


def _color(label, labels):
    return EVALUATOR_COLORS[labels.index(label) % len(EVALUATOR_COLORS)]


def review_state(assignment):
    return {
        "status": assignment.status,
        "answers": {
            str(item): answers
            for item, answers in assignment.review_answers.values_list("item_id", "answers")
        },
        "active_seconds": assignment.active_seconds,
        "completion": completion_data(assignment),
    }


def review_page_data(assignment):
    document = assignment.document
    items = list(ReviewItem.objects.filter(document=document).order_by("position"))
    # Colours follow the study-wide labels, so Evaluator A has one colour everywhere.
    labels = sorted(set(ReviewItem.objects.filter(document__study=assignment.study).values_list("label", flat=True)),
                    key=lambda label: (len(label), label))  # fmt: skip
    token = assignment.token
    data = document.meta.get("data") if isinstance(document.meta, dict) else None
    return {
        "token": token,
        "protocol": "review",
        "api": {
            "state": reverse("task-api-state", args=[token]),
            "answers": reverse("task-api-answers", args=[token]),
            "activity": reverse("task-api-activity", args=[token]),
            "submit": reverse("task-api-submit", args=[token]),
            "done": reverse("task-done", args=[token]),
        },
        "study": {"title": assignment.study.title},
        "questions": study_questions(assignment.study),
        "document": {
            "id": document.external_id,
            "segments": list(document.segments.order_by("index").values_list("text", flat=True)),
            "source": document.source,
            "data": data if isinstance(data, dict | list) else None,
        },
        "evaluators": [
            {"label": label, "color": _color(label, labels)}
            for label in dict.fromkeys(i.label for i in items)
        ],
        "items": [
            {
                "id": i.pk,
                "label": i.label,
                "color": _color(i.label, labels),
                "span_text": i.span_text,
                "explanation": i.explanation,
                "span_status": i.span_status,
                "locations": i.locations,
            }  # fmt: skip
            for i in items
        ],
        "activity_interval_seconds": 15,
        **review_state(assignment),
    }
