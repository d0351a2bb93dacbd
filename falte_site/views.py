"""Site-wide views: the answers Django itself gives (CSRF failure, 400, 403, 404, 500).

Under /api/ they are JSON in the shape of the API asked: {"error": ...} for the
task page's API (docs/task-api.md), {"detail": ...} as DRF writes for the REST
API (docs/api.md). Elsewhere they are Django's own pages.
"""

from django.core.exceptions import RequestDataTooBig
from django.http import JsonResponse
from django.views import defaults
from django.views.csrf import csrf_failure as html_csrf_failure

TASK_API = "/api/task/"
API = "/api/"


def _is_api(request):
    return request.path_info.startswith(API)


def _api_error(request, status, message):
    key = "error" if request.path_info.startswith(TASK_API) else "detail"
    return JsonResponse({key: message}, status=status)


def csrf_failure(request, reason=""):
    """A JSON 403 for the task API (its page shows the message); Django's page elsewhere."""
    if _is_api(request):
        return JsonResponse(
            {"error": "The page's security token is missing or old: reload the page."}, status=403
        )
    return html_csrf_failure(request, reason=reason)


def bad_request(request, exception):
    if _is_api(request):
        if isinstance(exception, RequestDataTooBig):  # over DATA_UPLOAD_MAX_MEMORY_SIZE
            return _api_error(request, 413, "The request is too large.")
        return _api_error(request, 400, "The request could not be read.")
    return defaults.bad_request(request, exception)


def permission_denied(request, exception):
    if _is_api(request):
        return _api_error(request, 403, "You do not have permission to do this.")
    return defaults.permission_denied(request, exception)


def page_not_found(request, exception):
    if _is_api(request):
        return _api_error(request, 404, "There is nothing at this address.")
    return defaults.page_not_found(request, exception)


def server_error(request):
    if _is_api(request):
        return _api_error(request, 500, "Something went wrong on the server; it has been logged.")
    return defaults.server_error(request)
