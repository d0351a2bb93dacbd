"""The task page's JSON API. The token in the URL is the worker's only key.

Every answer is JSON: 2xx with data, or 4xx with {"error": message}. Input
problems are 400, a submitted or released assignment 409, an unknown token 404.
"""

import json
from functools import wraps

from django.http import JsonResponse
from django.views.decorators.http import require_http_methods

from annotations import rating_selectors, review_selectors, selectors
from annotations.services import (
    TaskClosed,
    TaskInputError,
    annotation_add,
    annotation_remove,
    assignment_move,
    assignment_record_activity,
    assignment_submit,
)
from annotations.services.rating_task import judgment_save, rating_save
from annotations.services.review_task import review_answer_save

MAX_BODY_BYTES = 64 * 1024


def error(status, message):
    return JsonResponse({"error": message}, status=status)


def task_api(*methods):
    """Find the token's assignment, decode the JSON body, turn task errors into 4xx."""

    def decorate(view):
        @require_http_methods(list(methods))
        @wraps(view)
        def wrapper(request, token, *args, **kwargs):
            assignment = (
                selectors.task_assignment(token) if request.method == "GET"
                else selectors.task_assignment_for_api(token)
            )  # fmt: skip
            if assignment is None:
                return error(404, "There is no task with this link.")
            body = None
            if request.method == "POST":
                if len(request.body) > MAX_BODY_BYTES:
                    return error(413, "The request is too large.")
                try:
                    body = json.loads(request.body or b"{}")
                except (json.JSONDecodeError, UnicodeDecodeError):
                    return error(400, "The request body must be JSON.")
                if not isinstance(body, dict):
                    return error(400, "The request body must be a JSON object.")
            try:
                return view(request, assignment, body, *args, **kwargs)
            except TaskInputError as problem:
                return error(400, str(problem))
            except TaskClosed as closed:
                return error(409, str(closed))

        return wrapper

    return decorate


@task_api("GET")
def state(request, assignment, body):
    if assignment.document_id is None:
        return JsonResponse(rating_selectors.rating_state(assignment))
    if assignment.study.protocol == "review":
        return JsonResponse(review_selectors.review_state(assignment))
    return JsonResponse(selectors.task_state(assignment))


@task_api("POST")
def answers(request, assignment, body):
    answer = review_answer_save(assignment=assignment, data=body)
    return JsonResponse({"item": answer.item_id, "answers": answer.answers})


@task_api("POST")
def ratings(request, assignment, body):
    rating = rating_save(assignment=assignment, data=body)
    return JsonResponse({"document": rating.document.external_id, "score": rating.score})


@task_api("POST")
def judgments(request, assignment, body):
    judgment = judgment_save(assignment=assignment, data=body)
    return JsonResponse({"position": judgment.position, "best": judgment.best.external_id,
                         "worst": judgment.worst.external_id, "value": judgment.value})  # fmt: skip


@task_api("POST")
def annotations(request, assignment, body):
    annotation, created = annotation_add(assignment=assignment, data=body)
    segment_index = annotation.segment.index
    paired_index = annotation.paired_segment.index if annotation.paired_segment_id else None
    data = selectors.annotation_data(annotation, segment_index, paired_index)
    return JsonResponse(data, status=201 if created else 200)


@task_api("DELETE")
def annotation(request, assignment, body, client_id):
    annotation_remove(assignment=assignment, client_id=client_id)
    return JsonResponse({"removed": client_id})


@task_api("POST")
def move(request, assignment, body):
    moved = assignment_move(assignment=assignment, segment=body.get("segment"))
    return JsonResponse({"current_segment": moved.current_segment})


@task_api("POST")
def activity(request, assignment, body):
    updated = assignment_record_activity(assignment=assignment, seconds=body.get("seconds"))
    return JsonResponse({"active_seconds": updated.active_seconds})


@task_api("POST")
def submit(request, assignment, body):
    submitted = assignment_submit(assignment=assignment)
    return JsonResponse({"status": submitted.status, "completion": selectors.completion_data(submitted)})
