"""Workers joining an adaptive study at the same moment (config.allocation policy uncertain): the
study's row lock still serialises them, and each place a worker holds counts as bought, so no
document gets more annotators than the design asks and every worker gets a different gap. Runs on
PostgreSQL and on SQLite (a file database: the threads contend for its write lock)."""

from collections import Counter

import pytest

from annotations.models import Assignment
from studies.models import Study
from tests.annotations.concurrent_joins import joins_at_once
from tests.translation.studies import make_translation_study

pytestmark = pytest.mark.django_db(transaction=True)
WORKERS = 12


def test_joins_at_once_never_over_assign_a_document_and_stop_at_the_budget():
    study = make_translation_study(
        "da", systems=("sysA", "sysB", "sysC"), documents=4, status=Study.Status.OPEN, annotators_per_document=1,
        config={"allocation": {"policy": "uncertain", "stop_when": ["budget"], "budget": 9}},
    )  # fmt: skip
    statuses = joins_at_once(study, WORKERS)

    per_document = Counter(Assignment.objects.filter(study=study).values_list("document_id", flat=True))
    assert max(per_document.values()) == 1
    # Nine places (the budget) given, three workers told the study has what it planned; no 500.
    assert statuses == {302: 9, 200: WORKERS - 9}
