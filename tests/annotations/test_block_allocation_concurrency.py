"""Workers joining an adaptive block study at the same moment: the study's row lock serialises
them, so no block gets more than K workers and the budget of blocks is never overrun, whatever
the policy chooses. Runs on PostgreSQL and on SQLite (a file database: the threads contend for its
write lock)."""

from collections import Counter

import pytest

from annotations.models import Assignment
from tests.annotations.block_studies import import_block_study, pair_documents, rate_block, warm_up
from tests.annotations.concurrent_joins import joins_at_once

pytestmark = pytest.mark.django_db(transaction=True)
WORKERS = 12


def test_joins_at_once_never_overfill_a_block_and_go_to_the_close_pair(tmp_path):
    study = import_block_study(
        tmp_path, "pairwise", documents=pair_documents(12), allocation={"policy": "uncertain"}, per_block=2
    ).study
    warm_up(study, 6)
    assert joins_at_once(study, WORKERS) == {302: WORKERS}
    joined = Assignment.objects.filter(study=study, joined=True, worker__external_id__startswith="crowd-")
    per_block = Counter(Assignment.objects.filter(study=study).values_list("block", flat=True))
    assert max(per_block.values()) == 2  # K
    # The four C-D blocks' places come first: two of them were half full, two empty (6 places).
    close = Counter(block for block in joined.values_list("block", flat=True) if block.endswith("-CD"))
    assert sum(close.values()) == 6


def test_joins_at_once_stop_at_the_budget_of_blocks(tmp_path):
    study = import_block_study(
        tmp_path, "likert", documents=pair_documents(12),
        allocation={"policy": "uncertain", "stop_when": ["budget"], "budget": 9},
    ).study  # fmt: skip
    warm_up(study, 1)  # two blocks rated: seven places left in the budget
    assert joins_at_once(study, WORKERS) == {302: 7, 200: WORKERS - 7}
    assert max(Counter(Assignment.objects.filter(study=study).values_list("block", flat=True)).values()) == 1
    for assignment in Assignment.objects.filter(study=study, status=Assignment.Status.ASSIGNED):
        rate_block(assignment)
    study.refresh_from_db()
    assert study.status == "closed"
