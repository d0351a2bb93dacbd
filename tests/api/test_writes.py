"""The API's writes: a study's status, report requests, assignment generation, and bad input."""

import pytest
from django.urls import reverse
from django.utils import timezone

from annotations.models import Assignment
from reports.models import Report
from studies.models import Study

pytestmark = pytest.mark.django_db


@pytest.fixture
def client(world, api_client_for):
    return api_client_for("researcher")


def study_url(world):
    return reverse("study-detail", args=[world.study.pk])


def test_a_researcher_closes_and_reopens_the_study(world, client):
    for status in ["closed", "draft", "open"]:
        response = client.patch(study_url(world), {"status": status}, format="json")
        assert response.status_code == 200
        assert response.json()["status"] == status
        assert Study.objects.get(pk=world.study.pk).status == status
    assert response.json()["counts"]["documents"] == 2


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [
        ({"status": "paused"}, "status", '"paused" is not a valid choice.'),
        ({"status": None}, "status", "This field may not be null."),
        ({"status": 3}, "status", '"3" is not a valid choice.'),
        ({"title": "Renamed"}, "title", "Only a study's status can be changed through the API."),
        ({"status": "closed", "slug": "x"}, "slug", "Only a study's status can be changed through the API."),
        (["closed"], "non_field_errors", "Invalid data. Expected a dictionary, but got list."),
    ],
)
def test_a_bad_status_change_is_a_400_that_says_why(world, client, body, field, message):
    response = client.patch(study_url(world), body, format="json")
    assert response.status_code == 400
    assert response.json()[field] == [message]
    study = Study.objects.get(pk=world.study.pk)
    assert (study.status, study.title, study.slug) == (
        world.study.status,
        world.study.title,
        world.study.slug,
    )


def test_a_report_request_is_queued_then_the_running_one_is_answered(world, client, clock):
    first = client.post(reverse("report-list"), {"study": world.study.pk}, format="json")
    assert first.status_code == 202
    report = first.json()
    assert report["status"] == "queued" and report["study"] == world.study.pk
    assert report["requested_by"] == "researcher-a" and report["result"] is None
    again = client.post(reverse("report-list"), {"study": world.study.pk}, format="json")
    assert again.status_code == 202 and again.json()["id"] == report["id"]
    Report.objects.filter(pk=report["id"]).update(status=Report.Status.RUNNING, heartbeat_at=timezone.now())
    assert (
        client.post(reverse("report-list"), {"study": world.study.pk}, format="json").json()["id"]
        == report["id"]
    )


def test_the_report_list_leaves_results_to_the_detail(world, client):
    rows = client.get(reverse("report-list"), {"study": world.study.pk}).json()["results"]
    assert [row["id"] for row in rows] == [world.report.pk] and "result" not in rows[0]
    detail = client.get(reverse("report-detail", args=[world.report.pk])).json()
    assert detail["result"] == {"study": world.study.slug}


def generate(client, **body):
    return client.post(reverse("assignment-generate"), body, format="json")


def test_generate_gives_each_document_its_annotators_with_task_links(world, client):
    response = generate(client, study=world.study.pk, worker_ids=["w1", "w2", "w3"], per_document=2)
    assert response.status_code == 201, response.content
    created = response.json()["created"]
    # doc0 already had one annotator, so it gets one more; doc1 gets two.
    assert len(created) == 3 and response.json()["short"] == {}
    for row in created:
        assignment = Assignment.objects.get(pk=row["id"])
        assert row["task_path"] == f"/task/{assignment.token}/"
        assert row["task_url"].endswith(row["task_path"])
        assert row["worker_external_id"] == assignment.worker.external_id
        assert row["annotator"].startswith("A") and row["study"] == world.study.pk
    again = generate(client, study=world.study.pk, worker_ids=["w1", "w2", "w3"], per_document=2)
    assert again.status_code == 201 and again.json()["created"] == []  # only gaps are filled


def test_generate_reports_documents_left_short(world, client):
    Study.objects.filter(pk=world.study.pk).update(max_documents_per_worker=1)
    response = generate(client, study=world.study.pk, worker_ids=["w1", "w2"], per_document=2)
    assert response.status_code == 201
    # doc0 (one annotator already) takes w1; doc1 then gets w2 only, as w1 is at the limit.
    assert [row["document"] for row in response.json()["created"]] == [
        f"{world.study.slug}-doc0",
        f"{world.study.slug}-doc1",
    ]
    assert response.json()["short"] == {f"{world.study.slug}-doc1": 1}


