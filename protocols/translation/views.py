"""The translation page's own task API: mark and remove errors, score a segment, move.

Each write opens the assignment by its token in its own first statement
(annotations.services.opening), so the views are given the token."""

from django.http import JsonResponse

from annotations.views.api import task_api

from .selectors import error_data
from .services import assignment_move, error_add, error_remove, outputs, score_save


def _output_of(assignment, document_id):
    return outputs(assignment).index(document_id) if assignment.document_id is None else 0


@task_api("POST", opens_by_token=True)
def errors(request, token, body):
    error, created = error_add(token=token, data=body)
    output = _output_of(error.assignment, error.segment.document_id)
    return JsonResponse(error_data(error, error.segment.index, output), status=201 if created else 200)


@task_api("DELETE", opens_by_token=True)
def error(request, token, body, client_id):
    error_remove(token=token, client_id=client_id)
    return JsonResponse({"removed": client_id})


@task_api("POST", opens_by_token=True)
def scores(request, token, body):
    # The warning of this one segment, from its own errors (the state's warnings are the same rule).
    saved, warning = score_save(token=token, data=body)
    output = _output_of(saved.assignment, saved.segment.document_id)
    return JsonResponse(
        {"output": output, "segment": saved.segment.index, "score": saved.score, "warning": warning}
    )


@task_api("POST", opens_by_token=True)
def move(request, token, body):
    return JsonResponse({"current_segment": assignment_move(token=token, segment=body.get("segment"))})
