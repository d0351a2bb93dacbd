"""What the database itself refuses for a choice, whatever code writes it."""

import pytest
from django.db import IntegrityError, transaction

from protocols.pairwise.models import PairwiseChoice
from tests.pairwise.bundles import import_pairwise, pair_assignment

pytestmark = pytest.mark.django_db


@pytest.fixture
def pair(tmp_path):
    assignment = pair_assignment(import_pairwise(tmp_path))
    entry = assignment.items[0]
    return {"assignment": assignment, "position": entry["position"], "left_id": entry["left"],
            "right_id": entry["right"]}  # fmt: skip


@pytest.mark.parametrize(
    "change",
    [
        {"choice": "both"},
        {"choice": "tie", "strength": 1},
        {"choice": "left", "strength": 0},
        {"same_document": True},
    ],
)
def test_the_database_refuses_a_choice_that_breaks_an_invariant(pair, change):
    fields = {**pair, "choice": "left"}
    if change.pop("same_document", False):
        fields["right_id"] = fields["left_id"]
    fields.update(change)
    with pytest.raises(IntegrityError), transaction.atomic():
        PairwiseChoice.objects.create(**fields)


def test_one_choice_per_pair_of_an_assignment(pair):
    PairwiseChoice.objects.create(**pair, choice="left")
    with pytest.raises(IntegrityError), transaction.atomic():
        PairwiseChoice.objects.create(**pair, choice="right")
    PairwiseChoice.objects.create(**pair | {"position": pair["position"] + 100}, choice="left", strength=2)
