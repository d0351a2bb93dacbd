"""What a pairwise choice costs the database: BEGIN, the opening UPDATE, one UPSERT, COMMIT; the
same choice again changes nothing, a new one replaces it, a submitted block takes none."""

import pytest

from annotations.models import Assignment
from protocols.pairwise.models import PairwiseChoice
from tests.annotations.statements import one_transaction, sent
from tests.pairwise.bundles import import_pairwise, pair_assignment

pytestmark = pytest.mark.django_db


def test_a_choice_sends_four_statements_and_a_new_one_replaces_the_old(client, tmp_path):
    assignment = pair_assignment(import_pairwise(tmp_path))
    entry = assignment.items[0]
    for choice in ("left", "right", "right"):
        body = {"position": entry["position"], "choice": choice}
        response, statements = sent(client, "post", "task-api-pairwise-choices", assignment, body)
        assert response.json() == {"position": entry["position"], "choice": choice, "strength": None}
        assert len(statements) <= 4 and one_transaction(statements), "\n".join(statements)
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
