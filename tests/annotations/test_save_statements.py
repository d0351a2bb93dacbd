"""What a span save costs the database, and that its cheap path keeps the save's guarantees.

A save is BEGIN, one UPDATE of the assignment (lock, activity, and the category
and segments it names), one idempotent INSERT, COMMIT. Inside a test's own
transaction the save's BEGIN and COMMIT are a SAVEPOINT and its RELEASE, which
the captured queries show in their place.
"""

import json
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from annotations.models import Assignment
from protocols.span.models import ErrorAnnotation
from studies.models import Category
from tests.annotations.statements import one_transaction, sent
from tests.annotations.task_api import SEGMENT_TEXT, post

pytestmark = pytest.mark.django_db

SAVE, REMOVE = "task-api-annotations", "task-api-annotation"


def span(segment=0, start=25, end=29, client_id="c1", **extra):
    text = SEGMENT_TEXT.format(s=segment)[start:end]
    return {"client_id": client_id, "category": "CharE", "segment": segment, "start": start, "end": end,
            "text": text, **extra}  # fmt: skip


def reached(assignment, segment):
    Assignment.objects.filter(pk=assignment.pk).update(current_segment=segment)


def save_statements(client, assignment, body):
    with CaptureQueriesContext(connection) as captured:
        response = post(client, SAVE, assignment, body)
    return response, [query["sql"] for query in captured.captured_queries]


def test_a_save_sends_four_statements_begin_and_commit_included(client, assignment):
    response, statements = save_statements(client, assignment, span())
    assert response.status_code == 201
    assert len(statements) == 4, "\n".join(statements)
    assert statements[0].startswith("SAVEPOINT") and statements[-1].startswith("RELEASE SAVEPOINT")


def test_a_paired_save_sends_four_statements_too(client, assignment):
    reached(assignment, 1)
    paired = {"segment": 0, "start": 30, "end": 33, "text": "met"}
    response, statements = save_statements(
        client, assignment, span(segment=1, category="RepE", paired=paired)
    )
    assert response.status_code == 201, response.json()
    assert len(statements) == 4, "\n".join(statements)
    assert response.json()["paired"] == {**paired}


def inserts(statements):
    return [statement for statement in statements if statement.startswith("INSERT")]


def test_a_retried_save_sends_four_statements_stores_one_annotation_and_answers_the_same(client, assignment):
    """The opening UPDATE sees the client_id stored, so the retry reads the annotation back in
    place of the INSERT: BEGIN, the UPDATE, the SELECT, COMMIT."""
    first = post(client, SAVE, assignment, span())
    stored = ErrorAnnotation.objects.get()
    again, statements = save_statements(client, assignment, span())
    assert (first.status_code, again.status_code) == (201, 200)
    assert again.json() == first.json()
    assert len(statements) == 4 and one_transaction(statements) and not inserts(statements), "\n".join(
        statements
    )
    assert list(ErrorAnnotation.objects.values_list("pk", flat=True)) == [stored.pk]


def test_a_retry_whose_body_no_longer_fits_answers_with_the_stored_annotation(client, assignment):
    first = post(client, SAVE, assignment, span())
    again, statements = save_statements(client, assignment, {**span(), "text": "Bert", "category": "Nope"})
    assert again.status_code == 200
    assert again.json() == first.json()
    assert len(statements) == 4, "\n".join(statements)


def test_a_removed_span_saved_again_under_its_client_id_is_stored_anew(client, assignment):
    """Nothing stored under the client_id is no retry: the save inserts, whatever was there before."""
    assert post(client, SAVE, assignment, span()).status_code == 201
    assert sent(client, "delete", REMOVE, assignment, None, "c1")[0].status_code == 200
    again, statements = save_statements(client, assignment, span(start=30, end=33))
    assert again.status_code == 201 and again.json()["text"] == "met"
    assert len(inserts(statements)) == 1 and len(statements) == 4, "\n".join(statements)
    assert ErrorAnnotation.objects.get().text == "met"


