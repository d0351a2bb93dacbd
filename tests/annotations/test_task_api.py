"""The task page's JSON API: what a worker's page (or a misbehaving client) gets back."""

import pytest
from django.test import Client
from django.urls import reverse

from annotations.models import Assignment
from annotations.services.task import ACTIVITY_SLACK_SECONDS
from protocols.span.models import ErrorAnnotation
from tests.annotations.task_api import SEGMENT_TEXT, post
from tests.factories import AssignmentFactory, make_span_study

pytestmark = pytest.mark.django_db


def span(segment=0, start=25, end=29, **extra):
    text = SEGMENT_TEXT.format(s=segment)[start:end]
    return {"client_id": "c1", "category": "CharE", "segment": segment, "start": start, "end": end,
            "text": text, **extra}  # fmt: skip


def test_add_stores_exact_offsets_and_is_idempotent(client, assignment):
    first = post(client, "task-api-annotations", assignment, span())
    assert first.status_code == 201
    assert first.json()["text"] == "Anna"
    again = post(client, "task-api-annotations", assignment, span())
    assert again.status_code == 200
    stored = ErrorAnnotation.objects.get()
    assert (stored.start, stored.end, stored.text) == (25, 29, "Anna")
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.IN_PROGRESS
    assert assignment.started_at is not None


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (span(start=25, end=99), "offsets [25, 99) are outside the segment"),
        (span(start=5, end=5), "are outside the segment"),
        ({**span(), "text": "Bert"}, "text 'Bert' does not match the offsets [25, 29), which hold 'Anna'"),
        ({**span(), "category": "Nope"}, "category 'Nope' is not in this study's taxonomy"),
        ({**span(), "category": "RepE"}, "is a paired category: also select the earlier span"),
        (
            {**span(), "paired": {"segment": 0, "start": 0, "end": 7, "text": "Segment"}},
            "takes one span only",
        ),
        ({**span(), "client_id": ""}, "'client_id' must be text"),
        ({**span(), "start": "25"}, "'start' and 'end' must be whole numbers"),
        (span(segment=2), "segment 2 has not been reached yet"),
        ({**span(), "segment": 9}, "segment 9 is not in this document"),
        ({**span(), "comment": 5}, "'comment' must be text"),
    ],
)
def test_bad_annotations_are_400_with_a_message(client, assignment, body, message):
    response = post(client, "task-api-annotations", assignment, body)
    assert response.status_code == 400
    assert message in response.json()["error"]
    assert ErrorAnnotation.objects.count() == 0


@pytest.mark.parametrize("raw", ["not json", "[1, 2]", b"\xff\xfe"])
def test_malformed_bodies_are_400_not_500(client, assignment, raw):
    response = post(client, "task-api-annotations", assignment, raw)
    assert response.status_code == 400
    assert "JSON" in response.json()["error"]


def test_paired_annotation_records_the_earlier_segment(client, assignment):
    post(client, "task-api-move", assignment, {"segment": 1})
    body = {**span(segment=1, start=25, end=37), "category": "RepE",
            "paired": {"segment": 0, "start": 25, "end": 37, "text": "Anna met Ben"}}  # fmt: skip
    response = post(client, "task-api-annotations", assignment, body)
    assert response.status_code == 201, response.json()
    stored = ErrorAnnotation.objects.get()
    assert (stored.paired_segment.index, stored.paired_start, stored.paired_end) == (0, 25, 37)
    later = {**body, "client_id": "c2", "segment": 0,
             "paired": {"segment": 1, "start": 25, "end": 37, "text": "Anna met Ben"}}  # fmt: skip
    assert (
        "same or an earlier segment"
        in post(client, "task-api-annotations", assignment, later).json()["error"]
    )


def test_another_assignments_token_is_404(client, assignment):
    other = AssignmentFactory()
    post(client, "task-api-annotations", assignment, span())
    url = reverse("task-api-annotation", args=[other.token, "c1"])
    assert client.delete(url).status_code == 200  # nothing of `other` matched
    assert ErrorAnnotation.objects.count() == 1
    unknown = client.get(reverse("task-api-state", args=["x" * 32]))
    assert unknown.status_code == 404
    assert unknown.json() == {"error": "There is no task with this link."}


