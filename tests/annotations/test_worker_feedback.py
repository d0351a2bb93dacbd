"""The worker's feedback to the researchers through the shared task API (any protocol's page)."""

import json

import pytest
from django.test import Client
from django.urls import reverse

from annotations.models import WORKER_FEEDBACK_MAX_CHARS, Assignment
from annotations.services import TaskInputError, assignment_save_feedback
from tests.annotations.task_api import post
from tests.factories import AssignmentFactory, make_span_study

pytestmark = pytest.mark.django_db


def feedback_of(assignment):
    assignment.refresh_from_db()
    return assignment.worker_feedback


def test_feedback_is_saved_and_starts_the_task(client, assignment):
    response = post(client, "task-api-feedback", assignment, {"text": "Item 3 had no text.\nThanks!"})
    assert response.status_code == 200
    assert response.json() == {"text": "Item 3 had no text.\nThanks!"}
    assignment.refresh_from_db()
    assert assignment.worker_feedback == "Item 3 had no text.\nThanks!"
    assert assignment.status == Assignment.Status.IN_PROGRESS
    assert assignment.last_activity_at is not None


def test_the_last_text_wins_and_a_repeat_changes_nothing(client, assignment):
    for text in ["First", "First thought", "Second thought", "Second thought"]:
        assert post(client, "task-api-feedback", assignment, {"text": text}).status_code == 200
    assert feedback_of(assignment) == "Second thought"
    assert post(client, "task-api-feedback", assignment, {"text": ""}).status_code == 200
    assert feedback_of(assignment) == ""


def test_the_longest_text_allowed_is_kept_whole(client, assignment):
    # Characters beyond the Basic Multilingual Plane count as one each, as Python counts them.
    text = "😀" * WORKER_FEEDBACK_MAX_CHARS
    assert post(client, "task-api-feedback", assignment, {"text": text}).status_code == 200
    assert feedback_of(assignment) == text


def test_too_long_is_400_and_keeps_the_old_text(client, assignment):
    post(client, "task-api-feedback", assignment, {"text": "kept"})
    response = post(client, "task-api-feedback", assignment, {"text": "x" * (WORKER_FEEDBACK_MAX_CHARS + 1)})
    assert response.status_code == 400
    assert "at most 5,000" in response.json()["error"]
    assert feedback_of(assignment) == "kept"


@pytest.mark.parametrize("body", [{}, {"text": None}, {"text": 5}, {"text": ["a"]}, {"text": {"a": 1}}])
def test_text_that_is_not_a_string_is_400(client, assignment, body):
    response = post(client, "task-api-feedback", assignment, body)
    assert response.status_code == 400
    assert response.json()["error"] == "'text' must be text"
    assert feedback_of(assignment) == ""


@pytest.mark.parametrize("raw", ['{"text": "a\\u0000b"}', '{"text": "a\\ud800b"}', '{"text": "\\udfff"}'])
def test_nul_and_lone_surrogates_are_400(client, assignment, raw):
    response = post(client, "task-api-feedback", assignment, raw)
    assert response.status_code == 400
    assert "NUL" in response.json()["error"] or "surrogate" in response.json()["error"]
    assert feedback_of(assignment) == ""


@pytest.mark.parametrize("text", ["a\x00b", "a\ud800b"])
def test_the_service_refuses_them_too(assignment, text):
    # Not only the API's JSON reader: a caller from elsewhere is refused by the service itself.
    with pytest.raises(TaskInputError):
        assignment_save_feedback(token=assignment.token, text=text)
    assert feedback_of(assignment) == ""


def test_after_submit_feedback_is_read_only_409(client, assignment):
    post(client, "task-api-feedback", assignment, {"text": "before"})
    Assignment.objects.filter(pk=assignment.pk).update(status=Assignment.Status.SUBMITTED)
    response = post(client, "task-api-feedback", assignment, {"text": "after"})
    assert response.status_code == 409
    assert "already submitted" in response.json()["error"]
    assert feedback_of(assignment) == "before"


def test_a_released_assignment_is_409(client, assignment):
    Assignment.objects.filter(pk=assignment.pk).update(status=Assignment.Status.RELEASED)
    assert post(client, "task-api-feedback", assignment, {"text": "late"}).status_code == 409
    assert feedback_of(assignment) == ""


def test_an_unknown_token_is_404(client, assignment):
    response = client.post(
        reverse("task-api-feedback", args=["no-such-token"]),
        json.dumps({"text": "hello"}),
        content_type="application/json",
    )
    assert response.status_code == 404
    assert response.json()["error"] == "There is no task with this link."


def test_a_get_is_405(client, assignment):
    assert client.get(reverse("task-api-feedback", args=[assignment.token])).status_code == 405


def test_one_token_writes_only_its_own_assignment(client, assignment):
    other_study = make_span_study(documents=1, segments=1)
    other = AssignmentFactory(document=other_study.documents.get())
    post(client, "task-api-feedback", other, {"text": "other study"})
    post(client, "task-api-feedback", assignment, {"text": "mine"})
    assert feedback_of(other) == "other study"
    assert feedback_of(assignment) == "mine"
    # A token of the other study gives no way to another assignment: the body cannot name one.
    post(client, "task-api-feedback", other, {"text": "again", "assignment": assignment.pk})
    assert feedback_of(assignment) == "mine"
    assert feedback_of(other) == "again"


def test_the_page_needs_the_csrf_token(assignment):
    strict = Client(enforce_csrf_checks=True)
    response = strict.post(
        reverse("task-api-feedback", args=[assignment.token]),
        json.dumps({"text": "x"}),
        content_type="application/json",
    )
    assert response.status_code == 403
    assert feedback_of(assignment) == ""


def test_the_page_renders_the_stored_text_escaped_in_the_box(client, assignment):
    hostile = '\nstarts with a line break </textarea><script>alert("x")</script> &amp;'
    Assignment.objects.filter(pk=assignment.pk).update(worker_feedback=hostile)
    page = client.get(reverse("task-annotate", args=[assignment.token])).content.decode()
    assert "Anything you want to tell the researchers? (optional)" in page
    # The newline after the opening tag is the one HTML drops; the text's own first line break stays.
    escaped = "\n\nstarts with a line break &lt;/textarea&gt;&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp;amp;"
    assert escaped + "</textarea>" in page
    assert '<script>alert("x")' not in page
    assert f'data-url="{reverse("task-api-feedback", args=[assignment.token])}"' in page
