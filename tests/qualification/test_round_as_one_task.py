"""A qualification round of several documents is one task: one join, one code, one platform submission."""

import json
from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.models import Worker
from annotations.models import Assignment
from annotations.services import assignment_join, assignment_submit, assignments_release_stale
from qualification.models import QualificationResult
from tests.factories import DocumentFactory, SegmentFactory, make_span_study
from tests.qualification.builders import TEXTS, annotate, make_round, span

pytestmark = pytest.mark.django_db

PROLIFIC = {"PROLIFIC_PID": "cand", "STUDY_ID": "st1", "SESSION_ID": "se1"}
MTURK = {
    "workerId": "A1",
    "assignmentId": "hitasg1",
    "hitId": "hit1",
    "turkSubmitTo": "https://www.mturk.com",
}
COMPLETE_URL = "https://app.prolific.com/submissions/complete?cc=QUAL1"


@pytest.fixture
def round_of_two():
    """The published study's qualification: two summaries, with gold for both."""
    qualification, first = make_round()
    study = qualification.study
    study.config = {"prolific_completion_url": COMPLETE_URL}
    study.save(update_fields=["config"])
    second = DocumentFactory(study=study, external_id="q2", kind="qualification", position=1)
    for index, text in enumerate(TEXTS):
        SegmentFactory(document=second, index=index, text=text)
    for document in (first, second):
        annotate(document, "expert", "gold", [span(document, 1, "Carl", "CharE")], platform="expert")
    return qualification


def join(client, study, params):
    query = "&".join(f"{key}={value}" for key, value in params.items())
    return client.get(reverse("join", args=[study.join_key]) + (f"?{query}" if query else ""))


def submit(client, assignment):
    """Read every segment, then submit; the submit's JSON answer."""
    for segment in range(1, assignment.document.segments.count()):
        client.post(reverse("task-api-move", args=[assignment.token]), json.dumps({"segment": segment}),
                    content_type="application/json")  # fmt: skip
    response = client.post(reverse("task-api-submit", args=[assignment.token]), "{}",
                           content_type="application/json")  # fmt: skip
    assert response.status_code == 200
    return response.json()


def round_assignments(worker_id):
    return list(Assignment.objects.filter(worker__external_id=worker_id, kind="qualification").order_by("id"))


def test_after_the_first_document_the_page_goes_on_to_the_next(client, round_of_two):
    join(client, round_of_two.study, PROLIFIC)
    (first,) = round_assignments("cand")
    answer = submit(client, first)
    first_again, second = round_assignments("cand")
    assert second.document.external_id == "q2" and second.worker == first.worker and second.joined
    assert second.status == Assignment.Status.ASSIGNED
    assert answer["completion"]["code"] is None  # no code before the last document
    assert answer["completion"]["next"] == reverse("task-annotate", args=[second.token])
    assert answer["completion"]["redirect_url"] is None
    # Scored per document as it is submitted.
    assert QualificationResult.objects.get(worker__external_id="cand").documents == 1


def test_the_next_document_carries_the_platform_ids(round_of_two):
    for params, worker_id in ((PROLIFIC, "cand"), (MTURK, "A1")):
        client = Client()
        join(client, round_of_two.study, params)
        submit(client, round_assignments(worker_id)[0])
        first, second = round_assignments(worker_id)
        assert second.platform_ids == first.platform_ids
    assert round_assignments("A1")[1].platform_ids["assignmentId"] == "hitasg1"
    assert round_assignments("cand")[1].platform_ids["SESSION_ID"] == "se1"


def test_one_code_for_the_whole_round_and_the_platform_hand_off_after_the_last(client, round_of_two):
    join(client, round_of_two.study, PROLIFIC)
    submit(client, round_assignments("cand")[0])
    answer = submit(client, round_assignments("cand")[1])
    first, second = round_assignments("cand")
    assert first.completion_code and first.completion_code == second.completion_code
    assert answer["completion"]["code"] == first.completion_code
    assert answer["completion"]["next"] is None
    assert answer["completion"]["redirect_url"] == COMPLETE_URL
    done = client.get(reverse("task-done", args=[second.token])).content.decode()
    assert done.count(first.completion_code) == 1 and "Return to Prolific" in done
    result = QualificationResult.objects.get(worker__external_id="cand")
    assert result.documents == 2 and result.scores["categories"]["CharE"]["reference"] > 0
    assert reverse("qualification-feedback", args=[result.feedback_token]) in done
    # Every page of the round now shows the same code; nothing more to join.
    assert first.completion_code in client.get(reverse("task-done", args=[first.token])).content.decode()
    assert b"every document of this qualification task" in join(client, round_of_two.study, PROLIFIC).content