def test_remove_is_idempotent(client, assignment):
    post(client, "task-api-annotations", assignment, span())
    url = reverse("task-api-annotation", args=[assignment.token, "c1"])
    assert client.delete(url).status_code == 200
    assert client.delete(url).status_code == 200
    assert ErrorAnnotation.objects.count() == 0


def test_moves_are_in_order_and_recorded(client, assignment):
    assert post(client, "task-api-move", assignment, {"segment": 2}).status_code == 400
    assert post(client, "task-api-move", assignment, {"segment": 1}).json() == {"current_segment": 1}
    assert post(client, "task-api-move", assignment, {"segment": 0}).status_code == 200
    assert post(client, "task-api-move", assignment, {"segment": 2}).status_code == 200
    assert post(client, "task-api-move", assignment, {"segment": "x"}).status_code == 400
    assignment.refresh_from_db()
    assert assignment.segments_visited == [0, 1, 0, 2]
    state = client.get(reverse("task-api-state", args=[assignment.token])).json()
    assert (state["current_segment"], state["furthest_segment"]) == (2, 2)


def test_activity_adds_capped_seconds(client, assignment, clock):
    post(client, "task-api-activity", assignment, {"seconds": 14})
    post(client, "task-api-activity", assignment, {"seconds": 100000})
    assert post(client, "task-api-activity", assignment, {"seconds": -1}).status_code == 400
    assignment.refresh_from_db()
    # At the instant of a report only the slack is left (the 120 s cap: test_activity.py).
    assert assignment.active_seconds == 14 + ACTIVITY_SLACK_SECONDS


def test_submit_needs_the_last_segment_then_is_idempotent_and_closes(client, assignment):
    refused = post(client, "task-api-submit", assignment, {})
    assert refused.status_code == 400
    assert refused.json()["error"] == "read every segment before submitting"
    post(client, "task-api-move", assignment, {"segment": 1})
    post(client, "task-api-move", assignment, {"segment": 2})
    first = post(client, "task-api-submit", assignment, {}).json()
    second = post(client, "task-api-submit", assignment, {}).json()
    assert first == second
    assert first["status"] == "submitted"
    assert len(first["completion"]["code"]) == 16
    closed = post(client, "task-api-annotations", assignment, span())
    assert closed.status_code == 409
    assert "already submitted" in closed.json()["error"]
    assert post(client, "task-api-move", assignment, {"segment": 0}).status_code == 409


def test_completion_codes_differ_per_assignment(client):
    study = make_span_study(documents=3, segments=1)
    codes = set()
    for document in study.documents.all():
        assignment = AssignmentFactory(document=document)
        codes.add(post(client, "task-api-submit", assignment, {}).json()["completion"]["code"])
    assert len(codes) == 3


def test_released_assignment_is_409_and_keeps_its_work(client, assignment):
    post(client, "task-api-annotations", assignment, span())
    Assignment.objects.filter(pk=assignment.pk).update(status=Assignment.Status.RELEASED)
    response = post(client, "task-api-annotations", assignment, {**span(), "client_id": "c2"})
    assert response.status_code == 409
    assert "released" in response.json()["error"]
    assert ErrorAnnotation.objects.filter(assignment=assignment).count() == 1


def test_csrf_is_enforced_with_a_json_message(assignment):
    strict = Client(enforce_csrf_checks=True)
    response = post(strict, "task-api-annotations", assignment, span())
    assert response.status_code == 403
    assert "reload the page" in response.json()["error"]
    page = strict.get(reverse("task-annotate", args=[assignment.token]))
    token = page.cookies["csrftoken"].value
    ok = post(strict, "task-api-annotations", assignment, span(), headers={"X-CSRFToken": token})
    assert ok.status_code == 201


def test_wrong_methods_are_405(client, assignment):
    assert client.get(reverse("task-api-annotations", args=[assignment.token])).status_code == 405
    assert client.post(reverse("task-api-state", args=[assignment.token])).status_code == 405
