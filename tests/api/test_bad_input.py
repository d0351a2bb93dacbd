"""The REST API under hostile input: a 4xx with {"detail": ...} and nothing written, never a 500.

NUL and lone surrogates fail only when they reach the database (PostgreSQL
cannot store NUL at all), so run this file on PostgreSQL too.
"""

import json

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import Worker
from annotations.models import Assignment
from reports.models import Report
from studies.models import Study

pytestmark = pytest.mark.django_db

SURROGATE, NUL = "\ud800", "\x00"


@pytest.fixture
def client(world, api_client_for):
    return api_client_for("researcher")


def rows(world):
    study = Study.objects.get(pk=world.study.pk)
    return (Report.objects.count(), Assignment.objects.count(), Worker.objects.count(), study.status)


def writes(world):
    """(method, url, a good body) of every write of the API."""
    return [
        ("post", reverse("report-list"), {"study": world.study.pk}),
        ("post", reverse("assignment-generate"), {"study": world.study.pk, "worker_ids": ["w1"]}),
        ("patch", reverse("study-detail", args=[world.study.pk]), {"status": "closed"}),
    ]


def send(client, method, url, raw):
    return getattr(client, method)(url, raw, content_type="application/json")


def assert_detail(response, status):
    assert response.status_code == status, response.content[:300]
    detail = response.json()["detail"]
    assert isinstance(detail, str) and detail
    return detail


@pytest.mark.parametrize("write", [0, 1, 2], ids=["reports", "generate", "study-status"])
@pytest.mark.parametrize("bad", [SURROGATE, NUL, "w\x00"], ids=["surrogate", "nul", "nul-inside"])
@pytest.mark.parametrize("place", ["value", "key", "list"])
def test_nul_and_lone_surrogates_in_a_body_are_400(world, client, write, bad, place):
    method, url, body = writes(world)[write]
    before = rows(world)
    if place == "value":
        body = {**body, "note": bad}
    elif place == "key":
        body = {**body, bad: 1}
    else:
        body = {**body, "worker_ids": ["w1", bad]}
    detail = assert_detail(send(client, method, url, json.dumps(body)), 400)
    assert "NUL" in detail or "surrogate" in detail
    assert rows(world) == before


def test_a_surrogate_worker_id_is_named_in_the_message(world, client):
    body = {"study": world.study.pk, "worker_ids": ["w1", "\udc80x"]}
    detail = assert_detail(send(client, "post", reverse("assignment-generate"), json.dumps(body)), 400)
    assert "worker_ids[1]" in detail and "\\udc80" in detail
    assert Assignment.objects.count() == 2  # the fixture's own


@pytest.mark.parametrize("write", [0, 1, 2], ids=["reports", "generate", "study-status"])
@pytest.mark.parametrize(
    "raw",
    [
        "[" * 10_000 + "]" * 10_000,
        '{"study": ' * 10_000 + "1" + "}" * 10_000,
        "[" * 100_000 + "]" * 100_000,
        "[" * 100_000,
        '{"a":' * 64 + "[]" + "}" * 64,
        '{"study": ' + "9" * 5_000 + "}",
        '{"study": NaN}',
        '{"study": 1e400}',
    ],
    ids=["list-10k", "object-10k", "list-100k", "unclosed-100k", "depth-65", "huge-integer", "nan", "1e400"],
)
def test_deep_or_odd_json_is_a_400(world, client, write, raw):
    method, url, _ = writes(world)[write]
    before = rows(world)
    assert_detail(send(client, method, url, raw), 400)
    assert rows(world) == before


def test_the_depth_message_says_where(world, client):
    raw = '{"study": 1,\n "x": ' + "[" * 70 + "]" * 70 + "}"
    detail = assert_detail(send(client, "post", reverse("report-list"), raw), 400)
    assert "nested more than 64 levels deep" in detail and "x" in detail


@pytest.mark.parametrize("write", [0, 1, 2], ids=["reports", "generate", "study-status"])
def test_a_body_over_the_upload_limit_is_413(world, client, write, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1024 * 1024
    method, url, body = writes(world)[write]
    before = rows(world)
    raw = json.dumps({**body, "padding": "x" * (1024 * 1024)})
    assert_detail(send(client, method, url, raw), 413)
    assert rows(world) == before


@pytest.mark.parametrize(
    ("url", "params"),
    [
        ("annotation-list", {"annotator": NUL}),
        ("annotation-list", {"document": "d" + NUL}),
        ("annotation-list", {"category": NUL}),
        ("assignment-list", {"annotator": "A" + NUL}),
        ("assignment-list", {"document": NUL}),
        ("document-list", {"external_id": NUL}),
        ("study-list", {"slug": NUL}),
    ],
)
def test_nul_in_a_filter_is_a_400(world, client, url, params):
    response = client.get(reverse(url), params)
    assert response.status_code == 400
    assert response.json()


@pytest.mark.parametrize(
    "query",
    ["document=%ED%A0%80", "annotator=%ED%B2%80x", "document=%ud800", "slug=%FF%FE", "annotator=%00%00"],
)
@pytest.mark.parametrize("url", ["annotation-list", "assignment-list", "document-list", "study-list"])
def test_raw_bad_bytes_in_a_query_string_are_no_500(world, client, url, query):
    response = client.get(f"{reverse(url)}?{query}")
    assert response.status_code in (200, 400)
    assert response.json()


@pytest.mark.parametrize(
    "path", ["/api/studies/%00/", "/api/documents/%ED%A0%80/", "/api/nope/", "/api/reports/1/extra/"]
)
def test_odd_paths_are_404_json(world, client, path):
    assert_detail(client.get(path), 404)


def test_an_unexpected_error_is_a_500_in_json(world, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr("api.viewsets.studies.StudyViewSet.list", broken)
    client = Client(raise_request_exception=False)
    client.force_login(world.users["researcher"])
    response = client.get(reverse("study-list"))
    assert response.status_code == 500
    assert "a bug" not in assert_detail(response, 500)
