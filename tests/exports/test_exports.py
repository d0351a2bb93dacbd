"""Analysts and researchers download annotation tables and bundles."""

import csv
import io
import json
import zipfile

import pytest
from django.urls import reverse
from rest_framework.authtoken.models import Token

from accounts.models import StudyMembership
from accounts.pseudonyms import annotator_pseudonym
from accounts.services import researcher_create
from annotations.models import Assignment
from bundles.services import study_import_bundle
from exports.models import Export
from falte_site.celery import app as celery_app
from tests.bundles import annotation, write_bundle

pytestmark = pytest.mark.django_db

ASSIGNMENTS = [
    {"document": "d1", "annotator": "PROLIFIC-5f3a", "platform": "prolific", "block": "2", "active_seconds": 90,
     "annotations": [annotation(1, "CharE", 0, 13, "Miss Sessions", comment="who?\nnew line"),
                     annotation(1, "RepE", 23, 41, "Anna met Ben again",
                                paired={"segment": 0, "start": 0, "end": 12, "text": "Anna met Ben"})]},
    {"document": "d2", "annotator": "PROLIFIC-77bb", "platform": "prolific", "annotations": []},
]  # fmt: skip


@pytest.fixture
def study(tmp_path, researcher):
    return study_import_bundle(
        directory=write_bundle(tmp_path, assignments=ASSIGNMENTS), user=researcher
    ).study


@pytest.fixture
def analyst(study):
    user = researcher_create(username="analyst", password="pass-w0rd-for-tests")
    StudyMembership.objects.create(study=study, user=user, role="analyst")
    return user


def download(client, study, file_format="csv", **params):
    response = client.get(reverse("export-annotations", args=[study.pk, file_format]), params)
    body = b"".join(response.streaming_content) if response.streaming else response.content
    return response, body.decode()


def test_csv_has_a_row_per_annotation_and_per_empty_assignment(client, study, analyst):
    client.force_login(analyst)
    response, body = download(client, study)
    assert response.status_code == 200 and response.streaming
    assert response["Content-Disposition"] == 'attachment; filename="bundle-study-annotations.csv"'
    rows = list(csv.DictReader(io.StringIO(body)))
    assert len(rows) == 3
    char, rep, empty = rows
    assert (char["category"], char["segment"], char["start"], char["end"], char["span_text"]) == (
        "CharE",
        "1",
        "0",
        "13",
        "Miss Sessions",
    )
    assert char["comment"] == "who?\nnew line" and char["block"] == "2" and char["active_seconds"] == "90"
    assert (rep["paired_segment"], rep["paired_start"], rep["paired_end"], rep["paired_text"]) == (
        "0",
        "0",
        "12",
        "Anna met Ben",
    )
    assert empty["document"] == "d2" and empty["no_annotation"] == "True" and empty["category"] == ""
    worker = Assignment.objects.get(document__external_id="d1").worker
    assert char["annotator"] == annotator_pseudonym(study.pk, worker.pk)
    assert "PROLIFIC-5f3a" not in body and "worker_external_id" not in body


def test_researchers_also_get_platform_ids(client, study, researcher):
    client.force_login(researcher)
    _, body = download(client, study)
    rows = list(csv.DictReader(io.StringIO(body)))
    assert [row["worker_external_id"] for row in rows] == ["PROLIFIC-5f3a", "PROLIFIC-5f3a", "PROLIFIC-77bb"]


def test_jsonl_with_a_token_for_scripts(client, study, analyst):
    token = Token.objects.create(user=analyst)
    response = client.get(
        reverse("export-annotations", args=[study.pk, "jsonl"]), HTTP_AUTHORIZATION=f"Token {token.key}"
    )
    lines = [json.loads(line) for line in b"".join(response.streaming_content).decode().splitlines()]
    assert [line["category"] for line in lines] == ["CharE", "RepE", ""]
    assert lines[2]["no_annotation"] is True


def test_out_of_scope_and_anonymous(client, study, other_researcher):
    assert client.get(reverse("export-annotations", args=[study.pk, "csv"])).status_code in (401, 403)
    client.force_login(other_researcher)
    assert client.get(reverse("export-annotations", args=[study.pk, "csv"])).status_code == 404
    assert client.get(reverse("export-bundle", args=[study.pk])).status_code == 404


def test_large_exports_run_as_a_job_with_a_download_link(
    client, study, researcher, settings, django_capture_on_commit_callbacks, tmp_path
):
    settings.EXPORT_STREAM_MAX_ROWS = 2
    settings.MEDIA_ROOT = str(tmp_path / "media")
    celery_app.conf.task_always_eager, before = True, celery_app.conf.task_always_eager
    client.force_login(researcher)
    try:
        with django_capture_on_commit_callbacks(execute=True):
            response = client.get(reverse("export-annotations", args=[study.pk, "csv"]))
    finally:
        celery_app.conf.task_always_eager = before
    assert response.status_code == 202
    job = client.get(reverse("export-job", args=[response.json()["id"]])).json()
    assert job["status"] == "done" and job["rows"] == 3
    file = client.get(job["download"])
    content = b"".join(file.streaming_content).decode()
    settings.EXPORT_STREAM_MAX_ROWS = 1000
    assert content == download(client, study)[1]
    export = Export.objects.get()
    (tmp_path / "media" / export.file).unlink()


def test_bundle_zip_round_trips(client, study, analyst, tmp_path):
    client.force_login(analyst)
    response = client.get(reverse("export-bundle", args=[study.pk]))
    assert response.streaming  # from a temporary file, not held in memory
    archive = zipfile.ZipFile(io.BytesIO(response.getvalue()))
    assert sorted(archive.namelist()) == [f"bundle-study/{name}" for name in
                                          ["annotations.csv", "assignments.jsonl", "documents.jsonl", "study.yaml"]]  # fmt: skip


def test_admin_export_of_annotations_with_filters(client, study, researcher):
    client.force_login(researcher)
    url = reverse("admin:span_errorannotation_export") + f"?study={study.pk}"
    page = client.get(url)
    assert page.status_code == 200
    response = client.post(url, {"format": "0", "resource": "0", **{f"errorannotationresource_{f}": "on" for f in
                                 ["id", "study", "document", "category", "text", "annotator"]}})  # fmt: skip
    assert response.status_code == 200, response.getvalue()[:500]
    text = response.getvalue().decode()
    assert "Miss Sessions" in text and "PROLIFIC" not in text


@pytest.mark.parametrize(
    "role", ["anonymous", "worker_token", "analyst", "other_researcher", "researcher", "superuser"]
)
@pytest.mark.parametrize("name", ["export-annotations-csv", "export-annotations-jsonl", "export-bundle"])
def test_export_permission_matrix(
    client, study, analyst, other_researcher, researcher, superuser, role, name
):
    expected = {"anonymous": 401, "worker_token": 401, "analyst": 200, "other_researcher": 404,
                "researcher": 200, "superuser": 200}[role]  # fmt: skip
    url = (reverse("export-bundle", args=[study.pk]) if name == "export-bundle"
           else reverse("export-annotations", args=[study.pk, name.rsplit("-", 1)[1]]))  # fmt: skip
    headers = {}
    if role == "worker_token":
        headers["HTTP_AUTHORIZATION"] = f"Token {Assignment.objects.first().token}"
    elif role != "anonymous":
        user = {"analyst": analyst, "other_researcher": other_researcher, "researcher": researcher,
                "superuser": superuser}[role]  # fmt: skip
        headers["HTTP_AUTHORIZATION"] = f"Token {Token.objects.get_or_create(user=user)[0].key}"
    assert client.get(url, **headers).status_code == expected
