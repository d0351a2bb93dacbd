"""Django's message storage for pages only: the task API never shows a message.

MessageMiddleware builds a message store (a cookie store and a session store) on
every request, for the admin's and the console's notices ("Study saved."). The
workers' task API answers JSON to the page's script, which never reads or adds a
message, so for its addresses the store would be built and dropped unused: a
measurable share of a save's CPU (docs/benchmarks.md, "A span save against a
bare psycopg loop"). Only that work is skipped: CSRF, the security headers and
the access checks run on these requests as on any other.
"""

from django.contrib.messages.middleware import MessageMiddleware

# Every address of the task API (annotations/urls.py, and each protocol's task URLconf under it).
TASK_API_PREFIX = "/api/task/"


class PageMessageMiddleware(MessageMiddleware):
    def process_request(self, request):
        if request.path_info.startswith(TASK_API_PREFIX):
            return None  # no store: process_response saves nothing without one
        return super().process_request(request)
