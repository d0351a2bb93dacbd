"""What a decision on a suggestion costs the database, and that the cheap path keeps its guarantees.

A reject and an undo write one row: BEGIN, the opening UPDATE (which also reads
the suggestion), one INSERT or DELETE, COMMIT. Taking a suggestion writes two
(the annotation and the decision), and undoing it deletes both: one statement
more, one per row. A retry writes none: the opening UPDATE sees the decision
standing, and the retry reads it back in place of the INSERTs. Inside a test's
own transaction BEGIN and COMMIT are a SAVEPOINT and its RELEASE, which the
captured queries show in their place.
"""

from datetime import timedelta

import pytest
from django.utils import timezone

from annotations.models import Assignment
from protocols.span.models import ErrorAnnotation, SuggestionDecision
from tests.annotations.statements import one_transaction, sent
from tests.assisted_annotation.conftest import ANNA, BEN
from tests.assisted_annotation.test_suggestion_api import assignment_in, suggestion, taken
from tests.factories import make_span_study

pytestmark = pytest.mark.django_db

ROUTE = "task-api-suggestion"


def decided(client, assignment, row, annotation, seconds=2.5):
    body = {"annotation": annotation, "seconds": seconds}
    return sent(client, "post", ROUTE, assignment, body, row.pk)


def undone(client, assignment, row):
    return sent(client, "delete", ROUTE, assignment, None, row.pk)


def assert_statements(statements, count):
    assert len(statements) == count and one_transaction(statements), "\n".join(statements)


def inserts(statements):
    return [statement for statement in statements if statement.startswith("INSERT")]


@pytest.fixture
def worker(study):
    return assignment_in(study, "suggestions")


def test_a_reject_sends_four_statements_and_stores_the_decision(client, study, worker):
    ben = suggestion(study, 0, BEN[0])
    response, statements = decided(client, worker, ben, None, seconds=0.4)
    assert response.status_code == 201
    assert response.json() == {"suggestion": ben.pk, "decision": {"action": "reject", "annotation": None}}
    assert_statements(statements, 4)
    decision = SuggestionDecision.objects.get()
    assert (decision.assignment_id, decision.suggestion_id, decision.action) == (worker.pk, ben.pk, "reject")
    assert decision.seconds == 0.4 and decision.annotation is None and decision.decided_at is not None
    worker.refresh_from_db()
    assert worker.status == Assignment.Status.IN_PROGRESS and worker.last_activity_at is not None


def test_a_retried_reject_stores_one_decision_and_answers_the_same(client, study, worker):
    ben = suggestion(study, 0, BEN[0])
    first, _ = decided(client, worker, ben, None)
    again, statements = decided(client, worker, ben, None, seconds=9)
    assert (first.status_code, again.status_code) == (201, 200)
    assert again.json() == first.json()
    assert_statements(statements, 4)  # the stored decision read back in place of the INSERT
    assert not inserts(statements)
    assert SuggestionDecision.objects.get().seconds == 2.5


@pytest.mark.parametrize(
    ("change", "action", "text"),
    [
        ({}, "accept", "Anna"),
        ({"category": "SceneE"}, "change", "Anna"),
        ({"start": ANNA[0], "end": ANNA[1] + 4}, "adjust", "Anna met"),
    ],
)
def test_taking_a_suggestion_sends_five_statements_for_its_two_rows(
    client, study, worker, change, action, text
):
    anna = suggestion(study, 0, ANNA[0])
    response, statements = decided(client, worker, anna, taken(anna, **change))
    assert response.status_code == 201
    assert response.json()["decision"] == {"action": action, "annotation": "c1"}
    assert response.json()["annotation"]["text"] == text
    # Two rows, one INSERT each (a data-modifying CTE would make them one statement on PostgreSQL
    # only; SQLite has none): 5, the one write of the task API above 4 (docs/decisions.md).
    assert_statements(statements, 5)
    assert len(inserts(statements)) == 2
    decision = SuggestionDecision.objects.select_related("annotation").get()
    assert (decision.action, decision.annotation.client_id, decision.annotation.text) == (action, "c1", text)
    assert decision.annotation.assignment_id == worker.pk and decision.seconds == 2.5


def test_a_paired_suggestion_taken_as_suggested_is_accepted(client, study, worker):
    Assignment.objects.filter(pk=worker.pk).update(current_segment=1)
    paired = suggestion(study, 1, BEN[0])
    response, statements = decided(client, worker, paired, taken(paired))
    assert response.status_code == 201 and response.json()["decision"]["action"] == "accept"
    assert response.json()["annotation"]["paired"]["segment"] == 0
    assert_statements(statements, 5)  # two rows: the annotation and the decision


def test_a_retried_accept_stores_one_annotation_and_answers_the_same(client, study, worker):
    anna = suggestion(study, 0, ANNA[0])
    first, _ = decided(client, worker, anna, taken(anna))
    again, statements = decided(client, worker, anna, taken(anna))
    assert (first.status_code, again.status_code) == (201, 200)
    assert again.json() == first.json()
    assert_statements(statements, 4)  # no row written: the stored decision read back
    assert not inserts(statements)
    # Even when the retry's body no longer fits (the category renamed since, say).
    late, statements = decided(client, worker, anna, {**taken(anna), "category": "Gone"})
    assert late.status_code == 200 and late.json() == first.json()
    assert_statements(statements, 4)
    assert ErrorAnnotation.objects.count() == SuggestionDecision.objects.count() == 1


