"""The floor bench/task_saves.py compares a span save with (bench/bare_saves.py): the same opening
UPDATE and INSERT, sent by a bare psycopg loop, must still store what a save through the platform
stores. When the save's statements change, the loop changes with them or this fails; before, a
changed parameter list left the loop saving nothing while the bench printed a floor of 0 ms."""

import psycopg
import pytest
from django.db import connection

from bench.bare_saves import save_loop, statements
from protocols.span.models import ErrorAnnotation
from tests.factories import AssignmentFactory, make_span_study

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="the floor is measured on PostgreSQL"),
]


def test_the_bare_loop_stores_each_save_as_the_platform_would():
    assignment = AssignmentFactory(document=make_span_study(documents=1, segments=2).documents.get())
    db = connection.settings_dict
    url = f"postgresql://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"
    failures = []
    save_loop(psycopg.connect(url), statements(), [assignment.token], 3, "bare", failures)
    assert failures == []
    stored = ErrorAnnotation.objects.filter(assignment=assignment).order_by("client_id")
    assert [(span.client_id, span.category.key, span.segment.index, span.text) for span in stored] == [
        ("bare-0", "CharE", 0, "Anna"),
        ("bare-1", "CharE", 0, "Anna"),
        ("bare-2", "CharE", 0, "Anna"),
    ]
    assignment.refresh_from_db()
    assert assignment.status == assignment.Status.IN_PROGRESS and assignment.last_activity_at is not None
