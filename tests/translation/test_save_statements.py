"""What the translation page's writes cost the database, and that the cheap paths keep their guarantees.

Each write is BEGIN, one UPDATE that opens the assignment (finds it by its token,
checks it is open, locks and touches it, and reads the segment and category the
write names), one INSERT, UPSERT, DELETE or UPDATE, COMMIT: at most 4 statements
(annotations.services.opening). A page of several translations (contrastive)
reads the segment once more: the opening UPDATE cannot know which document the
output names before it has read the page's order.
"""

import pytest

from annotations.models import Assignment
from protocols.translation.models import SegmentScore, TranslationError
from tests.annotations.statements import one_transaction, refused_submit, sent
from tests.factories import AssignmentFactory
from tests.translation.studies import make_translation_study

pytestmark = pytest.mark.django_db

ERRORS, ERROR = "task-api-translation-errors", "task-api-translation-error"
SCORES, MOVE = "task-api-translation-scores", "task-api-translation-move"
DOG = {"side": "target", "start": 4, "end": 7, "text": "dog"}


def assignment_of(study, system="sysA"):
    return AssignmentFactory(document=study.documents.get(system=system), study=study)


def error(client_id="e1", **fields):
    return {"client_id": client_id, "segment": 0, "severity": "Major", "category": "Mistranslation", **DOG,
            **fields}  # fmt: skip


def at_most_four(response, statements, status=200):
    assert response.status_code == status, response.content
    assert len(statements) <= 4 and one_transaction(statements), "\n".join(statements)


@pytest.mark.parametrize(
    "fields",
    [
        {},
        {"category": "Omission", "side": "source", "start": 4, "end": 8, "text": "Hund"},
        {"category": "Omission", "side": "missing", "start": 0, "end": 0, "text": ""},
        {"category": "NonTranslation"},
    ],
)
def test_an_mqm_error_sends_four_statements(client, fields):
    assignment = assignment_of(make_translation_study("mqm"))
    response, statements = sent(client, "post", ERRORS, assignment, error(**fields))
    at_most_four(response, statements, 201)
    stored = TranslationError.objects.select_related("category").get()
    assert (stored.category.key, stored.severity, stored.segment.index) == (
        error(**fields)["category"],
        "Major",
        0,
    )
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.IN_PROGRESS and assignment.last_activity_at is not None


def test_an_error_under_a_cap_sends_four_statements_and_the_cap_holds(client):
    assignment = assignment_of(make_translation_study("mqm", config={"max_errors_per_segment": 1}))
    at_most_four(*sent(client, "post", ERRORS, assignment, error()), 201)
    over = sent(client, "post", ERRORS, assignment, error("e2", start=0, end=3, text="The"))[0]
    assert over.status_code == 400 and "at most 1 errors per segment" in over.json()["error"]
    assert TranslationError.objects.count() == 1


def test_a_retried_error_is_stored_once_and_answered_the_same(client):
    assignment = assignment_of(make_translation_study("mqm"))
    first = sent(client, "post", ERRORS, assignment, error())[0]
    again = sent(client, "post", ERRORS, assignment, error())[0]
    changed = sent(client, "post", ERRORS, assignment, error(severity="Nope", category="Gone"))[0]
    assert (first.status_code, again.status_code, changed.status_code) == (201, 200, 200)
    assert first.json() == again.json() == changed.json()
    assert TranslationError.objects.count() == 1


def test_an_error_names_a_category_of_the_study_and_a_segment_reached(client):
    assignment = assignment_of(make_translation_study("mqm"))
    unknown = sent(client, "post", ERRORS, assignment, error(category="Nope"))[0]
    assert unknown.status_code == 400 and "category 'Nope'" in unknown.json()["error"]
    later = sent(client, "post", ERRORS, assignment, error(segment=1))[0]
    assert later.status_code == 400 and "has not been reached yet" in later.json()["error"]
    beyond = sent(client, "post", ERRORS, assignment, error(segment=10**30))[0]
    assert beyond.status_code == 400 and "is not in this document" in beyond.json()["error"]
    assert not TranslationError.objects.exists()
    assert Assignment.objects.get(pk=assignment.pk).last_activity_at is None


def test_removing_an_error_sends_four_statements_and_only_from_its_own_assignment(client):
    study = make_translation_study("mqm")
    assignment, other = assignment_of(study), assignment_of(study, "sysB")
    sent(client, "post", ERRORS, assignment, error())
    at_most_four(*sent(client, "delete", ERROR, other, None, "e1"))
    assert TranslationError.objects.count() == 1
    at_most_four(*sent(client, "delete", ERROR, assignment, None, "e1"))
    assert not TranslationError.objects.exists()
    at_most_four(*sent(client, "delete", ERROR, assignment, None, "e1"))  # gone already: fine


