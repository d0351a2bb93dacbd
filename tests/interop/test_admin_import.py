"""Admin's upload of another tool's annotation file, beside the bundle import."""

import json
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from accounts.models import StudyMembership
from studies.models import Study
from tests.factories import UserFactory, make_span_study

pytestmark = pytest.mark.django_db

FILES = Path(__file__).parent / "files"
EXPORT = FILES / "label-studio-export.json"
URL = "admin:studies_study_import_annotations"


def upload(client, content, *, slug="uploaded", fmt="label-studio", name="project-3.json", **extra):
    data = {"file": SimpleUploadedFile(name, content), "format": fmt, "slug": slug, **extra}
    return client.post(reverse(URL), data)


def test_a_researcher_uploads_a_label_studio_export_and_runs_the_new_study(client, researcher):
    client.force_login(researcher)
    response = upload(client, EXPORT.read_bytes(), sentences_per_segment="1")
    assert response.status_code == 302
    study = Study.objects.get(slug="uploaded")
    assert response["Location"] == reverse("admin:studies_study_change", args=[study.pk])
    assert study.memberships.get(user=researcher).role == StudyMembership.Role.RESEARCHER
    page = client.get(response["Location"]).content.decode()
    assert "uploaded: 2 documents, 6 segments, 5 assignments, 9 annotations" in page
    assert "annotation 3: cancelled (was_cancelled), not imported" in page


def test_a_given_study_yaml_names_the_categories(client, researcher):
    client.force_login(researcher)
    settings = SimpleUploadedFile("study.yaml", (FILES / "study.yaml").read_bytes())
    assert upload(client, EXPORT.read_bytes(), taxonomy=settings).status_code == 302
    assert Study.objects.get(slug="uploaded").taxonomy.slug == "story-errors"


def test_every_problem_is_listed_with_its_task_and_nothing_is_written(client, researcher):
    tasks = json.loads(EXPORT.read_text(encoding="utf-8"))
    tasks[0]["annotations"][0]["result"][0]["value"]["text"] = "<b>Bob</b>"
    client.force_login(researcher)
    page = upload(client, json.dumps(tasks, indent=2, ensure_ascii=False).encode()).content.decode()
    assert "1 problem found. Nothing was imported." in page
    assert (
        "project-3.json:2: task 101, annotation 1, region a1: value.text &#x27;&lt;b&gt;Bob&lt;/b&gt;&#x27;"
        in page
    )
    assert not Study.objects.exists()


def test_a_file_over_the_web_limit_is_refused(client, researcher, settings):
    settings.BUNDLE_WEB_MAX_BYTES = 1000
    client.force_login(researcher)
    page = upload(client, EXPORT.read_bytes()).content.decode()
    assert "uploads here are limited to 1,000 bytes" in page and "manage.py import_annotations" in page
    assert not Study.objects.exists()


def test_the_changelist_links_the_import_next_to_the_bundle_import(client, researcher):
    client.force_login(researcher)
    page = client.get(reverse("admin:studies_study_changelist")).content.decode()
    assert reverse(URL) in page and reverse("admin:studies_study_import") in page


def test_an_analyst_without_the_researchers_permissions_is_refused(client, researcher):
    study = make_span_study(documents=1, researcher=researcher)
    analyst = UserFactory(is_staff=True)
    StudyMembership.objects.create(study=study, user=analyst, role=StudyMembership.Role.ANALYST)
    client.force_login(analyst)
    assert client.get(reverse(URL)).status_code == 403
    assert upload(client, EXPORT.read_bytes()).status_code == 403
    assert not Study.objects.filter(slug="uploaded").exists()
    client.logout()
    assert client.get(reverse(URL)).status_code == 302  # to the login page


def test_an_upload_body_over_the_web_limit_is_refused_before_it_is_read(client, researcher, settings):
    settings.BUNDLE_WEB_MAX_BYTES = 10
    client.force_login(researcher)
    page = upload(client, EXPORT.read_bytes() * 40).content.decode()
    assert "This upload is" in page and "python manage.py import_annotations FILE" in page
    assert not Study.objects.exists()
