"""Analysts see pseudonyms, never platform ids; nobody gets a task token or completion code."""

import hashlib
import hmac

import pytest
from django.conf import settings
from django.urls import reverse

from .conftest import PROLIFIC_PID

pytestmark = pytest.mark.django_db

WORK_URLS = [
    lambda w: reverse("assignment-list"),
    lambda w: reverse("assignment-detail", args=[w.assignment.pk]),
    lambda w: reverse("annotation-list"),
    lambda w: reverse("annotation-detail", args=[w.annotation.pk]),
]


def expected_pseudonym(assignment):
    """HMAC-SHA256 of "study:worker" under the server's pseudonym secret, computed here independently."""
    key = hashlib.sha256(("falte.annotator-pseudonym" + settings.PSEUDONYM_SECRET).encode()).digest()
    message = f"{assignment.study_id}:{assignment.worker_id}".encode()
    return "A" + hmac.new(key, message, hashlib.sha256).hexdigest()[:10]


@pytest.mark.parametrize("url", WORK_URLS)
def test_an_analyst_never_sees_platform_ids(world, api_client_for, url):
    response = api_client_for("analyst").get(url(world))
    assert response.status_code == 200
    body = response.content.decode()
    assert PROLIFIC_PID not in body
    assert "sess-42" not in body and "prolific" not in body
    assert "worker_external_id" not in body and "platform_ids" not in body
    assert expected_pseudonym(world.assignment) in body


@pytest.mark.parametrize("role", ["analyst", "researcher", "superuser"])
@pytest.mark.parametrize("url", WORK_URLS)
def test_no_one_gets_the_task_token_or_the_completion_code(world, api_client_for, role, url):
    body = api_client_for(role).get(url(world)).content.decode()
    assert world.assignment.token not in body
    assert "C0MPL3T10N" not in body and "completion_code" not in body and '"token"' not in body


def test_the_study_researcher_sees_who_the_worker_is(world, api_client_for):
    row = api_client_for("researcher").get(reverse("assignment-detail", args=[world.assignment.pk])).json()
    assert row["worker_platform"] == "prolific"
    assert row["worker_external_id"] == PROLIFIC_PID
    assert row["platform_ids"] == {"PROLIFIC_PID": PROLIFIC_PID, "SESSION_ID": "sess-42"}
    assert row["annotator"] == expected_pseudonym(world.assignment)
    assert row["document"] == world.document.external_id


def test_a_researcher_who_is_also_analyst_elsewhere_sees_ids_only_where_they_research(
    world, api_client_for, researcher
):
    from accounts.models import StudyMembership

    StudyMembership.objects.create(study=world.other, user=researcher, role=StudyMembership.Role.ANALYST)
    rows = api_client_for("researcher").get(reverse("assignment-list")).json()["results"]
    by_study = {row["study"]: row for row in rows}
    assert "worker_external_id" in by_study[world.study.pk]
    assert "worker_external_id" not in by_study[world.other.pk]


def test_pseudonyms_differ_between_studies_for_the_same_worker(world, api_client_for):
    from tests.factories import AssignmentFactory

    again = AssignmentFactory(document=world.other_document, worker=world.assignment.worker)
    rows = api_client_for("superuser").get(reverse("assignment-list")).json()["results"]
    pseudonyms = {row["id"]: row["annotator"] for row in rows}
    assert pseudonyms[again.pk] != pseudonyms[world.assignment.pk]


def test_the_prolific_completion_link_is_for_researchers_only(world, api_client_for):
    url = reverse("study-detail", args=[world.study.pk])
    assert "prolific_completion_url" not in api_client_for("analyst").get(url).json()["config"]
    assert api_client_for("researcher").get(url).json()["config"]["prolific_completion_url"] == "https://x/cc"
