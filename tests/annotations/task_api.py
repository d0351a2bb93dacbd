"""Calls of the task page's JSON API, as the page makes them."""

import json

from django.urls import reverse

# Every segment's text in make_span_study's first document.
SEGMENT_TEXT = "Segment {s} of document 0. Anna met Ben."


def post(client, name, assignment, body, **kwargs):
    data = body if isinstance(body, str | bytes) else json.dumps(body)
    return client.post(
        reverse(name, args=[assignment.token]), data, content_type="application/json", **kwargs
    )
