"""Saving choices through the task API: checked, idempotent, and submit needs every pair."""

import json

import pytest
from django.urls import reverse

from annotations.models import Assignment
from protocols.pairwise.models import PairwiseChoice
from tests.pairwise.bundles import import_pairwise, pair_assignment

pytestmark = pytest.mark.django_db

STRENGTH = {"strength": {"max": 2, "labels": {1: "slightly", 2: "clearly"}}}


def post(client, name, assignment, body):
    data = body if isinstance(body, str) else json.dumps(body)
    return client.post(reverse(name, args=[assignment.token]), data, content_type="application/json")


def choose(client, assignment, body):
    return post(client, "task-api-pairwise-choices", assignment, body)


def stored(assignment):
    return {
        c.position: (c.left_id, c.right_id, c.choice, c.strength)
        for c in PairwiseChoice.objects.filter(assignment=assignment)
    }


@pytest.fixture
def study(tmp_path):
    return import_pairwise(tmp_path)


@pytest.fixture
def strength_study(tmp_path):
    return import_pairwise(tmp_path / "strength", slug="strength", config=STRENGTH)


@pytest.fixture
def no_ties(tmp_path):
    return import_pairwise(tmp_path / "no-ties", slug="no-ties", config={"allow_ties": False})


def test_a_choice_is_stored_with_the_sides_the_worker_saw_and_again_changes_nothing(client, study):
    assignment = pair_assignment(study)
    entry = assignment.items[0]
    response = choose(
        client, assignment, {"position": entry["position"], "choice": "right", "strength": None}
    )
    assert response.status_code == 200
    assert response.json() == {"position": entry["position"], "choice": "right", "strength": None}
    assert stored(assignment) == {entry["position"]: (entry["left"], entry["right"], "right", None)}
    again = choose(client, assignment, {"position": entry["position"], "choice": "right"})
    assert again.status_code == 200 and stored(assignment) == {
        entry["position"]: (entry["left"], entry["right"], "right", None)
    }
    assert choose(client, assignment, {"position": entry["position"], "choice": "tie"}).status_code == 200
    assert stored(assignment)[entry["position"]][2] == "tie"  # a change of mind replaces the choice
    assert PairwiseChoice.objects.count() == 1
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.IN_PROGRESS and assignment.started_at is not None
    state = client.get(reverse("task-api-state", args=[assignment.token])).json()
    assert state["choices"] == {str(entry["position"]): {"choice": "tie", "strength": None}}


def test_a_strength_goes_with_a_side(client, strength_study):
    assignment = pair_assignment(strength_study)
    first, second = assignment.items[0]["position"], assignment.items[1]["position"]
    assert (
        choose(client, assignment, {"position": first, "choice": "left", "strength": 2}).json()["strength"]
        == 2
    )
    assert (
        choose(client, assignment, {"position": second, "choice": "tie", "strength": None}).status_code == 200
    )
    assert {p: (c, s) for p, (_, _, c, s) in stored(assignment).items()} == {
        first: ("left", 2),
        second: ("tie", None),
    }


