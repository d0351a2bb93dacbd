"""The task API under hostile input: a 4xx with {"error": ...} and nothing written, never a 500.

NUL and lone surrogates fail only when they reach the database (PostgreSQL
cannot store NUL at all), so run this file on PostgreSQL too.
"""

import json

import pytest
from django.test import Client
from django.urls import reverse

from annotations.models import Assignment
from protocols.span.models import ErrorAnnotation
from tests.factories import make_span_study

pytestmark = pytest.mark.django_db

POST_ROUTES = [
    "task-api-annotations",
    "task-api-move",
    "task-api-ratings",
    "task-api-answers",
    "task-api-judgments",
    "task-api-activity",
    "task-api-feedback",
    "task-api-submit",
]
BAD_STRINGS = {"surrogate": "\ud800", "nul": "\x00", "nul-inside": "Anna\x00"}


def url(name, assignment, *args):
    return reverse(name, args=[assignment.token, *args])


def post_raw(client, path, raw):
    return client.post(path, raw, content_type="application/json")


def span(**extra):
    return {"client_id": "c1", "category": "CharE", "segment": 0, "start": 25, "end": 29, "text": "Anna",
            **extra}  # fmt: skip


def state_of(assignment):
    assignment.refresh_from_db()
    return (
        assignment.status,
        assignment.current_segment,
        assignment.active_seconds,
        ErrorAnnotation.objects.count(),
    )


def assert_json_error(response, status):
    assert response.status_code == status, response.content[:300]
    assert response["Content-Type"] == "application/json"
    message = response.json()["error"]
    assert isinstance(message, str) and message
    return message


@pytest.mark.parametrize("route", POST_ROUTES)
@pytest.mark.parametrize("bad", BAD_STRINGS.values(), ids=BAD_STRINGS.keys())
def test_nul_and_lone_surrogates_in_a_value_are_400(client, assignment, route, bad):
    before = state_of(assignment)
    body = json.dumps({**span(comment=bad), "segment": 1, "seconds": 5, "note": bad})
    message = assert_json_error(post_raw(client, url(route, assignment), body), 400)
    assert "comment" in message
    assert state_of(assignment) == before


@pytest.mark.parametrize("bad", BAD_STRINGS.values(), ids=BAD_STRINGS.keys())
@pytest.mark.parametrize(
    "where",
    [
        lambda bad: span(client_id=bad),
        lambda bad: span(category=bad),
        lambda bad: span(text=bad),
        lambda bad: span(paired={"segment": 0, "start": 0, "end": 7, "text": bad}),
        lambda bad: {**span(), bad: 1},
        lambda bad: {**span(), "extra": [1, {"deeper": [bad]}]},
    ],
    ids=["client_id", "category", "text", "paired-text", "key", "nested"],
)
def test_nul_and_lone_surrogates_anywhere_in_an_annotation_are_400(client, assignment, bad, where):
    response = post_raw(client, url("task-api-annotations", assignment), json.dumps(where(bad)))
    message = assert_json_error(response, 400)
    assert "NUL" in message or "surrogate" in message
    assert ErrorAnnotation.objects.count() == 0


def test_the_message_names_where_the_bad_character_is(client, assignment):
    body = json.dumps(span(paired={"segment": 0, "start": 0, "end": 7, "text": "Seg\x00"}))
    message = assert_json_error(post_raw(client, url("task-api-annotations", assignment), body), 400)
    assert "paired.text" in message and "NUL" in message


@pytest.mark.parametrize("route", POST_ROUTES)
@pytest.mark.parametrize(
    ("name", "raw", "status"),
    [
        ("list-10k", "[" * 10_000 + "]" * 10_000, 400),
        ("object-10k", '{"a":' * 10_000 + "1" + "}" * 10_000, 400),
        ("list-100k", "[" * 100_000 + "]" * 100_000, 413),
        ("unclosed-100k", "[" * 100_000, 413),
        ("depth-65", '{"a":' * 64 + "[]" + "}" * 64, 400),
        ("huge-integer", '{"segment": ' + "9" * 5_000 + "}", 400),
        ("nan", '{"seconds": NaN}', 400),
        ("infinity", '{"seconds": 1e400}', 400),
    ],
)
def test_deep_or_odd_json_is_a_4xx_not_a_500(client, assignment, route, name, raw, status):
    before = state_of(assignment)
    assert_json_error(post_raw(client, url(route, assignment), raw), status)
    assert state_of(assignment) == before


