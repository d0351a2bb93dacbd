"""The worker's feedback in the REST API's assignment rows and on admin's assignment page:
study data, read by the study's members like its annotations, written only by the worker."""

import pytest
from django.test import Client
from django.urls import reverse

from annotations.models import Assignment

pytestmark = pytest.mark.django_db

FEEDBACK = 'Item 2 was empty <script>alert("x")</script> & =1+1'


@pytest.fixture
def with_feedback(world):
    Assignment.objects.filter(pk=world.assignment.pk).update(worker_feedback=FEEDBACK)
    return world


@pytest.mark.parametrize("role", ["analyst", "researcher", "superuser"])
def test_members_read_the_feedback_in_assignment_rows(with_feedback, api_client_for, role):
    client = api_client_for(role)
    detail = client.get(reverse("assignment-detail", args=[with_feedback.assignment.pk])).json()
    assert detail["worker_feedback"] == FEEDBACK
    rows = client.get(reverse("assignment-list")).json()["results"]
    assert {row["id"]: row["worker_feedback"] for row in rows}[with_feedback.assignment.pk] == FEEDBACK


def test_another_studys_researcher_cannot_read_it(with_feedback, api_client_for):
    client = api_client_for("other_researcher")
    assert client.get(reverse("assignment-detail", args=[with_feedback.assignment.pk])).status_code == 404
    assert FEEDBACK not in client.get(reverse("assignment-list")).content.decode()


def test_the_api_does_not_write_it(with_feedback, api_client_for):
    client = api_client_for("researcher")
    client.patch(
        reverse("assignment-detail", args=[with_feedback.assignment.pk]),
        {"worker_feedback": "changed by a script"},
        format="json",
    )
    with_feedback.assignment.refresh_from_db()
    assert with_feedback.assignment.worker_feedback == FEEDBACK


@pytest.mark.parametrize("role", ["analyst", "researcher"])
def test_admins_assignment_page_shows_it_read_only_and_escaped(with_feedback, role):
    client = Client()
    client.force_login(with_feedback.users[role])
    response = client.get(reverse("admin:annotations_assignment_change", args=[with_feedback.assignment.pk]))
    assert response.status_code == 200
    page = response.content.decode()
    assert "Item 2 was empty &lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; =1+1" in page
    assert '<script>alert("x")' not in page
    assert 'name="worker_feedback"' not in page
