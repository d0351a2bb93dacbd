"""Reads for the Likert and BWS pages: the block's items in this worker's order."""

from django.urls import reverse

from annotations.selectors import completion_data

from .keys import BWS


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
