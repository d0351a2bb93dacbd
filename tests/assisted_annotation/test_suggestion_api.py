"""The suggestion arm's task API: decide on a suggestion, take it back; moving on and submitting wait."""

import json

import pytest
from django.urls import reverse

from annotations.models import Assignment
from protocols.span.assistance.sources import SuggestedSpan, SuggestionsRefused, suggestions_replace
from protocols.span.models import ErrorAnnotation, Suggestion, SuggestionDecision
from tests.annotations.statements import sent
from tests.annotations.task_api import post
from tests.assisted_annotation.conftest import ANNA, BEN
from tests.factories import AssignmentFactory, make_span_study

pytestmark = pytest.mark.django_db

# The `study` fixture is conftest.py's: one document of two segments, three suggestions.


def assignment_in(study, arm, **fields):
    return AssignmentFactory(study=study, document=study.documents.get(), arm=arm, **fields)


def suggestion(study, segment, start):
    return Suggestion.objects.get(document__study=study, segment__index=segment, start=start)


def taken(row, *, client_id="c1", category=None, start=None, end=None):
    start = row.start if start is None else start
    end = row.end if end is None else end
    return {
        "client_id": client_id, "category": category or row.category.key, "segment": row.segment.index,
        "start": start, "end": end, "text": row.segment.text[start:end], "comment": "",
        "paired": None if row.paired_segment_id is None else {
            "segment": row.paired_segment.index, "start": row.paired_start, "end": row.paired_end,
            "text": row.paired_text,
        },
    }  # fmt: skip


def decide(client, assignment, row, annotation, seconds=2.5):
    url = reverse("task-api-suggestion", args=[assignment.token, row.pk])
    return client.post(
        url, json.dumps({"annotation": annotation, "seconds": seconds}), content_type="application/json"
    )


def undo(client, assignment, row):
    return client.delete(reverse("task-api-suggestion", args=[assignment.token, row.pk]))


def page_data(client, assignment):
    response = client.get(reverse("task-annotate", args=[assignment.token]))
    marker = b'<script id="task-data" type="application/json">'
    start = response.content.index(marker) + len(marker)
    return json.loads(response.content[start : response.content.index(b"</script>", start)])


def test_the_suggestion_arm_decides_and_the_server_reads_the_action(client, study):
    assignment = assignment_in(study, "suggestions")
    anna, ben = suggestion(study, 0, ANNA[0]), suggestion(study, 0, BEN[0])
    accepted = decide(client, assignment, anna, taken(anna))
    assert accepted.status_code == 201
    assert accepted.json()["decision"] == {"action": "accept", "annotation": "c1"}
    assert decide(client, assignment, anna, taken(anna)).status_code == 200  # a retried save
    rejected = decide(client, assignment, ben, None, seconds=0.4)
    assert rejected.json()["decision"] == {"action": "reject", "annotation": None}
    rows = {d.suggestion_id: d for d in SuggestionDecision.objects.filter(assignment=assignment)}
    assert rows[anna.pk].action == "accept" and rows[anna.pk].seconds == 2.5
    assert rows[anna.pk].annotation.start == ANNA[0] and rows[anna.pk].annotation.category.key == "CharE"
    assert rows[ben.pk].annotation is None and ErrorAnnotation.objects.count() == 1
    # Taken back: the annotation goes too; then decided otherwise.
    assert undo(client, assignment, anna).status_code == 200
    assert not ErrorAnnotation.objects.exists()
    changed = decide(client, assignment, anna, taken(anna, client_id="c2", category="SceneE"))
    assert changed.json()["decision"]["action"] == "change"
    assert undo(client, assignment, anna).status_code == 200
    adjusted = decide(client, assignment, anna, taken(anna, client_id="c3", start=ANNA[0], end=ANNA[1] + 4))
    assert adjusted.json()["decision"]["action"] == "adjust"
    assert adjusted.json()["annotation"]["text"] == "Anna met"


def test_another_decision_while_one_stands_is_a_conflict(client, study):
    assignment = assignment_in(study, "suggestions")
    anna = suggestion(study, 0, ANNA[0])
    decide(client, assignment, anna, None)
    response = decide(client, assignment, anna, taken(anna))
    assert response.status_code == 409
    assert "take that decision back first" in response.json()["error"]
    assert not ErrorAnnotation.objects.exists()


def test_removing_a_taken_annotation_reopens_its_suggestion(client, study):
    assignment = assignment_in(study, "suggestions")
    anna = suggestion(study, 0, ANNA[0])
    decide(client, assignment, anna, taken(anna))
    client.delete(reverse("task-api-annotation", args=[assignment.token, "c1"]))
    assert not SuggestionDecision.objects.exists()
    assert page_data(client, assignment)["suggestions"][0]["decision"] is None


