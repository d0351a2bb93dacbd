"""Saves that reach the server at the same moment: nothing lost, nothing doubled, no 500.

Each test releases several threads through a barrier; every thread has its
own test client and its own database connection, closed when it ends. The
suite runs these on PostgreSQL and on SQLite (a file database, see
falte_site/test_settings.py), where the lock is the database's write lock.
"""

import json
import threading
from collections import Counter

import pytest
from django.db import connections
from django.test import Client
from django.urls import reverse

from annotations.models import Assignment
from protocols.span.models import ErrorAnnotation
from tests.factories import AssignmentFactory, make_span_study

pytestmark = pytest.mark.django_db(transaction=True)

THREADS = 12
SEGMENT_TEXT = "Segment {s} of document 0. Anna met Ben."


@pytest.fixture(autouse=True)
def activity_unbounded_by_the_clock(monkeypatch):
    """Reports at the same instant would be bounded by the clock (tests/annotations/test_activity.py);
    these tests count lost updates, so give every report room."""
    monkeypatch.setattr("annotations.services.task.ACTIVITY_SLACK_SECONDS", 10**6)


def at_once(requests):
    """Run the calls in `requests` in threads released together; return their responses in order."""
    barrier = threading.Barrier(len(requests))
    responses = [None] * len(requests)

    def run(number, call):
        try:
            barrier.wait()
            # A database error becomes the 500 a worker would see, not an exception in the thread.
            responses[number] = call(Client(raise_request_exception=False))
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=pair) for pair in enumerate(requests)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return responses


def post(name, assignment, body):
    url = reverse(name, args=[assignment.token])
    return lambda client: client.post(url, json.dumps(body), content_type="application/json")


def span(client_id, segment=0):
    return {"client_id": client_id, "category": "CharE", "segment": segment, "start": 25, "end": 29,
            "text": SEGMENT_TEXT.format(s=segment)[25:29]}  # fmt: skip


def statuses(responses):
    return Counter(response.status_code for response in responses)


@pytest.fixture
def assignment():
    study = make_span_study(documents=1, segments=4)
    return AssignmentFactory(document=study.documents.get())


def test_the_same_save_sent_at_once_is_stored_once(assignment):
    responses = at_once([post("task-api-annotations", assignment, span("twice"))] * THREADS)
    assert statuses(responses) == {201: 1, 200: THREADS - 1}
    assert ErrorAnnotation.objects.filter(assignment=assignment).count() == 1
    assert len({response.json()["client_id"] for response in responses}) == 1


def test_different_saves_sent_at_once_are_all_stored(assignment):
    client_ids = [f"span-{number}" for number in range(THREADS)]
    responses = at_once([post("task-api-annotations", assignment, span(name)) for name in client_ids])
    assert statuses(responses) == {201: THREADS}
    stored = ErrorAnnotation.objects.filter(assignment=assignment).values_list("client_id", flat=True)
    assert sorted(stored) == sorted(client_ids)


def test_activity_reports_sent_at_once_all_count(assignment):
    responses = at_once([post("task-api-activity", assignment, {"seconds": 10})] * THREADS)
    assert statuses(responses) == {200: THREADS}
    assignment.refresh_from_db()
    assert assignment.active_seconds == 10 * THREADS


def test_moves_saves_and_activity_at_once_lose_nothing(assignment):
    calls = (
        [post("task-api-move", assignment, {"segment": 1})] * 4
        + [post("task-api-activity", assignment, {"seconds": 7})] * 4
        + [post("task-api-annotations", assignment, span(f"mixed-{number}")) for number in range(4)]
    )
    responses = at_once(calls)
    assert statuses(responses) == {200: 8, 201: 4}
    assignment.refresh_from_db()
    assert assignment.current_segment == 1
    assert sorted(assignment.segments_visited) == [0, 1, 1, 1, 1]  # every move was recorded
    assert assignment.active_seconds == 28
    assert assignment.annotations.count() == 4


def test_submit_sent_at_once_submits_once(assignment):
    Assignment.objects.filter(pk=assignment.pk).update(current_segment=3, segments_visited=[0, 1, 2, 3])
    responses = at_once(
        [post("task-api-submit", assignment, {})] * (THREADS // 2)
        + [post("task-api-activity", assignment, {"seconds": 5})] * (THREADS // 2)
    )
    submits, reports = responses[: THREADS // 2], responses[THREADS // 2 :]
    assert statuses(submits) == {200: THREADS // 2}
    assert len({response.json()["completion"]["code"] for response in submits}) == 1
    # An activity report either came before the submit (counted) or after it (409, not counted).
    assert set(statuses(reports)) <= {200, 409}
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.SUBMITTED
    assert assignment.active_seconds == 5 * statuses(reports)[200]
