"""What saving the answers about the whole document costs the database, and that the cheap path
loses no answer: BEGIN, the opening UPDATE (which reads the segment count and the stored answers),
one UPSERT of the merged answers that holds only if the stored answers are still those, COMMIT."""

import pytest

from protocols.span import services
from protocols.span.models import DocumentAnswer
from tests.annotations.statements import one_transaction, sent
from tests.annotations.task_api import post

pytestmark = pytest.mark.django_db

ANSWERS = "task-api-document-answers"


def test_the_first_and_a_later_save_send_four_statements_each(client, assignment):
    for answers in ({"coherence": 4}, {"better": "this one"}, {"coherence": None}):
        response, statements = sent(client, "post", ANSWERS, assignment, {"answers": answers})
        assert response.status_code == 200, response.content
        assert len(statements) == 4 and one_transaction(statements), "\n".join(statements)
    assert DocumentAnswer.objects.get().answers == {"better": "this one"}


def test_a_merge_from_an_older_read_is_made_again_and_loses_no_answer(client, assignment, monkeypatch):
    """On PostgreSQL the opening UPDATE's read may predate a save from another tab that it waited for.
    Here it is made to see no answers although one is stored: the UPSERT's condition catches it, and
    the merge is made again from a read after the lock (6 statements instead of 4)."""
    post(client, ANSWERS, assignment, {"answers": {"coherence": 4}})
    fresh = services._answers_reads()
    monkeypatch.setattr(services, "_answers_reads", lambda: [fresh[0], "NULL"])
    response, statements = sent(client, "post", ANSWERS, assignment, {"answers": {"better": "this one"}})
    assert response.json() == {"answers": {"coherence": 4, "better": "this one"}}
    assert len(statements) == 6, "\n".join(statements)
    assert DocumentAnswer.objects.get().answers == {"coherence": 4, "better": "this one"}