@pytest.mark.parametrize(
    ("body", "field", "message"),
    [
        ({}, "study", "This field is required."),
        ({"study": "abc", "worker_ids": ["a"]}, "study", "A study id is an integer, not str."),
        ({"study": 1.5, "worker_ids": ["a"]}, "study", "A study id is an integer, not float."),
        ({"study": True, "worker_ids": ["a"]}, "study", "A study id is an integer, not bool."),
        ({"study": 987654, "worker_ids": ["a"]}, "study", "No study with id 987654 among your studies."),
        ({"study": 10**30, "worker_ids": ["a"]}, "study", f"No study with id {10**30} among your studies."),
        ({"worker_ids": []}, "worker_ids", "This list may not be empty."),
        ({"worker_ids": "a,b"}, "worker_ids", 'Expected a list of items but got type "str".'),
        ({"worker_ids": ["a"], "per_document": "two"}, "per_document", "A valid integer is required."),
        (
            {"worker_ids": ["a"], "per_document": 0},
            "per_document",
            "Ensure this value is greater than or equal to 1.",
        ),
        ({"worker_ids": ["a"], "platform": "upwork"}, "platform", '"upwork" is not a valid choice.'),
        (
            {"worker_ids": ["a", "b"], "per_document": 3},
            "non_field_errors",
            "3 annotators per document needs at least 3 workers; 2 given",
        ),
        (
            {"worker_ids": ["a", "a", "a"]},
            "non_field_errors",
            "3 annotators per document needs at least 3 workers; 1 given",
        ),
    ],
)
def test_bad_generate_requests_are_400s_that_say_why(world, client, body, field, message):
    if "study" not in body and field != "study":
        body = {"study": world.study.pk, **body}
    before = Assignment.objects.count()
    response = generate(client, **body)
    assert response.status_code == 400
    assert response.json()[field] == [message]
    assert Assignment.objects.count() == before


def test_a_worker_id_too_long_or_blank_is_refused_per_item(world, client):
    response = generate(client, study=world.study.pk, worker_ids=["ok", "x" * 256, "  "])
    assert response.status_code == 400
    assert response.json()["worker_ids"] == {
        "1": ["Ensure this field has no more than 255 characters."],
        "2": ["This field may not be blank."],
    }


@pytest.mark.parametrize(
    ("url", "params", "field"),
    [
        ("annotation-list", {"study": "abc"}, "study"),
        ("annotation-list", {"study": "1.5"}, "study"),
        ("annotation-list", {"study": "99999999999999999999999"}, "study"),
        ("annotation-list", {"kind": "bronze"}, "kind"),
        ("assignment-list", {"status": "done"}, "status"),
        ("assignment-list", {"study": "-3"}, "study"),
        ("document-list", {"study": "x"}, "study"),
        ("document-list", {"kind": "x"}, "kind"),
        ("report-list", {"status": "x"}, "status"),
        ("study-list", {"status": "x"}, "status"),
    ],
)
def test_a_bad_filter_value_is_a_400_that_names_the_filter(world, client, url, params, field):
    response = client.get(reverse(url), params)
    assert response.status_code == 400
    assert response.json()[field]


def test_nul_characters_are_refused_before_the_database_sees_them(world, client):
    # PostgreSQL cannot store or compare them: a 400 here, never a 500 there.
    response = generate(client, study=world.study.pk, worker_ids=["a\x00b"])
    assert response.status_code == 400 and "worker_ids[0]" in response.json()["detail"]
    for params in [{"document": "d\x00"}, {"annotator": "A\x00"}, {"category": "\x00"}]:
        response = client.get(reverse("annotation-list"), params)
        assert response.status_code == 400 and response.json()


def test_bad_ids_in_the_path_are_404s(world, client):
    for path in ["/api/studies/abc/", "/api/studies/99999999999999999999999/", "/api/annotations/-1/"]:
        response = client.get(path)
        assert response.status_code == 404 and response.json()["detail"]


def test_a_body_that_is_not_json_is_a_400_and_the_wrong_media_type_a_415(world, client):
    response = client.post(reverse("report-list"), "{not json", content_type="application/json")
    assert response.status_code == 400 and "JSON parse error" in response.json()["detail"]
    response = client.post(reverse("report-list"), "study=1", content_type="text/plain")
    assert response.status_code == 415 and response.json()["detail"]


@pytest.mark.parametrize(
    ("method", "url", "body"),
    [
        ("patch", lambda w: reverse("study-detail", args=[w.study.pk]), lambda w: {"status": "closed"}),
        ("post", lambda w: reverse("report-list"), lambda w: {"study": w.study.pk}),
        (
            "post",
            lambda w: reverse("assignment-generate"),
            lambda w: {"study": w.study.pk, "worker_ids": ["a"]},
        ),
    ],
)
def test_an_analyst_is_told_that_writes_are_for_researchers(world, api_client_for, method, url, body):
    response = getattr(api_client_for("analyst"), method)(url(world), body(world), format="json")
    assert response.status_code == 403
    assert response.json() == {"detail": "Only the study's researchers may do this."}
