"""What a pairwise choice costs the database: BEGIN, the opening UPDATE, one UPSERT, COMMIT; the
same choice again changes nothing, a new one replaces it, a submitted block takes none."""

import pytest

from annotations.models import Assignment
from protocols.pairwise.models import PairwiseChoice
from tests.annotations.statements import one_transaction, refused_submit, sent
from tests.pairwise.bundles import import_pairwise, pair_assignment

pytestmark = pytest.mark.django_db


def test_a_choice_sends_four_statements_and_a_new_one_replaces_the_old(client, tmp_path):
    assignment = pair_assignment(import_pairwise(tmp_path))
    entry = assignment.items[0]
    for choice in ("left", "right", "right"):
        body = {"position": entry["position"], "choice": choice}
        response, statements = sent(client, "post", "task-api-pairwise-choices", assignment, body)
        assert response.json() == {"position": entry["position"], "choice": choice, "strength": None}
        assert len(statements) == 4 and one_transaction(statements), "\n".join(statements)
    stored = PairwiseChoice.objects.get()
    assert (stored.left_id, stored.right_id, stored.choice) == (entry["left"], entry["right"], "right")
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.IN_PROGRESS and assignment.last_activity_at is not None


def test_a_choice_after_submit_is_409_and_stores_nothing(client, tmp_path):
    assignment = pair_assignment(import_pairwise(tmp_path))
    Assignment.objects.filter(pk=assignment.pk).update(status=Assignment.Status.SUBMITTED)
    body = {"position": assignment.items[0]["position"], "choice": "left"}
    assert sent(client, "post", "task-api-pairwise-choices", assignment, body)[0].status_code == 409
    assert not PairwiseChoice.objects.exists()


def choose_all(client, assignment, choice="left"):
    for entry in assignment.items:
        body = {"position": entry["position"], "choice": choice}
        assert sent(client, "post", "task-api-pairwise-choices", assignment, body)[0].status_code == 200


def test_a_complete_block_is_submitted_in_four_statements(client, tmp_path):
    """The check that every pair has its choice is a condition of submit's UPDATE: BEGIN, the
    SELECT ... FOR UPDATE, the UPDATE, COMMIT."""
    assignment = pair_assignment(import_pairwise(tmp_path))
    choose_all(client, assignment)
    response, statements = sent(client, "post", "task-api-submit", assignment)
    assert response.status_code == 200 and response.json()["status"] == "submitted"
    assert len(statements) == 4 and one_transaction(statements), "\n".join(statements)
    assert Assignment.objects.get(pk=assignment.pk).completion_code == response.json()["completion"]["code"]


def test_a_submit_with_a_pair_left_says_how_many_and_changes_nothing(client, tmp_path):
    assignment = pair_assignment(import_pairwise(tmp_path))
    choose_all(client, assignment)
    PairwiseChoice.objects.filter(assignment=assignment, position=assignment.items[0]["position"]).delete()
    assert refused_submit(client, assignment) == "choose in every pair before submitting (1 left)"


def test_a_tie_chosen_before_the_study_stopped_allowing_them_blocks_the_submit(client, tmp_path):
    study = import_pairwise(tmp_path)
    assignment = pair_assignment(study)
    choose_all(client, assignment, choice="tie")
    study.config = {**study.config, "allow_ties": False}
    study.save(update_fields=["config"])
    assert refused_submit(client, assignment) == (
        f"this study no longer allows ties: choose A or B in every pair before submitting ({len(assignment.items)} left)"
    )
