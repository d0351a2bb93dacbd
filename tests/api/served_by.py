"""The site's WSGI application, with the id of the process that answered in a header.

tests/api/test_throttling_across_processes.py starts gunicorn on it to know
which of gunicorn's workers answered each request."""

import os

from falte_site.wsgi import application as site


def application(environ, start_response):
    def start(status, headers, exc_info=None):
        return start_response(status, [*headers, ("X-Served-By", str(os.getpid()))], exc_info)

    return site(environ, start)
