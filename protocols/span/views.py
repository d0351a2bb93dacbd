"""The span page's own task API: add and remove spans, move between segments, answer
the questions about the whole document."""

from django.http import JsonResponse

from annotations.views.api import error, task_api

from .assistance.decisions import DecisionConflict, suggestion_decide, suggestion_undo
from .assistance.suggestions import decision_data
from .selectors import annotation_data
from .services import annotation_add, annotation_remove, assignment_move, document_answers_save


@task_api("POST", opens_by_token=True)
def annotations(request, token, body):
    # The save opens the assignment in its own first statement: no lookup here (save_statements).
    annotation, created = annotation_add(token=token, data=body)
    segment_index = annotation.segment.index
    paired_index = annotation.paired_segment.index if annotation.paired_segment_id else None
    data = annotation_data(annotation, segment_index, paired_index)
    return JsonResponse(data, status=201 if created else 200)


@task_api("DELETE", opens_by_token=True)
def annotation(request, token, body, client_id):
    # Like the save, the remove opens the assignment in its own first statement (services).
    annotation_remove(token=token, client_id=client_id)
    return JsonResponse({"removed": client_id})


@task_api("POST", opens_by_token=True)
def move(request, token, body):
    return JsonResponse({"current_segment": assignment_move(token=token, segment=body.get("segment"))})


@task_api("POST", opens_by_token=True)
def document_answers(request, token, body):
    saved = document_answers_save(token=token, data=body)
    return JsonResponse({"answers": saved.answers})


@task_api("POST", "DELETE", opens_by_token=True)
def suggestion(request, token, body, suggestion_id=None):
    """POST: decide on a suggestion (suggestion arm only); DELETE: take the decision back.

    The page builds the address from api.suggestions and the suggestion's id. Like the
    save, both open the assignment in their own first statement (assistance/decisions.py)."""
    if suggestion_id is None:
        return error(404, "Name a suggestion: suggestions/<id>/.")
    if request.method == "DELETE":
        suggestion_undo(token=token, suggestion_id=suggestion_id)
        return JsonResponse({"suggestion": suggestion_id, "decision": None})
    try:
        decision, created = suggestion_decide(token=token, suggestion_id=suggestion_id, data=body)
    except DecisionConflict as conflict:
        return error(409, str(conflict))
    data = {"suggestion": suggestion_id, "decision": decision_data(decision)}
    if decision.annotation_id is not None:
        annotation = decision.annotation
        paired_index = annotation.paired_segment.index if annotation.paired_segment_id else None
        data["annotation"] = annotation_data(annotation, annotation.segment.index, paired_index)
    return JsonResponse(data, status=201 if created else 200)
