"""The task API's lean middleware path: it skips only the message store, never a protection."""

import json

import pytest
from django.test import Client
from django.urls import reverse

from annotations.models import Assignment
from protocols.span.models import ErrorAnnotation
from tests.annotations.task_api import post

pytestmark = pytest.mark.django_db

SAVE = {"client_id": "c1", "category": "CharE", "segment": 0, "start": 25, "end": 29, "text": "Anna"}


def page_csrf_token(client, assignment):
    page = client.get(reverse("task-annotate", args=[assignment.token]))
    return page.cookies["csrftoken"].value


def test_every_task_api_write_still_needs_the_csrf_token(assignment):
    strict = Client(enforce_csrf_checks=True)
    token = page_csrf_token(strict, assignment)
    assert post(strict, "task-api-annotations", assignment, SAVE).status_code == 403
    assert post(strict, "task-api-move", assignment, {"segment": 1}).status_code == 403
    removal = reverse("task-api-annotation", args=[assignment.token, "c1"])
    assert strict.delete(removal).status_code == 403
    assert not ErrorAnnotation.objects.exists()
    assert (
        post(strict, "task-api-annotations", assignment, SAVE, headers={"X-CSRFToken": token}).status_code
        == 201
    )


def test_a_save_from_another_origin_is_refused_even_with_the_token(assignment):
    strict = Client(enforce_csrf_checks=True)
    token = page_csrf_token(strict, assignment)
    response = post(
        strict, "task-api-annotations", assignment, SAVE,
        headers={"X-CSRFToken": token, "Origin": "https://attacker.example"},
    )  # fmt: skip
    assert response.status_code == 403
    assert not ErrorAnnotation.objects.exists()


def test_the_access_rules_hold_on_the_task_api(client, assignment):
    unknown = client.post(
        "/api/task/no-such-token/annotations/", json.dumps(SAVE), content_type="application/json"
    )
    assert unknown.status_code == 404
    Assignment.objects.filter(pk=assignment.pk).update(status=Assignment.Status.SUBMITTED)
    assert post(client, "task-api-annotations", assignment, SAVE).status_code == 409
    assert not ErrorAnnotation.objects.exists()


def test_task_api_answers_carry_the_security_headers(client, assignment):
    response = post(client, "task-api-annotations", assignment, SAVE)
    assert response.status_code == 201
    assert "default-src 'self'" in response["Content-Security-Policy"]
    assert response["X-Frame-Options"] == "DENY"
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Referrer-Policy"] == "same-origin"


def test_pages_still_show_their_messages(client, superuser):
    # The admin tells, through the message framework, that an action needs selected rows.
    client.force_login(superuser)
    response = client.post(
        reverse("admin:studies_study_changelist"), {"action": "delete_selected", "index": 0}, follow=True
    )
    assert response.status_code == 200
    assert "Items must be selected in order to perform actions on them" in response.content.decode()