def test_the_same_client_id_in_another_assignment_is_no_retry(client, assignment):
    other = Assignment.objects.create(
        study=assignment.study, document=assignment.document, worker=assignment.worker, kind="retest"
    )
    assert post(client, SAVE, other, span(start=30, end=33)).status_code == 201
    response = post(client, SAVE, assignment, span())
    assert response.status_code == 201 and response.json()["text"] == "Anna"
    assert sorted(ErrorAnnotation.objects.values_list("text", flat=True)) == ["Anna", "met"]


def test_the_saved_annotation_is_the_one_answered(client, assignment):
    response = post(client, SAVE, assignment, span(comment="twice?"))
    stored = ErrorAnnotation.objects.select_related("category", "segment").get()
    assert response.json()["client_id"] == stored.client_id == "c1"
    assert (stored.category.key, stored.segment.index, stored.comment) == ("CharE", 0, "twice?")
    assert stored.created_at is not None and stored.answers == {}
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.IN_PROGRESS
    assert assignment.last_activity_at is not None and assignment.started_at is not None


def test_a_category_changed_in_admin_counts_from_the_next_save(client, assignment):
    """Nothing about the taxonomy is kept between requests: an edit is never served stale."""
    assert post(client, SAVE, assignment, span(client_id="a")).status_code == 201
    Category.objects.filter(key="CharE").update(kind=Category.Kind.PAIRED, label="Now paired")
    refused = post(client, SAVE, assignment, span(client_id="b"))
    assert refused.status_code == 400
    assert "Now paired is a paired category" in refused.json()["error"]
    Category.objects.filter(key="CharE").update(key="Renamed")
    gone = post(client, SAVE, assignment, span(client_id="c"))
    assert gone.status_code == 400
    assert "category 'CharE' is not in this study's taxonomy" in gone.json()["error"]


def test_a_refused_save_changes_nothing(client, assignment):
    response = post(client, SAVE, assignment, {**span(), "text": "Bert"})
    assert response.status_code == 400
    assignment.refresh_from_db()
    assert (assignment.status, assignment.last_activity_at) == (Assignment.Status.ASSIGNED, None)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"status": Assignment.Status.SUBMITTED}, "already submitted"),
        ({"status": Assignment.Status.RELEASED}, "released after a long time"),
        ({"available_from": timezone.now() + timedelta(days=7)}, "This retest opens on"),
    ],
)
def test_a_save_to_a_closed_assignment_is_409_and_stores_nothing(client, assignment, change, message):
    Assignment.objects.filter(pk=assignment.pk).update(**change)
    response = post(client, SAVE, assignment, span())
    assert response.status_code == 409
    assert message in response.json()["error"]
    assert ErrorAnnotation.objects.count() == 0


@pytest.mark.parametrize("token", ["%00", "abc%00def", "%ED%A0%80", "x" * 5000, "no-such-token"])
@pytest.mark.parametrize("body", ['{"client_id": "c1"}', "not json"])
def test_an_unknown_token_is_404_even_with_a_bad_body(client, token, body):
    path = reverse(SAVE, args=["TOKEN"]).replace("TOKEN", token)
    response = client.post(path, body, content_type="application/json")
    assert response.status_code == 404
    assert response.json() == {"error": "There is no task with this link."}


def test_a_token_saves_only_to_its_own_assignment(client, assignment):
    other = Assignment.objects.create(
        study=assignment.study, document=assignment.document, worker=assignment.worker, kind="retest"
    )
    assert post(client, SAVE, other, span()).status_code == 201
    assert list(ErrorAnnotation.objects.values_list("assignment_id", flat=True)) == [other.pk]
    assert post(client, SAVE, assignment, span()).status_code == 201
    assert ErrorAnnotation.objects.filter(assignment=assignment).count() == 1


def test_a_huge_segment_index_is_400_not_a_database_error(client, assignment):
    response = post(client, SAVE, assignment, {**span(), "segment": 10**30})
    assert response.status_code == 400
    assert "is not in this document" in response.json()["error"]


# --- removing a span and moving between segments -----------------------------------------------

MOVE = "task-api-move"


