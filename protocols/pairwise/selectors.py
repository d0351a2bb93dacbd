"""Reads for the pairwise page (the block's pairs in this worker's order, and what is saved), and
each output's share of wins so far for adaptive allocation."""

from collections import Counter

from django.urls import reverse

from annotations.models import Assignment
from annotations.selectors import completion_data

from . import config
from .keys import LEFT, TIE
from .models import PairwiseChoice


def pairwise_state(assignment):
    """What the page loads and reloads: the saved choices by pair position."""
    return {
        "status": assignment.status,
        "choices": {
            str(c.position): {"choice": c.choice, "strength": c.strength}
            for c in assignment.pairwise_choices.all()
        },
        "active_seconds": assignment.active_seconds,
        "completion": completion_data(assignment),
    }


def _outputs(assignment):
    """{document pk: {"document", "text", "source"}} of the documents in the worker's pairs."""
    pks = {pk for entry in assignment.items for pk in (entry["left"], entry["right"])}
    documents = assignment.study.documents.filter(pk__in=pks).prefetch_related("segments")
    return {
        d.pk: {
            "document": d.external_id,
            "text": "\n\n".join(s.text for s in sorted(d.segments.all(), key=lambda s: s.index)),
            "source": d.source,
        }
        for d in documents
    }


def pairwise_page_data(assignment):
    study = assignment.study
    outputs = _outputs(assignment)
    token = assignment.token
    top = config.strength_max(study)
    return {
        "token": token,
        "protocol": study.protocol,
        "api": {
            "state": reverse("task-api-state", args=[token]),
            "choices": reverse("task-api-pairwise-choices", args=[token]),
            "activity": reverse("task-api-activity", args=[token]),
            "submit": reverse("task-api-submit", args=[token]),
            "done": reverse("task-done", args=[token]),
        },
        "study": {
            "title": study.title,
            "question": config.question(study),
            "allow_ties": config.allow_ties(study),
            "strength": {"max": top, "labels": config.strength_labels(study)} if top else None,
        },
        "pairs": [
            {"position": entry["position"], "left": outputs[entry["left"]], "right": outputs[entry["right"]]}
            for entry in assignment.items
        ],
        "available_from": assignment.available_from.isoformat() if assignment.available_from else None,
        "activity_interval_seconds": 15,
        **pairwise_state(assignment),
    }


def document_win_shares(study):
    """{document id: its share of wins (a tie half a win) over its comparisons in submitted main
    blocks}, the win rate of reports/metrics/pairwise/win_rates.py for one output: one cell
    (system, input) each, for adaptive allocation (annotations/services/allocation.py). With two
    outputs of an input the difference of their shares is 2 w - 1, w the head-to-head win rate
    on that input. One query."""
    compared, won = Counter(), Counter()
    rows = PairwiseChoice.objects.filter(
        assignment__study=study, assignment__kind=Assignment.Kind.MAIN,
        assignment__status=Assignment.Status.SUBMITTED, assignment__document__isnull=True,
    )  # fmt: skip
    for left, right, choice in rows.values_list("left_id", "right_id", "choice"):
        compared.update((left, right))
        if choice == TIE:
            won[left] += 0.5
            won[right] += 0.5
        else:
            won[left if choice == LEFT else right] += 1
    return {document: won[document] / count for document, count in compared.items()}
