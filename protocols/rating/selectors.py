"""Reads for the Likert and BWS pages (the block's items in this worker's order), and each
output's score so far for adaptive allocation."""

from collections import Counter

from django.db.models import Avg
from django.urls import reverse

from annotations.models import Assignment
from annotations.selectors import completion_data

from .keys import BWS
from .models import BestWorstJudgment, Rating


def _texts(assignment):
    """{document id: (external id, full text, source, input id)} for the block's documents."""
    documents = assignment.study.documents.filter(block=assignment.block).prefetch_related("segments")
    return {
        d.pk: (
            d.external_id,
            "\n\n".join(s.text for s in sorted(d.segments.all(), key=lambda s: s.index)),
            d.source,
            d.input_id,
        )  # fmt: skip
        for d in documents
    }


def rating_state(assignment):
    external = dict(
        assignment.study.documents.filter(block=assignment.block).values_list("id", "external_id")
    )
    return {
        "status": assignment.status,
        "ratings": {external[r.document_id]: r.score for r in assignment.ratings.all()},
        "judgments": {
            str(j.position): {"best": external[j.best_id], "worst": external[j.worst_id], "value": j.value}
            for j in assignment.judgments.all()
        },
        "active_seconds": assignment.active_seconds,
        "completion": completion_data(assignment),
    }


def rating_page_data(assignment):
    study = assignment.study
    texts = _texts(assignment)

    def item(document_id):
        external_id, text, source, input_id = texts[document_id]
        return {"document": external_id, "text": text, "source": source, "input_id": input_id}

    scale = study.config.get("scale", {})
    bws = study.config.get("bws", {})
    token = assignment.token
    data = {
        "token": token,
        "protocol": study.protocol,
        "api": {
            "state": reverse("task-api-state", args=[token]),
            "ratings": reverse("task-api-ratings", args=[token]),
            "judgments": reverse("task-api-judgments", args=[token]),
            "activity": reverse("task-api-activity", args=[token]),
            "submit": reverse("task-api-submit", args=[token]),
            "done": reverse("task-done", args=[token]),
        },
        "study": {
            "title": study.title,
            "question": study.config.get("question", ""),
            "scale": {
                "min": scale.get("min", 1),
                "max": scale.get("max", 5),
                "labels": scale.get("labels", {}),
            },
            "value_scale": bws.get("value_scale"),
            "value_labels": bws.get("value_labels", {}),
        },
        "available_from": assignment.available_from.isoformat() if assignment.available_from else None,
        "activity_interval_seconds": 15,
        **rating_state(assignment),
    }
    if study.protocol == BWS:
        data["tuples"] = [
            {"position": entry["position"], "items": [item(d) for d in entry["documents"]]}
            for entry in assignment.items
        ]
    else:
        data["items"] = [item(d) for d in assignment.items]
    return data


def _submitted_main(queryset):
    # The main work's ratings and judgments only: a retest repeats a block and would count it twice.
    return queryset.filter(
        assignment__kind=Assignment.Kind.MAIN, assignment__status=Assignment.Status.SUBMITTED,
        assignment__document__isnull=True,
    )  # fmt: skip


def likert_document_scores(study):
    """{document id: the mean of its Likert ratings in submitted main blocks}: one cell (system,
    input) each, for adaptive allocation (annotations/services/allocation.py). One query."""
    rows = _submitted_main(Rating.objects.filter(assignment__study=study))
    return dict(rows.values("document_id").annotate(mean=Avg("score")).values_list("document_id", "mean"))


def bws_document_scores(study):
    """{document id: (times best - times worst) / tuples judged}, over submitted main blocks: the
    best-minus-worst score of Best-Worst Scaling (Louviere et al. 2015; Kiritchenko and Mohammad
    2017), from -1 to 1, one cell each for adaptive allocation. One query."""
    seen, net = Counter(), Counter()
    rows = _submitted_main(BestWorstJudgment.objects.filter(assignment__study=study))
    for documents, best, worst in rows.values_list("documents", "best_id", "worst_id"):
        seen.update(documents)
        net[best] += 1
        net[worst] -= 1
    return {document: net[document] / count for document, count in seen.items()}
