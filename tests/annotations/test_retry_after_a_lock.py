"""A retried add or decision whose opening UPDATE waited for another tab's lock, on PostgreSQL.

The opening UPDATE of a save also reads whether the client_id sent is stored (a retry); on
PostgreSQL its subqueries read the snapshot taken when it started, which may be older than the
lock it waited for. So that read is a hint, and the retry reads the stored row again after the
lock (protocols/span/save_statements.py). Here another transaction holds the assignment's lock
and removes the span while the retry waits: the retry's UPDATE saw the span, the read after the
lock finds it gone, and the save stores it anew. A retried decision reads the standing decision
the same way (protocols/span/assistance/decisions.py).
"""

import json
import threading
import time

import pytest
from django.db import connection, connections
from django.test import Client
from django.urls import reverse

from annotations.models import Assignment
from protocols.span.assistance import SUGGESTIONS
from protocols.span.assistance.sources import SuggestedSpan, suggestions_replace
from protocols.span.models import ErrorAnnotation, Suggestion, SuggestionDecision
from protocols.translation.models import TranslationError
from tests.factories import AssignmentFactory, make_span_study
from tests.translation.studies import make_translation_study

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="SQLite writes one at a time"),
]

SPAN = {"client_id": "c1", "category": "CharE", "segment": 0, "start": 25, "end": 29, "text": "Anna"}
ERROR = {"client_id": "e1", "segment": 0, "severity": "Major", "category": "Mistranslation",
         "side": "target", "start": 4, "end": 7, "text": "dog"}  # fmt: skip
WAIT_FOR_THE_LOCK_SECONDS = 60  # a bound on a loaded machine, not a measure: the test waits for a state


def post(route, assignment, body, *args):
    path = reverse(route, args=[assignment.token, *args])
    return Client(raise_request_exception=False).post(path, json.dumps(body), content_type="application/json")


def retried_while_removed(route, assignment, body, removed, *args):
    """Send `body` again while another transaction holds the assignment's lock and deletes the row
    the first send stored (`removed`, a queryset of it); the other commits once the retry waits."""
    holder = connections.create_connection("default")
    holder.set_autocommit(False)
    answered = {}

    def retry():
        try:
            answered["response"] = post(route, assignment, body, *args)
        finally:
            connections.close_all()

    sql, params = removed.values("pk").query.sql_with_params()
    table = connection.ops.quote_name(removed.model._meta.db_table)
    try:
        with holder.cursor() as cursor:
            cursor.execute("UPDATE annotations_assignment SET status = status WHERE id = %s", [assignment.pk])
            cursor.execute(f"DELETE FROM {table} WHERE id IN ({sql})", params)  # noqa: S608
            thread = threading.Thread(target=retry)
            thread.start()
            deadline = time.monotonic() + WAIT_FOR_THE_LOCK_SECONDS
            waiting = 0
            while not waiting and time.monotonic() < deadline and thread.is_alive():
                cursor.execute("SELECT COUNT(*) FROM pg_locks WHERE NOT granted")
                waiting = cursor.fetchone()[0]
        assert waiting, "the retry never waited for the lock"
        holder.commit()
        thread.join()
    finally:
        holder.close()
    return answered["response"]


def test_a_retried_span_that_waited_for_its_remove_is_stored_anew():
    assignment = AssignmentFactory(document=make_span_study(documents=1, segments=3).documents.get())
    assert post("task-api-annotations", assignment, SPAN).status_code == 201
    response = retried_while_removed(
        "task-api-annotations", assignment, SPAN, ErrorAnnotation.objects.filter(client_id="c1")
    )
    assert response.status_code == 201, response.content
    assert response.json()["client_id"] == "c1"
    assert ErrorAnnotation.objects.filter(assignment=assignment).count() == 1


def test_a_retried_error_that_waited_for_its_remove_is_stored_anew():
    study = make_translation_study("mqm")
    assignment = AssignmentFactory(study=study, document=study.documents.get(system="sysA"))
    assert post("task-api-translation-errors", assignment, ERROR).status_code == 201
    response = retried_while_removed(
        "task-api-translation-errors", assignment, ERROR, TranslationError.objects.filter(client_id="e1")
    )
    assert response.status_code == 201, response.content
    assert TranslationError.objects.filter(assignment=assignment).count() == 1
    assert Assignment.objects.get(pk=assignment.pk).status == Assignment.Status.IN_PROGRESS


def test_a_retried_reject_that_waited_for_its_undo_is_stored_anew():
    study = make_span_study(documents=1, segments=2, config={"assistance": {"share": 0.5}})
    document = study.documents.get()
    suggestions_replace(study=study, spans=[SuggestedSpan(document.pk, 0, 25, 29, "CharE")], source="test")
    assignment = AssignmentFactory(study=study, document=document, arm=SUGGESTIONS)
    anna = Suggestion.objects.get()
    reject = {"annotation": None, "seconds": 2}
    assert post("task-api-suggestion", assignment, reject, anna.pk).status_code == 201
    response = retried_while_removed(
        "task-api-suggestion", assignment, reject, SuggestionDecision.objects.all(), anna.pk
    )
    assert response.status_code == 201, response.content
    assert SuggestionDecision.objects.get().action == "reject"