def test_moving_on_and_submitting_wait_for_every_decision(client, study):
    assignment = assignment_in(study, "suggestions")
    anna, ben = suggestion(study, 0, ANNA[0]), suggestion(study, 0, BEN[0])
    decide(client, assignment, anna, None)
    refused = post(client, "task-api-move", assignment, {"segment": 1})
    assert refused.status_code == 400 and "decide on every suggestion" in refused.json()["error"]
    decide(client, assignment, ben, None)
    assert post(client, "task-api-move", assignment, {"segment": 1}).status_code == 200
    assert post(client, "task-api-move", assignment, {"segment": 0}).status_code == 200  # back: always
    submit = post(client, "task-api-submit", assignment, {})
    assert submit.status_code == 400 and "decide on every suggestion" in submit.json()["error"]
    paired = suggestion(study, 1, BEN[0])
    response = decide(client, assignment, paired, taken(paired))
    assert response.json()["decision"]["action"] == "accept"
    assert response.json()["annotation"]["paired"]["segment"] == 0
    assert post(client, "task-api-submit", assignment, {}).status_code == 200


def test_a_suggestion_beyond_the_segments_reached_waits(client, study):
    assignment = assignment_in(study, "suggestions")
    paired = suggestion(study, 1, BEN[0])
    response = decide(client, assignment, paired, taken(paired))
    assert response.status_code == 400 and "not been reached" in response.json()["error"]


def test_the_control_arm_and_gold_never_receive_suggestions(client, study):
    shown = assignment_in(study, "suggestions")
    assert len(page_data(client, shown)["suggestions"]) == 3
    for assignment in (
        assignment_in(study, "control"),
        assignment_in(study, "suggestions", kind=Assignment.Kind.GOLD),
        assignment_in(study, "suggestions", kind=Assignment.Kind.QUALIFICATION),
        assignment_in(study, ""),
    ):
        data = page_data(client, assignment)
        assert "suggestions" not in data
        state = client.get(reverse("task-api-state", args=[assignment.token])).json()
        assert "suggestions" not in state
        assert b"Anna" not in json.dumps(data).encode().replace(b"Anna met Ben", b"")
        anna = suggestion(study, 0, ANNA[0])
        assert decide(client, assignment, anna, None).status_code == 400
    assert not SuggestionDecision.objects.exists()


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"annotation": None}, "send {"),
        ({"annotation": None, "seconds": -1}, "'seconds' must be a number"),
        ({"annotation": None, "seconds": True}, "'seconds' must be a number"),
        ({"annotation": None, "seconds": 1, "extra": 1}, "send {"),
        ({"annotation": {"client_id": "x"}, "seconds": 1}, "category"),
        ({"annotation": [], "seconds": 1}, "JSON object"),
    ],
)
def test_bad_decisions_are_refused_with_a_message(client, study, body, message):
    assignment = assignment_in(study, "suggestions")
    anna = suggestion(study, 0, ANNA[0])
    url = reverse("task-api-suggestion", args=[assignment.token, anna.pk])
    response = client.post(url, json.dumps(body), content_type="application/json")
    assert response.status_code == 400
    assert message in response.json()["error"]
    assert not SuggestionDecision.objects.exists() and not ErrorAnnotation.objects.exists()


def test_unknown_suggestions_and_closed_tasks(client, study):
    assignment = assignment_in(study, "suggestions")
    url = reverse("task-api-suggestion", args=[assignment.token, 10**9])
    response = client.post(
        url, json.dumps({"annotation": None, "seconds": 1}), content_type="application/json"
    )
    assert response.status_code == 400 and "no such suggestion" in response.json()["error"]
    base = reverse("task-api-suggestions", args=[assignment.token])
    assert client.post(base, "{}", content_type="application/json").status_code == 404
    Assignment.objects.filter(pk=assignment.pk).update(status=Assignment.Status.SUBMITTED)
    assert decide(client, assignment, suggestion(study, 0, ANNA[0]), None).status_code == 409


def test_suggestions_are_fixed_once_decided_on(study):
    assignment = assignment_in(study, "suggestions")
    from protocols.span.assistance.decisions import suggestion_decide

    suggestion_decide(token=assignment.token, suggestion_id=suggestion(study, 0, ANNA[0]).pk,
                      data={"annotation": None, "seconds": 1})  # fmt: skip
    with pytest.raises(SuggestionsRefused, match="can no longer be replaced"):
        suggestions_replace(study=study, spans=[], source="again")
    with pytest.raises(SuggestionsRefused, match="outside the segment"):
        other = make_span_study(documents=1, segments=1)
        suggestions_replace(
            study=other, spans=[SuggestedSpan(other.documents.get().pk, 0, 0, 999, "CharE")], source="x"
        )


def test_removing_a_taken_annotation_costs_one_delete_more_and_moving_on_none(client, study):
    """The suggestion arm's remove deletes the decision, then the annotation it refers to: 5 statements
    (BEGIN, the opening UPDATE, two DELETEs, COMMIT). Its move checks the decisions in the UPDATE that
    stores the segment: 4, as in every arm."""
    assignment = assignment_in(study, "suggestions")
    anna, ben = suggestion(study, 0, ANNA[0]), suggestion(study, 0, BEN[0])
    decide(client, assignment, anna, taken(anna))
    decide(client, assignment, ben, None)
    removed, statements = sent(client, "delete", "task-api-annotation", assignment, None, "c1")
    assert removed.status_code == 200
    assert len(statements) == 5, "\n".join(statements)
    decide(client, assignment, anna, None)
    moved, statements = sent(client, "post", "task-api-move", assignment, {"segment": 1})
    assert moved.status_code == 200
    assert len(statements) == 4, "\n".join(statements)
