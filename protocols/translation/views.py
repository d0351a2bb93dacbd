"""The translation page's own task API: mark and remove errors, score a segment, move."""

from django.http import JsonResponse

from annotations.views.api import task_api

from .selectors import error_data
from .services import assignment_move, error_add, error_remove, outputs, score_save, score_warning


def _output_of(assignment, document_id):
    return outputs(assignment).index(document_id) if assignment.document_id is None else 0


@task_api("POST")
def errors(request, assignment, body):
    error, created = error_add(assignment=assignment, data=body)
    output = _output_of(assignment, error.segment.document_id)
    return JsonResponse(error_data(error, error.segment.index, output), status=201 if created else 200)


@task_api("DELETE")
def error(request, assignment, body, client_id):
    error_remove(assignment=assignment, client_id=client_id)
    return JsonResponse({"removed": client_id})


@task_api("POST")
def scores(request, assignment, body):
    saved = score_save(assignment=assignment, data=body)
    index = saved.segment.index
    output = _output_of(saved.assignment, saved.segment.document_id)
    # The warning of this one segment, from its own errors (the state's warnings are the same rule).
    severities = saved.assignment.translation_errors.filter(segment=saved.segment).values_list(
        "severity", flat=True
    )
    warning = score_warning(saved.assignment.study, saved.score, list(severities))
    return JsonResponse({"output": output, "segment": index, "score": saved.score, "warning": warning})


@task_api("POST")
def move(request, assignment, body):
    moved = assignment_move(assignment=assignment, segment=body.get("segment"))
    return JsonResponse({"current_segment": moved.current_segment})