def test_a_remove_sends_four_statements_and_removes_the_span(client, assignment):
    post(client, SAVE, assignment, span())
    response, statements = sent(client, "delete", REMOVE, assignment, None, "c1")
    assert response.status_code == 200 and response.json() == {"removed": "c1"}
    assert len(statements) == 4 and one_transaction(statements), "\n".join(statements)
    assert not ErrorAnnotation.objects.exists()
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.IN_PROGRESS and assignment.last_activity_at is not None


def test_removing_a_span_already_gone_is_fine_and_as_cheap(client, assignment):
    response, statements = sent(client, "delete", REMOVE, assignment, None, "never-saved")
    assert response.status_code == 200
    assert len(statements) == 4, "\n".join(statements)


def test_a_remove_removes_only_the_span_of_its_own_assignment(client, assignment):
    other = Assignment.objects.create(
        study=assignment.study, document=assignment.document, worker=assignment.worker, kind="retest"
    )
    post(client, SAVE, assignment, span())
    post(client, SAVE, other, span())
    assert sent(client, "delete", REMOVE, other, None, "c1")[0].status_code == 200
    assert list(ErrorAnnotation.objects.values_list("assignment_id", flat=True)) == [assignment.pk]


@pytest.mark.parametrize("status", [Assignment.Status.SUBMITTED, Assignment.Status.RELEASED])
def test_a_remove_after_submit_or_release_is_409_and_keeps_the_span(client, assignment, status):
    post(client, SAVE, assignment, span())
    Assignment.objects.filter(pk=assignment.pk).update(status=status)
    response, _ = sent(client, "delete", REMOVE, assignment, None, "c1")
    assert response.status_code == 409
    assert ErrorAnnotation.objects.count() == 1


def test_a_remove_with_an_unknown_token_is_404(client):
    path = reverse(REMOVE, args=["no-such-token", "c1"])
    assert client.delete(path).status_code == 404


def test_a_move_sends_four_statements_and_stores_the_segment_and_the_visit(client, assignment):
    response, statements = sent(client, "post", MOVE, assignment, {"segment": 1})
    assert response.status_code == 200 and response.json() == {"current_segment": 1}
    # The opening UPDATE marks the time; the second stores the segment, if it exists (two updates
    # of the one row: the new visit list is made from the one the first returned).
    assert len(statements) == 4 and one_transaction(statements), "\n".join(statements)
    assignment.refresh_from_db()
    assert (assignment.current_segment, assignment.segments_visited) == (1, [0, 1])
    assert assignment.status == Assignment.Status.IN_PROGRESS


def test_a_move_back_sends_four_statements_too(client, assignment):
    reached(assignment, 2)
    response, statements = sent(client, "post", MOVE, assignment, {"segment": 0})
    assert response.status_code == 200
    assert len(statements) == 4, "\n".join(statements)


@pytest.mark.parametrize(
    ("segment", "message"),
    [
        (2, "segments are done in order"),
        (3, "segment must be a whole number from 0 to 2"),
        (10**30, "segment must be a whole number from 0 to 2"),
        (-1, "segment must be a whole number from 0 to 2"),
        ("1", "segment must be a whole number from 0 to 2"),
    ],
)
def test_a_refused_move_says_why_and_changes_nothing(client, assignment, segment, message):
    response, _ = sent(client, "post", MOVE, assignment, {"segment": segment})
    assert response.status_code == 400
    assert message in response.json()["error"]
    assignment.refresh_from_db()
    assert (assignment.current_segment, assignment.segments_visited, assignment.last_activity_at) == (
        0,
        [],
        None,
    )


def test_a_move_past_the_last_segment_is_refused_even_when_reached(client, assignment):
    reached(assignment, 2)
    response, _ = sent(client, "post", MOVE, assignment, {"segment": 3})
    assert response.status_code == 400
    assert "from 0 to 2" in response.json()["error"]
    assert Assignment.objects.get(pk=assignment.pk).current_segment == 2


def test_a_move_after_submit_is_409(client, assignment):
    Assignment.objects.filter(pk=assignment.pk).update(status=Assignment.Status.SUBMITTED)
    response, _ = sent(client, "post", MOVE, assignment, {"segment": 1})
    assert response.status_code == 409
    assert Assignment.objects.get(pk=assignment.pk).current_segment == 0