def test_moderate_nesting_is_still_read(client, assignment):
    # 63 levels inside the body object: within the limit, so the view itself answers.
    body = {**span(), "extra": json.loads("[" * 62 + "]" * 62)}
    response = post_raw(client, url("task-api-annotations", assignment), json.dumps(body))
    assert response.status_code == 201


@pytest.mark.parametrize("size", [65 * 1024, 11 * 1024 * 1024])
def test_a_huge_body_is_413(client, assignment, size):
    raw = json.dumps({"comment": "x" * size})
    before = state_of(assignment)
    assert_json_error(post_raw(client, url("task-api-annotations", assignment), raw), 413)
    assert state_of(assignment) == before


@pytest.mark.parametrize(
    ("method", "route", "args"),
    [
        ("post", "task-api-state", []),
        ("delete", "task-api-state", []),
        ("get", "task-api-annotations", []),
        ("put", "task-api-annotations", []),
        ("post", "task-api-annotation", ["c1"]),
        ("get", "task-api-move", []),
        ("patch", "task-api-submit", []),
    ],
)
def test_a_wrong_method_is_405_json(client, assignment, method, route, args):
    response = getattr(client, method)(url(route, assignment, *args))
    assert_json_error(response, 405)
    assert response["Allow"]


@pytest.mark.parametrize(
    "path",
    ["/api/task/{token}/nope/", "/api/task/{token}/annotations/c1/extra/", "/api/task/", "/api/task/%00/"],
)
def test_an_unknown_path_under_the_task_api_is_404_json(client, assignment, path):
    assert_json_error(client.get(path.format(token=assignment.token)), 404)


@pytest.mark.parametrize("token", ["%00", "abc%00def", "%ED%A0%80", "x" * 5000])
@pytest.mark.parametrize("route", ["task-api-state", "task-api-move"])
def test_an_odd_token_is_404_json(client, route, token):
    path = reverse(route, args=["TOKEN"]).replace("TOKEN", token)
    response = client.get(path) if route == "task-api-state" else post_raw(client, path, "{}")
    assert_json_error(response, 404)


def test_an_unexpected_error_is_a_500_in_json(assignment, monkeypatch):
    def broken(**kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr("protocols.span.views.assignment_move", broken)
    client = Client(raise_request_exception=False)
    response = post_raw(client, url("task-api-move", assignment), '{"segment": 1}')
    message = assert_json_error(response, 500)
    assert "a bug" not in message
    assert Assignment.objects.get(pk=assignment.pk).current_segment == 0


def test_pages_outside_the_api_keep_djangos_error_pages(assignment):
    client = Client(raise_request_exception=False)
    response = client.get("/no-such-page/")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")


# The worker pages' links carry data too --------------------------------------


@pytest.mark.parametrize("path", ["/task/%00/", "/task/%00/annotate/", "/task/a%00b/done/", "/join/%00/"])
def test_nul_in_a_page_link_is_404(path):
    response = Client(raise_request_exception=False).get(path)
    assert response.status_code == 404


@pytest.mark.parametrize(
    "query",
    [
        "PROLIFIC_PID=%00",
        "PROLIFIC_PID=w1&STUDY_ID=%00",
        "workerId=a%00b&assignmentId=x",
        "PROLIFIC_PID=%ED%A0%80",
    ],
)
def test_nul_in_a_join_link_is_no_500(query):
    from accounts.models import Worker

    study = make_span_study(documents=1, segments=1, status="open")
    before = (Worker.objects.count(), Assignment.objects.count())
    response = Client(raise_request_exception=False).get(f"/join/{study.join_key}/?{query}")
    assert response.status_code in (302, 400), response.content[:300]
    if response.status_code == 400:
        assert (Worker.objects.count(), Assignment.objects.count()) == before