def test_another_decision_while_one_stands_stores_nothing(client, study, worker):
    anna = suggestion(study, 0, ANNA[0])
    decided(client, worker, anna, None)
    response, statements = decided(client, worker, anna, taken(anna))
    assert response.status_code == 409 and "take that decision back first" in response.json()["error"]
    assert not inserts(statements)  # the standing decision is seen before anything is inserted
    assert not ErrorAnnotation.objects.exists()  # the annotation the INSERT stored is rolled back
    assert SuggestionDecision.objects.get().action == "reject"
    refused, _ = decided(client, worker, anna, {**taken(anna), "category": "Nope"})
    assert refused.status_code == 409


def test_a_taken_span_under_a_client_id_of_another_annotation_is_refused(client, study, worker):
    anna, ben = suggestion(study, 0, ANNA[0]), suggestion(study, 0, BEN[0])
    decided(client, worker, anna, taken(anna))
    response, _ = decided(client, worker, ben, taken(ben))  # client_id c1 again
    assert response.status_code == 409 and "give the taken span a new one" in response.json()["error"]
    assert SuggestionDecision.objects.get().suggestion_id == anna.pk
    assert ErrorAnnotation.objects.get().start == ANNA[0]


def test_an_undo_sends_four_statements_for_a_reject_and_five_for_a_taken_span(client, study, worker):
    anna, ben = suggestion(study, 0, ANNA[0]), suggestion(study, 0, BEN[0])
    decided(client, worker, anna, taken(anna))
    decided(client, worker, ben, None)
    response, statements = undone(client, worker, ben)
    assert response.status_code == 200 and response.json() == {"suggestion": ben.pk, "decision": None}
    assert_statements(statements, 4)
    assert list(SuggestionDecision.objects.values_list("suggestion_id", flat=True)) == [anna.pk]
    response, statements = undone(client, worker, anna)
    assert response.status_code == 200
    assert_statements(statements, 5)
    assert not SuggestionDecision.objects.exists() and not ErrorAnnotation.objects.exists()
    again, statements = undone(client, worker, anna)  # a retried undo: nothing left, fine
    assert again.status_code == 200
    assert_statements(statements, 4)


def test_an_undo_takes_back_only_the_workers_own_decision(client, study, worker):
    other = assignment_in(study, "suggestions")
    anna = suggestion(study, 0, ANNA[0])
    decided(client, worker, anna, taken(anna))
    assert undone(client, other, anna)[0].status_code == 200
    assert SuggestionDecision.objects.get().assignment_id == worker.pk
    assert ErrorAnnotation.objects.get().assignment_id == worker.pk


def test_a_decision_goes_to_the_tokens_own_assignment_only(client, study, worker):
    other = assignment_in(study, "suggestions")
    anna = suggestion(study, 0, ANNA[0])
    decided(client, worker, anna, taken(anna))
    response, _ = decided(client, other, anna, taken(anna))
    assert response.status_code == 201  # the same client_id is the other worker's own
    assert sorted(SuggestionDecision.objects.values_list("assignment_id", flat=True)) == sorted(
        [worker.pk, other.pk]
    )
    assert {row.assignment_id for row in ErrorAnnotation.objects.all()} == {worker.pk, other.pk}


def test_a_suggestion_of_another_document_is_no_suggestion_of_this_page(client, study, worker):
    elsewhere = make_span_study(documents=1, segments=2, config={"assistance": {"share": 0.5}})
    mine = suggestion(study, 0, ANNA[0])
    other = assignment_in(elsewhere, "suggestions")
    for response, _ in (decided(client, other, mine, None), undone(client, other, mine)):
        assert response.status_code == 400 and "no such suggestion" in response.json()["error"]
    assert not SuggestionDecision.objects.exists()


def test_a_suggestion_on_an_attention_check_is_not_shown(client, study, worker):
    worker.document.kind = "attention"
    worker.document.save(update_fields=["kind"])
    anna = suggestion(study, 0, ANNA[0])
    for response, _ in (decided(client, worker, anna, None), undone(client, worker, anna)):
        assert response.status_code == 400 and "no such suggestion" in response.json()["error"]
    worker.refresh_from_db()
    assert worker.last_activity_at is None  # a refused write changes nothing, not even the activity


@pytest.mark.parametrize(
    "change",
    [
        {"status": Assignment.Status.SUBMITTED},
        {"status": Assignment.Status.RELEASED},
        {"available_from": timezone.now() + timedelta(days=7)},
    ],
)
def test_a_closed_assignment_takes_no_decision_and_no_undo(client, study, worker, change):
    anna, ben = suggestion(study, 0, ANNA[0]), suggestion(study, 0, BEN[0])
    decided(client, worker, anna, None)
    Assignment.objects.filter(pk=worker.pk).update(**change)
    assert decided(client, worker, ben, None)[0].status_code == 409
    assert decided(client, worker, ben, {"bad": "body"})[0].status_code == 409
    assert undone(client, worker, anna)[0].status_code == 409
    assert list(SuggestionDecision.objects.values_list("suggestion_id", flat=True)) == [anna.pk]


def test_an_unknown_token_is_404(client, study):
    from django.urls import reverse

    anna = suggestion(study, 0, ANNA[0])
    path = reverse(ROUTE, args=["no-such-token", anna.pk])
    assert client.delete(path).status_code == 404
    assert client.post(path, "not json", content_type="application/json").status_code == 404


def test_a_huge_suggestion_id_is_400_not_a_database_error(client, study, worker):
    from django.urls import reverse

    path = reverse(ROUTE, args=[worker.token, 10**30])
    response = client.post(path, '{"annotation": null, "seconds": 1}', content_type="application/json")
    assert response.status_code == 400 and "no such suggestion" in response.json()["error"]
    assert client.delete(path).status_code == 400
