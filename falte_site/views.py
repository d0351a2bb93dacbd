"""Site-wide views."""

from django.http import JsonResponse
from django.views.csrf import csrf_failure as html_csrf_failure


def csrf_failure(request, reason=""):
    """A JSON 403 for the task API (its page shows the message); Django's page elsewhere."""
    if request.path.startswith("/api/"):
        return JsonResponse(
            {"error": "The page's security token is missing or old: reload the page."}, status=403
        )
    return html_csrf_failure(request, reason=reason)
