"""POST /api/task/<token>/document-answers/: the answers about the whole document, as the
page (or a misbehaving client) sends them, and the submit that waits for them."""

import pytest

from annotations.models import Assignment
from protocols.span.models import DocumentAnswer
from tests.annotations.task_api import post
from tests.factories import AssignmentFactory, make_span_study
from tests.span_questions.questions import question_task

pytestmark = pytest.mark.django_db

ANSWERS = "task-api-document-answers"


def stored(assignment):
    row = DocumentAnswer.objects.filter(assignment=assignment).first()
    return None if row is None else row.answers


def test_answers_are_stored_merged_and_given_back(client, assignment):
    first = post(
        client, ANSWERS, assignment, {"answers": {"coherence": 4, "problems": ["repetition", "names"]}}
    )

    assert first.status_code == 200
    # Multi-choice answers are kept in the options' order.
    assert first.json() == {"answers": {"coherence": 4, "problems": ["names", "repetition"]}}
    second = post(
        client, ANSWERS, assignment, {"answers": {"better": "this one", "notes": "Ends <b>abruptly</b>."}}
    )
    assert second.json()["answers"] == {
        "coherence": 4, "better": "this one", "problems": ["names", "repetition"], "notes": "Ends <b>abruptly</b>.",
    }  # fmt: skip
    assert stored(assignment) == second.json()["answers"]
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.IN_PROGRESS and assignment.last_activity_at is not None


def test_sending_the_same_answers_again_changes_nothing(client, assignment):
    body = {"answers": {"coherence": 2, "better": "no difference"}}
    post(client, ANSWERS, assignment, body)
    again = post(client, ANSWERS, assignment, body)

    assert again.status_code == 200
    assert DocumentAnswer.objects.count() == 1
    assert stored(assignment) == {"coherence": 2, "better": "no difference"}


def test_a_new_answer_replaces_the_old_and_null_empty_text_or_list_removes_it(client, assignment):
    post(client, ANSWERS, assignment, {"answers": {"coherence": 2, "problems": ["names"], "notes": "x"}})
    post(client, ANSWERS, assignment, {"answers": {"coherence": 5}})
    assert stored(assignment) == {"coherence": 5, "problems": ["names"], "notes": "x"}

    response = post(
        client, ANSWERS, assignment, {"answers": {"coherence": None, "problems": [], "notes": "   "}}
    )

    assert response.json() == {"answers": {}}
    assert stored(assignment) == {}


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"answers": {"fluency": 3}}, "unknown question 'fluency' (this study asks coherence, better, problems, notes)"),
        ({"answers": {"coherence": 6}}, "coherence: give a whole number from 1 to 5, not 6"),
        ({"answers": {"coherence": 0}}, "coherence: give a whole number from 1 to 5, not 0"),
        ({"answers": {"coherence": "4"}}, "coherence: give a whole number from 1 to 5, not '4'"),
        ({"answers": {"coherence": 3.5}}, "coherence: give a whole number from 1 to 5, not 3.5"),
        ({"answers": {"coherence": True}}, "coherence: give a whole number from 1 to 5, not True"),
        ({"answers": {"better": "both"}}, "better: 'both' is not one of its options (this one, the other one, no difference)"),
        ({"answers": {"better": ["this one"]}}, "better: ['this one'] is not one of its options"),
        ({"answers": {"problems": "names"}}, "problems: give a list of its options (names, time jumps, repetition)"),
        ({"answers": {"problems": ["names", "typos"]}}, "problems: 'typos' is not one of its options"),
        ({"answers": {"problems": ["names", "names"]}}, "problems: an option is given more than once"),
        ({"answers": {"problems": [1]}}, "problems: give a list of its options"),
        ({"answers": {"notes": "x" * 2001}}, "notes: give a text of at most 2,000 characters"),
        ({"answers": {"notes": 7}}, "notes: give a text of at most 2,000 characters"),
        ({"answers": ["coherence", 3]}, "'answers' must be an object {question key: answer}"),
        ({"coherence": 3}, 'send {"answers": {question key: answer}}'),
        ({"answers": {"coherence": 3}, "extra": 1}, 'send {"answers": {question key: answer}}'),
        # One bad value refuses the whole request: the good one beside it is not stored either.
        ({"answers": {"coherence": 3, "better": "both"}}, "better: 'both' is not one of its options"),
    ],
)  # fmt: skip
def test_bad_answers_are_400_with_a_message_and_nothing_stored(client, assignment, body, message):
    post(client, ANSWERS, assignment, {"answers": {"notes": "kept"}})

    response = post(client, ANSWERS, assignment, body)

    assert response.status_code == 400
    assert message in response.json()["error"]
    assert stored(assignment) == {"notes": "kept"}


