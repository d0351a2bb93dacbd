"""Every endpoint x every role: the status each gets, and whose objects the lists show.

Roles: anonymous, a worker's task token sent as an API token, an analyst of
study S, the researcher of another study, S's researcher, a superuser.
"""

import pytest
from django.urls import reverse

from accounts.models import Worker
from annotations.models import Assignment
from reports.models import Report
from studies.models import Study

from .conftest import ROLES

pytestmark = pytest.mark.django_db

# resource (router basename) -> (S's object, the other study's object), as attributes of `world`
RESOURCES = {
    "study": ("study", "other"),
    "taxonomy": ("taxonomy", "other_taxonomy"),
    "document": ("document", "other_document"),
    "assignment": ("assignment", "other_assignment"),
    "annotation": ("annotation", "other_annotation"),
    "report": ("report", "other_report"),
}

UNAUTHENTICATED = {"anonymous": 401, "task_token": 401}
LIST = {**UNAUTHENTICATED, "analyst": 200, "other_researcher": 200, "researcher": 200, "superuser": 200}
DETAIL_OF_S = {
    **UNAUTHENTICATED,
    "analyst": 200,
    "other_researcher": 404,
    "researcher": 200,
    "superuser": 200,
}
SEES_S = {"analyst", "researcher", "superuser"}
SEES_OTHER = {"other_researcher", "superuser"}


@pytest.mark.parametrize("resource", RESOURCES)
@pytest.mark.parametrize("role", ROLES)
def test_list(world, api_client_for, role, resource):
    response = api_client_for(role).get(reverse(f"{resource}-list"))
    assert response.status_code == LIST[role], response.content
    if response.status_code != 200:
        assert response.json()["detail"]
        assert response["WWW-Authenticate"] == "Token"
        return
    ids = {row["id"] for row in response.json()["results"]}
    ours, theirs = (getattr(world, name).pk for name in RESOURCES[resource])
    assert (ours in ids) == (role in SEES_S)
    assert (theirs in ids) == (role in SEES_OTHER)


@pytest.mark.parametrize("resource", RESOURCES)
@pytest.mark.parametrize("role", ROLES)
def test_detail(world, api_client_for, role, resource):
    ours = getattr(world, RESOURCES[resource][0])
    response = api_client_for(role).get(reverse(f"{resource}-detail", args=[ours.pk]))
    assert response.status_code == DETAIL_OF_S[role], response.content
    if response.status_code == 200:
        assert response.json()["id"] == ours.pk
    else:
        assert response.json()["detail"]


def _state(world):
    """What a refused write must leave as it was."""
    return (
        Study.objects.get(pk=world.study.pk).status,
        Report.objects.filter(study=world.study).count(),
        Assignment.objects.filter(study=world.study).count(),
        Worker.objects.count(),
    )


# name -> (method, url of world, body of world, expected status by role)
WRITES = {
    "PATCH studies/{S} status": (
        "patch",
        lambda w: reverse("study-detail", args=[w.study.pk]),
        lambda w: {"status": "closed"},
        {**UNAUTHENTICATED, "analyst": 403, "other_researcher": 404, "researcher": 200, "superuser": 200},
    ),
    "POST reports/ for S": (
        "post",
        lambda w: reverse("report-list"),
        lambda w: {"study": w.study.pk},
        {**UNAUTHENTICATED, "analyst": 403, "other_researcher": 400, "researcher": 202, "superuser": 202},
    ),
    "POST assignments/generate/ for S": (
        "post",
        lambda w: reverse("assignment-generate"),
        lambda w: {"study": w.study.pk, "worker_ids": ["new-1", "new-2"], "per_document": 1},
        {**UNAUTHENTICATED, "analyst": 403, "other_researcher": 400, "researcher": 201, "superuser": 201},
    ),
    # Methods an endpoint does not have: 405 for anyone authenticated, in scope or not.
    "PUT studies/{S}": (
        "put",
        lambda w: reverse("study-detail", args=[w.study.pk]),
        lambda w: {"status": "closed"},
        {**UNAUTHENTICATED, **dict.fromkeys(["analyst", "other_researcher", "researcher", "superuser"], 405)},
    ),
    "DELETE studies/{S}": (
        "delete",
        lambda w: reverse("study-detail", args=[w.study.pk]),
        lambda w: None,
        {**UNAUTHENTICATED, **dict.fromkeys(["analyst", "other_researcher", "researcher", "superuser"], 405)},
    ),
    "POST documents/": (
        "post",
        lambda w: reverse("document-list"),
        lambda w: {"study": w.study.pk, "external_id": "new"},
        {**UNAUTHENTICATED, **dict.fromkeys(["analyst", "other_researcher", "researcher", "superuser"], 405)},
    ),
    "PATCH assignments/{A}": (
        "patch",
        lambda w: reverse("assignment-detail", args=[w.assignment.pk]),
        lambda w: {"status": "submitted"},
        {**UNAUTHENTICATED, **dict.fromkeys(["analyst", "other_researcher", "researcher", "superuser"], 405)},
    ),
    "DELETE annotations/{E}": (
        "delete",
        lambda w: reverse("annotation-detail", args=[w.annotation.pk]),
        lambda w: None,
        {**UNAUTHENTICATED, **dict.fromkeys(["analyst", "other_researcher", "researcher", "superuser"], 405)},
    ),
    "DELETE reports/{R}": (
        "delete",
        lambda w: reverse("report-detail", args=[w.report.pk]),
        lambda w: None,
        {**UNAUTHENTICATED, **dict.fromkeys(["analyst", "other_researcher", "researcher", "superuser"], 405)},
    ),
    "POST taxonomies/": (
        "post",
        lambda w: reverse("taxonomy-list"),
        lambda w: {"slug": "new", "name": "New"},
        {**UNAUTHENTICATED, **dict.fromkeys(["analyst", "other_researcher", "researcher", "superuser"], 405)},
    ),
}


@pytest.mark.parametrize("write", WRITES)
@pytest.mark.parametrize("role", ROLES)
def test_write(world, api_client_for, role, write):
    method, url, body, expected = WRITES[write]
    before = _state(world)
    response = getattr(api_client_for(role), method)(url(world), body(world), format="json")
    assert response.status_code == expected[role], response.content
    if response.status_code >= 400:
        assert response.json(), "a refusal says why"
        assert _state(world) == before
    else:
        assert _state(world) != before
