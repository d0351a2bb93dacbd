"""How many SQL statements one task API request sends, BEGIN and COMMIT included.

Inside a test's own transaction a write's BEGIN and COMMIT are a SAVEPOINT and
its RELEASE, which the captured queries show in their place.
"""

import json

from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse


def sent(client, method, name, assignment, body=None, *args):
    """(response, the SQL statements of the request) for `method` on route `name` of the assignment."""
    path = reverse(name, args=[assignment.token, *args])
    data = json.dumps(body if body is not None else {})
    with CaptureQueriesContext(connection) as captured:
        response = getattr(client, method)(path, data, content_type="application/json")
    return response, [query["sql"] for query in captured.captured_queries]


def one_transaction(statements):
    """True when the statements are one transaction: its BEGIN first and its COMMIT last."""
    return statements[0].startswith("SAVEPOINT") and statements[-1].startswith("RELEASE SAVEPOINT")


def refused_submit(client, assignment):
    """The error of a submit refused with 400, having checked that it left the assignment unsubmitted
    and without a completion code."""
    response = sent(client, "post", "task-api-submit", assignment)[0]
    assert response.status_code == 400, response.content
    stored = type(assignment).objects.get(pk=assignment.pk)
    assert stored.status != "submitted" and not stored.completion_code
    return response.json()["error"]
