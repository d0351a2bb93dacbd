"""The task page's JSON API. The token in the URL is the worker's only key.

The state, activity, feedback and submit views serve every protocol; a protocol's own
writes (spans, ratings, answers, choices) are views of its app, wrapped in
`task_api` like these and listed in its task URLconf (Protocol.task_urls).

Every answer is JSON: 2xx with data, or 4xx with {"error": message}. Input
problems are 400, a submitted or released assignment 409, an unknown token 404,
a wrong method 405, a body over MAX_BODY_BYTES 413. Paths that match no view
and unexpected errors are answered in JSON by falte_site.views.
"""

from functools import wraps

from django.http import JsonResponse

from annotations import selectors
from annotations.services import (
    TaskClosed,
    TaskInputError,
    TaskNotFound,
    assignment_record_activity,
    assignment_save_feedback,
    assignment_submit,
)
from annotations.services.refusals import closed_reason
from falte_site.json_input import JSONInputError, parse_json
from studies import protocols

MAX_BODY_BYTES = 64 * 1024


def error(status, message):
    return JsonResponse({"error": message}, status=status)


def method_not_allowed(methods):
    response = error(405, f"This address takes {' or '.join(methods)} only.")
    response["Allow"] = ", ".join(methods)
    return response


def read_body(request):
    """The request's JSON object, or the error response that says why it is refused."""
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        length = 0
    # Checked before reading, so a huge body is neither read nor refused by Django as HTML.
    if length > MAX_BODY_BYTES or len(request.body) > MAX_BODY_BYTES:
        return None, error(413, "The request is too large.")
    try:
        body = parse_json(request.body or b"{}")
    except JSONInputError as problem:
        return None, error(400, f"The request body is not usable JSON: {problem}.")
    if not isinstance(body, dict):
        return None, error(400, "The request body must be a JSON object.")
    return body, None


NO_TASK = "There is no task with this link."


def task_api(*methods, opens_by_token=False):
    """Find the token's assignment, decode the JSON body, turn task errors into 4xx.

    A view that finds and locks the assignment in its own first statement (every
    write: annotations.services.opening) says `opens_by_token`: it is given the
    token instead of the assignment and raises TaskNotFound for an unknown one,
    so the request sends no separate lookup. A refused body still answers 404
    for an unknown token and 409 for a closed assignment, as for every other
    view: only a refusal pays for that read.
    """

    def decorate(view):
        @wraps(view)
        def wrapper(request, token, *args, **kwargs):
            if request.method not in methods:
                return method_not_allowed(methods)
            if opens_by_token:
                assignment = token
            else:
                assignment = (
                    selectors.task_assignment(token) if request.method == "GET"
                    else selectors.task_assignment_for_api(token)
                )  # fmt: skip
                if assignment is None:
                    return error(404, NO_TASK)
            body = None
            if request.method == "POST":
                body, refused = read_body(request)
                if refused is not None:
                    if opens_by_token and selectors.task_assignment_for_api(token) is None:
                        return error(404, NO_TASK)
                    return refused
            try:
                return view(request, assignment, body, *args, **kwargs)
            except TaskInputError as problem:
                if opens_by_token:
                    # The view checked the body before it found the assignment: an unknown token
                    # is still a 404, and a closed assignment a 409, as for every other view.
                    return _refused_by_token(token, problem)
                return error(400, str(problem))
            except TaskClosed as closed:
                return error(409, str(closed))
            except TaskNotFound:
                return error(404, NO_TASK)

        return wrapper

    return decorate


def _refused_by_token(token, problem):
    assignment = selectors.task_assignment_for_api(token)
    if assignment is None:
        return error(404, NO_TASK)
    if (reason := closed_reason(assignment)) is not None:
        return error(409, reason)
    return error(400, str(problem))


@task_api("GET")
def state(request, assignment, body):
    return JsonResponse(protocols.of(assignment.study).state(assignment))


@task_api("POST", opens_by_token=True)
def activity(request, token, body):
    updated = assignment_record_activity(token=token, seconds=body.get("seconds"))
    return JsonResponse({"active_seconds": updated.active_seconds})


@task_api("POST", opens_by_token=True)
def feedback(request, token, body):
    saved = assignment_save_feedback(token=token, text=body.get("text"))
    return JsonResponse({"text": saved.worker_feedback})


@task_api("POST", opens_by_token=True)
def submit(request, token, body):
    submitted = assignment_submit(token=token)
    return JsonResponse({"status": submitted.status, "completion": selectors.completion_data(submitted)})