def test_a_score_sends_four_statements_and_warns_from_the_segments_errors(client):
    assignment = assignment_of(make_translation_study("esa", taxonomy=None))
    response, statements = sent(client, "post", SCORES, assignment, {"segment": 0, "score": 10})
    at_most_four(response, statements)
    assert "no error marked" in response.json()["warning"]
    sent(client, "post", ERRORS, assignment, {"client_id": "e1", "segment": 0, "severity": "Major", **DOG})
    response, statements = sent(client, "post", SCORES, assignment, {"segment": 0, "score": 95})
    at_most_four(response, statements)
    assert "Major error" in response.json()["warning"]
    assert list(SegmentScore.objects.values_list("score", flat=True)) == [95]


def test_a_move_sends_four_statements_and_waits_for_the_score(client):
    assignment = assignment_of(make_translation_study("esa", taxonomy=None))
    refused = sent(client, "post", MOVE, assignment, {"segment": 1})[0]
    assert refused.status_code == 400 and "score this segment" in refused.json()["error"]
    assert Assignment.objects.get(pk=assignment.pk).last_activity_at is None  # a refusal changes nothing
    sent(client, "post", SCORES, assignment, {"segment": 0, "score": 50})
    response, statements = sent(client, "post", MOVE, assignment, {"segment": 1})
    at_most_four(response, statements)
    assignment.refresh_from_db()
    assert (assignment.current_segment, assignment.segments_visited) == (1, [0, 1])
    past = sent(client, "post", MOVE, assignment, {"segment": 3})[0]
    assert past.status_code == 400 and "from 0 to 2" in past.json()["error"]


@pytest.mark.parametrize(
    ("name", "body", "args"),
    [(ERRORS, error(), ()), (ERROR, None, ("e1",)), (SCORES, {"segment": 0, "score": 5}, ()),
     (MOVE, {"segment": 0}, ())],
)  # fmt: skip
def test_every_write_after_submit_is_409_and_changes_nothing(client, name, body, args):
    assignment = assignment_of(make_translation_study("esa" if name == SCORES else "mqm"))
    Assignment.objects.filter(pk=assignment.pk).update(status=Assignment.Status.SUBMITTED)
    method = "delete" if name == ERROR else "post"
    response = sent(client, method, name, assignment, body, *args)[0]
    assert response.status_code == 409
    assert not TranslationError.objects.exists() and not SegmentScore.objects.exists()
    assert Assignment.objects.get(pk=assignment.pk).last_activity_at is None


def test_a_contrastive_page_reads_the_segment_once_more(client):
    """The output names a document of the page's order, which the opening UPDATE returns: 5."""
    study = make_translation_study("contrastive-esa", systems=("sysA", "sysB"), taxonomy=None)
    document_ids = list(study.documents.values_list("pk", flat=True))
    assignment = AssignmentFactory(
        study=study, document=None, block="src-0",
        items=[{"position": n, "document": pk} for n, pk in enumerate(document_ids)],
    )  # fmt: skip
    response, statements = sent(client, "post", SCORES, assignment, {"output": 1, "segment": 0, "score": 5})
    assert response.status_code == 200, response.content
    assert len(statements) <= 5, "\n".join(statements)
    assert SegmentScore.objects.get().segment.document_id == document_ids[1]


SUBMIT = "task-api-submit"


def read_to_the_end(client, assignment, *, score=None):
    for segment in range(3):
        if score is not None:
            sent(client, "post", SCORES, assignment, {"segment": segment, "score": score})
        if segment < 2:
            assert sent(client, "post", MOVE, assignment, {"segment": segment + 1})[0].status_code == 200


@pytest.mark.parametrize("protocol", ["mqm", "esa"])
def test_a_submit_sends_four_statements(client, protocol):
    """The document's segment count and whether the worker submitted a quality check on a copy of
    this document come with the locking SELECT, and an ESA page's "every segment scored" is a
    condition of the UPDATE: BEGIN, the SELECT ... FOR UPDATE, the UPDATE, COMMIT. With no check
    submitted (here), the protocol's after-submit reads nothing."""
    assignment = assignment_of(
        make_translation_study(protocol, **({"taxonomy": None} if protocol == "esa" else {}))
    )
    read_to_the_end(client, assignment, score=None if protocol == "mqm" else 50)
    response, statements = sent(client, "post", SUBMIT, assignment)
    assert response.status_code == 200 and one_transaction(statements)
    assert len(statements) <= 4, "\n".join(statements)
    assert Assignment.objects.get(pk=assignment.pk).status == Assignment.Status.SUBMITTED


def test_an_esa_submit_with_a_segment_unscored_says_so_and_changes_nothing(client):
    assignment = assignment_of(make_translation_study("esa", taxonomy=None))
    read_to_the_end(client, assignment, score=50)
    SegmentScore.objects.filter(segment__index=2).delete()
    assert refused_submit(client, assignment) == "score every segment before submitting (1 left)"