# --- activity and feedback: every protocol's page ---------------------------------------------


def test_an_activity_report_sends_four_statements_and_is_credited(client, assignment, clock):
    # The opening UPDATE returns the row's time columns under the lock; the second adds the time.
    response, statements = sent(client, "post", "task-api-activity", assignment, {"seconds": 10})
    assert response.status_code == 200 and response.json() == {"active_seconds": 10}
    assert len(statements) == 4 and one_transaction(statements), "\n".join(statements)
    clock.advance(15)
    assert sent(client, "post", "task-api-activity", assignment, {"seconds": 15})[0].json() == {
        "active_seconds": 25
    }
    assert Assignment.objects.get(pk=assignment.pk).active_seconds == 25


def test_feedback_sends_four_statements_and_is_stored(client, assignment):
    response, statements = sent(client, "post", "task-api-feedback", assignment, {"text": "Clear task."})
    assert response.status_code == 200 and response.json() == {"text": "Clear task."}
    assert len(statements) == 4 and one_transaction(statements), "\n".join(statements)
    assert Assignment.objects.get(pk=assignment.pk).worker_feedback == "Clear task."


@pytest.mark.parametrize(
    ("name", "body"), [("task-api-activity", {"seconds": 10}), ("task-api-feedback", {"text": "late"})]
)
def test_activity_and_feedback_after_submit_are_409(client, assignment, name, body):
    Assignment.objects.filter(pk=assignment.pk).update(status=Assignment.Status.SUBMITTED)
    assert sent(client, "post", name, assignment, body)[0].status_code == 409
    assignment.refresh_from_db()
    assert (assignment.active_seconds, assignment.worker_feedback) == (0, "")


@pytest.mark.parametrize(
    ("name", "body"),
    [("task-api-activity", {"seconds": -1}), ("task-api-feedback", {"text": 5}), (SAVE, {}),
     ("task-api-document-answers", {}), ("task-api-ratings", {}), ("task-api-move", {"segment": "x"})],
)  # fmt: skip
def test_a_bad_body_still_answers_404_for_an_unknown_token_and_409_for_a_closed_task(
    client, assignment, name, body
):
    path = reverse(name, args=["no-such-token"])
    assert client.post(path, json.dumps(body), content_type="application/json").status_code == 404
    Assignment.objects.filter(pk=assignment.pk).update(status=Assignment.Status.SUBMITTED)
    assert post(client, name, assignment, body).status_code == 409


# --- submit -------------------------------------------------------------------------------------


def test_a_submit_sends_four_statements_and_a_repeat_three(client, assignment):
    """Submit finds and locks the assignment by its token with what it reads (one SELECT ... FOR
    UPDATE, the study's allocation setting and the document's segment count, which the protocol's
    check of what is left compares with the furthest segment, among it), stores the status and code
    (one UPDATE): BEGIN and COMMIT around them make 4. A repeat changes nothing: BEGIN, the SELECT, COMMIT. (An adaptive study is locked before
    the assignment, in a second try: tests/translation/test_allocation.py.)"""
    reached(assignment, 2)
    response, statements = sent(client, "post", "task-api-submit", assignment)
    assert response.status_code == 200 and response.json()["status"] == "submitted"
    assert len(statements) == 4 and one_transaction(statements), "\n".join(statements)
    again, statements = sent(client, "post", "task-api-submit", assignment)
    assert again.json() == response.json()
    assert len(statements) == 3, "\n".join(statements)


def test_a_submit_with_work_left_is_400_and_then_nothing_else_is_refused(client, assignment):
    refused = sent(client, "post", "task-api-submit", assignment)[0]
    assert refused.status_code == 400 and Assignment.objects.get(pk=assignment.pk).status == "assigned"
    reached(assignment, 2)
    assert sent(client, "post", "task-api-submit", assignment)[0].status_code == 200
    assert post(client, SAVE, assignment, span(client_id="late")).status_code == 409
    assert not ErrorAnnotation.objects.exists()
