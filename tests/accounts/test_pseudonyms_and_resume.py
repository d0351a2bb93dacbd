"""Pseudonyms cannot be recomputed from what readers know; a worker id alone reopens nobody's task."""

import hashlib

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import Worker
from accounts.pseudonyms import annotator_pseudonym
from annotations.models import Assignment
from tests.factories import make_span_study

pytestmark = pytest.mark.django_db


def test_a_pseudonym_is_not_the_hash_of_what_a_reader_knows_and_differs_between_studies():
    first, second = make_span_study(documents=1), make_span_study(documents=1)
    worker = Worker.objects.create(platform=Worker.Platform.PROLIFIC, external_id="5f0c9a1e7d3b2a00123abcde")
    pseudonym = annotator_pseudonym(first.pk, worker.pk)
    assert pseudonym != annotator_pseudonym(second.pk, worker.pk)
    # The earlier, unkeyed scheme: anyone with the join link could try every worker id.
    for guess in (f"{first.pk}:{first.join_key}:{worker.pk}", f"{first.pk}:{worker.pk}"):
        assert pseudonym != "A" + hashlib.sha256(guess.encode()).hexdigest()[:10]


def test_the_pseudonym_follows_the_server_secret(settings):
    study = make_span_study(documents=1)
    before = annotator_pseudonym(study.pk, 7)
    settings.PSEUDONYM_SECRET = "another-secret-of-this-server-" + "y" * 30
    assert annotator_pseudonym(study.pk, 7) != before


def join(client, study, **params):
    query = "&".join(f"{key}={value}" for key, value in params.items())
    return client.get(reverse("join", args=[study.join_key]) + "?" + query)


def test_a_worker_id_alone_does_not_reopen_someone_elses_open_task():
    study = make_span_study(documents=2, status="open")
    worker_browser = Client()
    response = join(worker_browser, study, PROLIFIC_PID="p-victim", STUDY_ID="s1", SESSION_ID="sess-victim")
    assignment = Assignment.objects.get(worker__external_id="p-victim")
    assert response.url == reverse("task-instructions", args=[assignment.token])

    # Someone who learnt the PID (and has the join link) but not the worker's session:
    intruder = join(Client(), study, PROLIFIC_PID="p-victim")
    assert intruder.status_code == 200
    assert assignment.token not in intruder.content.decode()
    assert b"already have a task in this study" in intruder.content
    guessed = join(Client(), study, PROLIFIC_PID="p-victim", SESSION_ID="sess-guess")
    assert assignment.token not in guessed.content.decode()
    assert Assignment.objects.filter(worker__external_id="p-victim").count() == 1

    # The worker comes back: from the same browser, or through Prolific with the same session.
    assert join(worker_browser, study, PROLIFIC_PID="p-victim").url.endswith(f"/task/{assignment.token}/")
    again = join(Client(), study, PROLIFIC_PID="p-victim", SESSION_ID="sess-victim")
    assert again.url.endswith(f"/task/{assignment.token}/")


def test_a_mechanical_turk_worker_resumes_with_the_same_hit_assignment_only():
    study = make_span_study(documents=2, status="open")
    first = join(Client(), study, workerId="W1", assignmentId="A-1", hitId="H-1")
    token = Assignment.objects.get(worker__external_id="W1").token
    assert first.url.endswith(f"/task/{token}/")
    assert join(Client(), study, workerId="W1", assignmentId="A-1", hitId="H-1").url.endswith(
        f"/task/{token}/"
    )
    other = join(Client(), study, workerId="W1", assignmentId="A-2", hitId="H-1")
    assert other.status_code == 200 and token not in other.content.decode()