def test_mechanical_turk_gets_one_hit_submission_for_the_round(round_of_two):
    client = Client()
    join(client, round_of_two.study, MTURK)
    first_answer = submit(client, round_assignments("A1")[0])
    assert first_answer["completion"]["mturk"] is None  # the HIT is not submitted after the first document
    answer = submit(client, round_assignments("A1")[1])
    assert answer["completion"]["mturk"] == {
        "action": "https://www.mturk.com/mturk/externalSubmit", "assignmentId": "hitasg1",
    }  # fmt: skip
    done = client.get(reverse("task-done", args=[round_assignments("A1")[1].token])).content.decode()
    assert done.count('id="mturk-submit"') == 1


def test_a_reload_at_any_point_resumes_where_the_candidate_is(client, round_of_two):
    join(client, round_of_two.study, PROLIFIC)
    (first,) = round_assignments("cand")
    page = client.get(reverse("task-annotate", args=[first.token])).content.decode()
    assert "Text 1 of 2" in page
    submit(client, first)
    second = round_assignments("cand")[1]
    next_page = reverse("task-annotate", args=[second.token])
    # The first document's pages lead on to the second; its done page shows no code yet.
    assert client.get(reverse("task-annotate", args=[first.token]))["Location"] == next_page
    assert client.get(reverse("task-done", args=[first.token]))["Location"] == next_page
    assert "Text 2 of 2" in client.get(next_page).content.decode()
    # The join link again, from Prolific (same session) or from the same browser: the second document.
    expected = reverse("task-instructions", args=[second.token])
    assert join(Client(), round_of_two.study, PROLIFIC)["Location"] == expected
    assert join(client, round_of_two.study, {"PROLIFIC_PID": "cand"})["Location"] == expected
    assert len(round_assignments("cand")) == 2


def test_a_plain_link_candidate_comes_back_to_the_next_document(round_of_two):
    browser = Client()
    join(browser, round_of_two.study, {})
    (first,) = Assignment.objects.filter(kind="qualification", worker__platform="link")
    submit(browser, first)
    second = Assignment.objects.filter(kind="qualification", worker__platform="link").latest("id")
    assert join(browser, round_of_two.study, {})["Location"] == reverse(
        "task-instructions", args=[second.token]
    )
    join(Client(), round_of_two.study, {})  # another browser is another anonymous candidate
    assert Assignment.objects.filter(kind="qualification", worker__platform="link").count() == 3


def test_the_service_creates_the_next_document_once(round_of_two):
    first = assignment_join(study=round_of_two.study, platform="prolific", external_id="svc",
                            platform_ids={"SESSION_ID": "s"})  # fmt: skip
    Assignment.objects.filter(pk=first.pk).update(current_segment=1, segments_visited=[0, 1])
    assignment_submit(token=first.token)
    assignment_submit(token=first.token)  # a second click changes nothing
    assert len(round_assignments("svc")) == 2
    resumed = assignment_join(study=round_of_two.study, platform="prolific", external_id="svc",
                              platform_ids={"SESSION_ID": "s"})  # fmt: skip
    assert resumed == round_assignments("svc")[1]


def test_round_documents_are_never_released(round_of_two):
    first = assignment_join(study=round_of_two.study, platform="prolific", external_id="slow")
    Assignment.objects.filter(pk=first.pk).update(last_activity_at=timezone.now() - timedelta(days=2))
    assert assignments_release_stale(study=round_of_two.study) == 0


def test_task_links_and_main_studies_keep_one_code_per_assignment(round_of_two):
    given = Assignment.objects.create(
        study=round_of_two.study, document=round_of_two.study.documents.get(external_id="q1"),
        worker=Worker.objects.create(platform="link", external_id="given"), kind="qualification",
        current_segment=1, segments_visited=[0, 1],
    )  # fmt: skip
    assignment_submit(token=given.token)
    assert (
        Assignment.objects.filter(worker__external_id="given").count() == 1
    )  # no chain without the join link
    main = make_span_study(documents=2, segments=1)
    codes = set()
    for _ in range(2):
        assignment = assignment_join(study=main, platform="prolific", external_id="m")
        codes.add(assignment_submit(token=assignment.token).completion_code)
    assert len(codes) == 2
