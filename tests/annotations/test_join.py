"""Join links: crowd workers arrive from Prolific or Mechanical Turk and get a document."""

from collections import Counter
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.models import Worker
from annotations.models import Assignment
from studies.models import Study
from tests.annotations.concurrent_joins import joins_at_once
from tests.factories import make_span_study

pytestmark = pytest.mark.django_db


def join_url(study, **params):
    query = "&".join(f"{key}={value}" for key, value in params.items())
    return reverse("join", args=[study.join_key]) + (f"?{query}" if query else "")


def test_prolific_worker_gets_a_document_and_is_sent_to_the_task(client):
    study = make_span_study(documents=2, annotators_per_document=1)
    response = client.get(join_url(study, PROLIFIC_PID="p1", STUDY_ID="s9", SESSION_ID="x7"))
    assignment = Assignment.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("task-instructions", args=[assignment.token])
    assert assignment.worker.platform == Worker.Platform.PROLIFIC
    assert assignment.worker.external_id == "p1"
    assert assignment.platform_ids == {"STUDY_ID": "s9", "SESSION_ID": "x7"}
    again = client.get(join_url(study, PROLIFIC_PID="p1"))
    assert again["Location"] == response["Location"]  # the same open assignment, not a second one
    assert Assignment.objects.count() == 1


def test_mturk_preview_shows_instructions_without_assigning(client):
    study = make_span_study(documents=1, instructions="Find the **errors**.")
    response = client.get(join_url(study, assignmentId="ASSIGNMENT_ID_NOT_AVAILABLE", hitId="h1"))
    assert response.status_code == 200
    assert b"This is a preview" in response.content
    assert b"<strong>errors</strong>" in response.content
    assert Assignment.objects.count() == 0


def test_mturk_worker_keeps_the_ids_needed_to_submit_the_hit(client):
    study = make_span_study(documents=1)
    client.get(join_url(study, workerId="A1", assignmentId="asg1", hitId="h1",
                        turkSubmitTo="https://workersandbox.mturk.com"))  # fmt: skip
    assignment = Assignment.objects.get()
    assert assignment.worker.platform == Worker.Platform.MTURK
    assert assignment.platform_ids["assignmentId"] == "asg1"


def test_never_the_same_document_twice_and_k_per_document():
    study = make_span_study(documents=2, annotators_per_document=2)
    for worker in ["a", "b", "c"]:
        for _ in range(2):
            response = Client().get(join_url(study, PROLIFIC_PID=worker))
            if response.status_code == 302:
                Assignment.objects.filter(worker__external_id=worker).update(status="submitted")
    per_document = Counter(Assignment.objects.values_list("document_id", flat=True))
    assert sorted(per_document.values()) == [2, 2]
    for worker in ["a", "b"]:
        documents = Assignment.objects.filter(worker__external_id=worker).values_list(
            "document_id", flat=True
        )
        assert len(set(documents)) == len(documents)
    refused = Client().get(join_url(study, PROLIFIC_PID="c"))
    assert b"no document left for you" in refused.content


def test_max_documents_per_worker_is_respected(client):
    study = make_span_study(documents=3, annotators_per_document=3, max_documents_per_worker=1)
    client.get(join_url(study, PROLIFIC_PID="a"))
    Assignment.objects.update(status="submitted")
    response = client.get(join_url(study, PROLIFIC_PID="a"))
    assert b"as many documents of this study as it allows" in response.content
    assert Assignment.objects.count() == 1


def test_closed_study_and_unknown_key(client):
    study = make_span_study(documents=1, status=Study.Status.CLOSED)
    assert b"not open at the moment" in client.get(join_url(study, PROLIFIC_PID="a")).content
    assert client.get(reverse("join", args=["no-such-key"])).status_code == 404


def test_plain_link_remembers_the_worker_in_the_session(client):
    study = make_span_study(documents=3, annotators_per_document=1)
    first = client.get(join_url(study))
    second = client.get(join_url(study))
    assert first["Location"] == second["Location"]
    assert Worker.objects.filter(platform=Worker.Platform.LINK).count() == 1


def test_idle_joined_assignment_is_released_and_its_work_kept(client):
    study = make_span_study(documents=1, annotators_per_document=1, config={"release_after_minutes": 30})
    client.get(join_url(study, PROLIFIC_PID="slow"))
    idle = Assignment.objects.get()
    idle.annotations.create(segment=idle.document.segments.first(), category=study.taxonomy.categories.first(),
                            start=0, end=7, text="Segment", client_id="kept")  # fmt: skip
    Assignment.objects.filter(pk=idle.pk).update(last_activity_at=timezone.now() - timedelta(minutes=31))

    response = Client().get(join_url(study, PROLIFIC_PID="fast"))
    assert response.status_code == 302
    idle.refresh_from_db()
    assert idle.status == Assignment.Status.RELEASED
    assert idle.annotations.count() == 1
    back = client.get(reverse("task-instructions", args=[idle.token]))
    assert b"released because it was inactive" in back.content


def test_researcher_task_links_are_never_released(client):
    study = make_span_study(documents=1, annotators_per_document=1, config={"release_after_minutes": 1})
    handed_out = Assignment.objects.create(study=study, document=study.documents.get(),
                                           worker=Worker.objects.create(platform="link", external_id="w"))  # fmt: skip
    Assignment.objects.filter(pk=handed_out.pk).update(created_at=timezone.now() - timedelta(days=3))
    assert b"no document left" in client.get(join_url(study, PROLIFIC_PID="x")).content
    handed_out.refresh_from_db()
    assert handed_out.status == Assignment.Status.ASSIGNED


@pytest.mark.django_db(transaction=True)
def test_concurrent_joins_never_over_assign_a_document():
    # Runs on SQLite too: its test database is a file, so each thread holds its own connection and
    # the joins really contend for the write lock (falte_site/test_settings.py).
    study = make_span_study(documents=3, annotators_per_document=2)
    workers = 16
    statuses = joins_at_once(study, workers)

    per_document = Counter(Assignment.objects.values_list("document_id", flat=True))
    assert sorted(per_document.values()) == [2, 2, 2]
    assert statuses == {302: 6, 200: workers - 6}