def test_the_longest_text_is_taken(client, assignment):
    response = post(client, ANSWERS, assignment, {"answers": {"notes": "é" * 2000}})

    assert response.status_code == 200
    assert stored(assignment) == {"notes": "é" * 2000}


def test_the_questions_come_after_the_last_segment(client):
    assignment = question_task()
    post(client, "task-api-move", assignment, {"segment": 1})

    response = post(client, ANSWERS, assignment, {"answers": {"coherence": 3}})

    assert response.status_code == 400
    assert response.json()["error"] == (
        "the questions about the whole text come after its last segment: read it first"
    )
    assert not DocumentAnswer.objects.exists()
    # Reached once, the questions stay open when the worker goes back to an earlier segment.
    post(client, "task-api-move", assignment, {"segment": 2})
    post(client, "task-api-move", assignment, {"segment": 0})
    assert post(client, ANSWERS, assignment, {"answers": {"coherence": 3}}).status_code == 200


def test_a_study_without_questions_takes_no_answers(client):
    study = make_span_study(documents=1, segments=1)
    assignment = AssignmentFactory(document=study.documents.get())

    response = post(client, ANSWERS, assignment, {"answers": {"coherence": 3}})

    assert response.status_code == 400
    assert response.json()["error"] == "this study asks no questions about the whole text"
    assert not DocumentAnswer.objects.exists()


def test_unknown_token_is_404(client):
    response = client.post("/api/task/no-such-token/document-answers/", "{}", content_type="application/json")

    assert response.status_code == 404


def test_get_is_405(client, assignment):
    response = client.get(f"/api/task/{assignment.token}/document-answers/")

    assert response.status_code == 405


def test_submit_waits_for_every_required_question(client, assignment):
    refused = post(client, "task-api-submit", assignment, {})
    assert refused.status_code == 400
    assert refused.json()["error"] == (
        "answer the questions about the whole text before submitting (still to answer: "
        "How coherent is the text as a whole?, Which version reads better?)"
    )

    post(client, ANSWERS, assignment, {"answers": {"coherence": 3}})
    still = post(client, "task-api-submit", assignment, {})
    assert still.status_code == 400
    assert still.json()["error"].endswith("(still to answer: Which version reads better?)")
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.IN_PROGRESS

    # The multi-choice and text questions are optional by default.
    post(client, ANSWERS, assignment, {"answers": {"better": "the other one"}})
    accepted = post(client, "task-api-submit", assignment, {})
    assert accepted.status_code == 200
    assert accepted.json()["status"] == Assignment.Status.SUBMITTED


def test_a_required_text_or_multi_question_needs_an_answer(client):
    study = make_span_study(documents=1, segments=1, config={"document_questions": [
        {"key": "why", "label": "Why?", "kind": "text", "required": True},
        {"key": "which", "label": "Which?", "kind": "multi", "options": ["a", "b"], "required": True},
        {"key": "score", "label": "Score", "kind": "likert", "required": False},
    ]})  # fmt: skip
    assignment = AssignmentFactory(document=study.documents.get())

    post(client, ANSWERS, assignment, {"answers": {"why": "  "}})
    assert (
        post(client, "task-api-submit", assignment, {})
        .json()["error"]
        .endswith("(still to answer: Why?, Which?)")
    )
    post(client, ANSWERS, assignment, {"answers": {"why": "Because.", "which": ["b"]}})
    assert post(client, "task-api-submit", assignment, {}).status_code == 200


def test_submitted_answers_are_locked(client, assignment):
    post(client, ANSWERS, assignment, {"answers": {"coherence": 3, "better": "this one"}})
    assert post(client, "task-api-submit", assignment, {}).status_code == 200

    response = post(client, ANSWERS, assignment, {"answers": {"coherence": 1}})

    assert response.status_code == 409
    assert "already submitted" in response.json()["error"]
    assert stored(assignment) == {"coherence": 3, "better": "this one"}


def test_the_page_state_holds_the_questions_and_the_saved_answers(client, assignment):
    post(client, ANSWERS, assignment, {"answers": {"problems": ["time jumps"], "coherence": 2}})

    state = client.get(f"/api/task/{assignment.token}/").json()

    assert [q["key"] for q in state["document_questions"]] == ["coherence", "better", "problems", "notes"]
    coherence, better, problems, notes = state["document_questions"]
    assert coherence == {
        "key": "coherence", "label": "How coherent is the text as a whole?", "kind": "likert", "required": True,
        "help": "", "scale": {"min": 1, "max": 5, "labels": {"1": "not at all", "5": "fully"}},
    }  # fmt: skip
    assert (better["required"], problems["required"], notes["required"]) == (True, False, False)
    assert notes["help"] == "Optional: a sentence or two."
    assert state["document_answers"] == {"coherence": 2, "problems": ["time jumps"]}