@pytest.mark.parametrize(
    ("fixture", "body", "message"),
    [
        ("study", {"position": 99, "choice": "left"}, "pair 99 is not in this block"),
        ("study", {"position": "0", "choice": "left"}, "pair '0' is not in this block"),
        ("study", {"position": None, "choice": "left"}, "pair None is not in this block"),
        ("study", {"position": True, "choice": "left"}, "pair True is not in this block"),
        ("study", {"position": 0, "choice": "A"}, """'choice' must be one of "left", "right", "tie", not 'A'"""),
        ("study", {"position": 0, "choice": ["left"]}, "'choice' must be one of"),
        ("study", {"position": 0}, "'choice' must be one of"),
        ("study", {"position": 0, "choice": "left", "strength": 1}, "this study asks for no strength"),
        ("study", {"position": 0, "choice": "left", "side": "A"}, "unknown field 'side'"),
        ("no_ties", {"position": 0, "choice": "tie"}, """this study allows no ties: 'choice' must be "left", "right\""""),
        ("strength_study", {"position": 0, "choice": "left"}, "'strength' is required"),
        ("strength_study", {"position": 0, "choice": "left", "strength": 3}, "from 1 to 2, not 3"),
        ("strength_study", {"position": 0, "choice": "left", "strength": 0}, "from 1 to 2, not 0"),
        ("strength_study", {"position": 0, "choice": "left", "strength": 1.5}, "from 1 to 2, not 1.5"),
        ("strength_study", {"position": 0, "choice": "left", "strength": "2"}, "from 1 to 2, not '2'"),
        ("strength_study", {"position": 0, "choice": "left", "strength": True}, "from 1 to 2, not True"),
        ("strength_study", {"position": 0, "choice": "tie", "strength": 1}, "a tie has no strength"),
    ],
)  # fmt: skip
def test_every_bad_choice_is_refused_with_a_message_and_nothing_is_stored(
    client, request, fixture, body, message
):
    assignment = pair_assignment(request.getfixturevalue(fixture))
    response = choose(client, assignment, body)
    assert response.status_code == 400
    assert message in response.json()["error"]
    assert not PairwiseChoice.objects.exists()


@pytest.mark.parametrize(
    ("body", "status"), [("not json", 400), ("[1, 2]", 400), ('{"position": 0, "choice": "left"}', 200)]
)
def test_the_body_must_be_a_json_object(client, study, body, status):
    assert choose(client, pair_assignment(study), body).status_code == status


def test_only_post_and_only_a_known_token(client, study):
    assignment = pair_assignment(study)
    assert client.get(reverse("task-api-pairwise-choices", args=[assignment.token])).status_code == 405
    missing = client.post(
        reverse("task-api-pairwise-choices", args=["no-such-token"]), "{}", content_type="application/json"
    )
    assert missing.status_code == 404 and "error" in missing.json()


def test_submit_waits_for_every_pair_then_the_block_is_closed(client, study):
    assignment = pair_assignment(study)
    *most, last = assignment.items
    for entry in most:
        assert (
            choose(client, assignment, {"position": entry["position"], "choice": "left"}).status_code == 200
        )
    refused = post(client, "task-api-submit", assignment, {})
    assert refused.status_code == 400
    assert refused.json()["error"] == "choose in every pair before submitting (1 left)"
    assert choose(client, assignment, {"position": last["position"], "choice": "right"}).status_code == 200
    submitted = post(client, "task-api-submit", assignment, {})
    assert submitted.status_code == 200 and submitted.json()["status"] == "submitted"
    assert submitted.json()["completion"]["code"]
    late = choose(client, assignment, {"position": last["position"], "choice": "tie"})
    assert late.status_code == 409 and "already submitted" in late.json()["error"]
    assert PairwiseChoice.objects.get(assignment=assignment, position=last["position"]).choice == "right"


def test_a_block_saved_before_the_strength_was_asked_needs_it_before_submit(client, study):
    assignment = pair_assignment(study)
    for entry in assignment.items:
        choose(client, assignment, {"position": entry["position"], "choice": "left"})
    study.config = STRENGTH
    study.save()
    refused = post(client, "task-api-submit", assignment, {})
    assert refused.status_code == 400 and "how clearly" in refused.json()["error"]
    assert f"({len(assignment.items)} left)" in refused.json()["error"]


def test_a_submitted_block_schedules_its_retest_with_the_same_pairs(client, tmp_path):
    study = import_pairwise(tmp_path, config={"retest_after_days": 7})
    assignment = pair_assignment(study)
    for entry in assignment.items:
        choose(client, assignment, {"position": entry["position"], "choice": "tie"})
    assert post(client, "task-api-submit", assignment, {}).status_code == 200
    retest = Assignment.objects.get(study=study, kind=Assignment.Kind.RETEST)
    assert retest.block == assignment.block and retest.available_from is not None

    def pairs(a):
        return {e["position"]: frozenset((e["left"], e["right"])) for e in a.items}

    assert pairs(retest) == pairs(assignment)
    closed = choose(client, retest, {"position": retest.items[0]["position"], "choice": "left"})
    assert closed.status_code == 409 and "retest opens" in closed.json()["error"]
