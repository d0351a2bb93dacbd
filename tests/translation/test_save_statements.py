"""What the translation page's writes cost the database, and that the cheap paths keep their guarantees.

Each write is BEGIN, one UPDATE that opens the assignment (finds it by its token,
checks it is open, locks and touches it, and reads the segment and category the
write names), one INSERT, UPSERT, DELETE or UPDATE, COMMIT: at most 4 statements
(annotations.services.opening). A retried error reads the stored one in place
of its INSERT. On a page of several translations (contrastive) the opening
UPDATE finds the output's document in the page's order (the assignment's items)
itself, and reads its segment for the error's span check; a score needs no
text, and its UPSERT finds the segment itself.
"""

import pytest

from annotations.models import Assignment
from protocols.translation.models import SegmentScore, TranslationError
from studies.models import Document, Segment
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


def four_statements(response, statements, status=200):
    assert response.status_code == status, response.content
    assert len(statements) == 4 and one_transaction(statements), "\n".join(statements)


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
    four_statements(response, statements, 201)
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
    four_statements(*sent(client, "post", ERRORS, assignment, error()), 201)
    over = sent(client, "post", ERRORS, assignment, error("e2", start=0, end=3, text="The"))[0]
    assert over.status_code == 400 and "at most 1 errors per segment" in over.json()["error"]
    assert TranslationError.objects.count() == 1


def test_a_retried_error_sends_four_statements_is_stored_once_and_answered_the_same(client):
    """The opening UPDATE sees the client_id stored: the retry reads the error back, no INSERT."""
    assignment = assignment_of(make_translation_study("mqm"))
    first = sent(client, "post", ERRORS, assignment, error())[0]
    stored = TranslationError.objects.get()
    again, statements = sent(client, "post", ERRORS, assignment, error())
    four_statements(again, statements)
    assert not [statement for statement in statements if statement.startswith("INSERT")]
    changed, statements = sent(client, "post", ERRORS, assignment, error(severity="Nope", category="Gone"))
    four_statements(changed, statements)
    assert first.status_code == 201 and first.json() == again.json() == changed.json()
    assert list(TranslationError.objects.values_list("pk", flat=True)) == [stored.pk]


def test_a_removed_error_sent_again_under_its_client_id_is_stored_anew(client):
    assignment = assignment_of(make_translation_study("mqm"))
    sent(client, "post", ERRORS, assignment, error())
    sent(client, "delete", ERROR, assignment, None, "e1")
    response, statements = sent(client, "post", ERRORS, assignment, error(severity="Minor"))
    four_statements(response, statements, 201)
    assert TranslationError.objects.get().severity == "Minor"


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
    four_statements(*sent(client, "delete", ERROR, other, None, "e1"))
    assert TranslationError.objects.count() == 1
    four_statements(*sent(client, "delete", ERROR, assignment, None, "e1"))
    assert not TranslationError.objects.exists()
    four_statements(*sent(client, "delete", ERROR, assignment, None, "e1"))  # gone already: fine


def test_a_score_sends_four_statements_and_warns_from_the_segments_errors(client):
    assignment = assignment_of(make_translation_study("esa", taxonomy=None))
    response, statements = sent(client, "post", SCORES, assignment, {"segment": 0, "score": 10})
    four_statements(response, statements)
    assert "no error marked" in response.json()["warning"]
    sent(client, "post", ERRORS, assignment, {"client_id": "e1", "segment": 0, "severity": "Major", **DOG})
    response, statements = sent(client, "post", SCORES, assignment, {"segment": 0, "score": 95})
    four_statements(response, statements)
    assert "Major error" in response.json()["warning"]
    assert list(SegmentScore.objects.values_list("score", flat=True)) == [95]


def test_a_move_sends_four_statements_and_waits_for_the_score(client):
    assignment = assignment_of(make_translation_study("esa", taxonomy=None))
    refused = sent(client, "post", MOVE, assignment, {"segment": 1})[0]
    assert refused.status_code == 400 and "score this segment" in refused.json()["error"]
    assert Assignment.objects.get(pk=assignment.pk).last_activity_at is None  # a refusal changes nothing
    sent(client, "post", SCORES, assignment, {"segment": 0, "score": 50})
    response, statements = sent(client, "post", MOVE, assignment, {"segment": 1})
    four_statements(response, statements)
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


def contrastive_page():
    study = make_translation_study("contrastive-esa", systems=("sysA", "sysB"), taxonomy=None)
    document_ids = list(study.documents.order_by("system").values_list("pk", flat=True))
    assignment = AssignmentFactory(
        study=study, document=None, block="src-0",
        items=[{"position": n, "document": pk} for n, pk in enumerate(document_ids)],
    )  # fmt: skip
    return assignment, document_ids


def test_a_score_on_a_contrastive_page_sends_four_statements(client):
    """The output names a document of the page's order, which the opening UPDATE returns; the
    UPSERT finds that document's segment itself."""
    assignment, document_ids = contrastive_page()
    response, statements = sent(client, "post", SCORES, assignment, {"output": 1, "segment": 0, "score": 5})
    four_statements(response, statements)
    assert response.json()["output"] == 1 and response.json()["segment"] == 0
    assert "no error marked" in response.json()["warning"]
    stored = SegmentScore.objects.select_related("segment").get()
    assert (stored.segment.document_id, stored.segment.index, stored.score) == (document_ids[1], 0, 5.0)
    # The warning counts the errors of this output's segment, not of the other output's.
    major = {"client_id": "e1", "output": 1, "segment": 0, "severity": "Major", **DOG}
    assert sent(client, "post", ERRORS, assignment, major)[0].status_code == 201
    changed, statements = sent(client, "post", SCORES, assignment, {"output": 1, "segment": 0, "score": 95})
    four_statements(changed, statements)
    assert "Major error" in changed.json()["warning"]
    other = sent(client, "post", SCORES, assignment, {"output": 0, "segment": 0, "score": 95})[0]
    assert other.json()["output"] == 0 and other.json()["warning"] == ""
    assert sorted(SegmentScore.objects.values_list("score", flat=True)) == [95.0, 95.0]


@pytest.mark.parametrize("side", ["target", "source"])
def test_an_error_on_a_contrastive_page_sends_four_statements_and_lands_on_its_output(client, side):
    """The page is shown in the order of its items, not of the documents' ids: the error on the
    output placed second is stored on that output's segment, its span checked against that text."""
    assignment, document_ids = contrastive_page()
    shown = [document_ids[1], document_ids[0]]
    Assignment.objects.filter(pk=assignment.pk).update(
        items=[{"position": 1, "document": shown[1]}, {"position": 0, "document": shown[0]}]
    )
    Segment.objects.filter(document_id=shown[1], index=0).update(text="A cat sat.")
    Segment.objects.filter(document_id=shown[0], index=0).update(text="The dog sat.")
    placed = {"client_id": "e1", "output": 1, "segment": 0, "severity": "Major", "side": "target",
              "start": 2, "end": 5, "text": "cat"}  # fmt: skip
    if side == "source":
        source = Document.objects.get(pk=shown[1]).meta["sources"][0]
        placed = {**placed, "side": "source", "start": 0, "end": len(source), "text": source}
    response, statements = sent(client, "post", ERRORS, assignment, placed)
    four_statements(response, statements, 201)
    stored = TranslationError.objects.select_related("segment").get()
    assert (stored.segment.document_id, stored.segment.index, stored.side) == (shown[1], 0, side)
    # The same span on the other output does not fit its text: refused, nothing more stored.
    if side == "target":
        other = sent(client, "post", ERRORS, assignment, {**placed, "client_id": "e2", "output": 0})[0]
        assert other.status_code == 400 and "target span" in other.json()["error"]
    assert TranslationError.objects.count() == 1


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"output": 2, "segment": 0}, "output 2 is not on this page (0 to 1)"),
        ({"output": -1, "segment": 0}, "output -1 is not on this page"),
        ({"segment": 0}, "output None is not on this page"),
        ({"output": 0, "segment": 1}, "segment 1 has not been reached yet"),
        ({"output": 0, "segment": 3}, "segment 3 is not in this document"),
        ({"output": 0, "segment": 10**30}, "segment 1000000000000000000000000000000 is not in this document"),
    ],
)
def test_a_score_for_an_output_or_segment_not_on_the_page_is_refused(client, body, message):
    assignment, _ = contrastive_page()
    response, _ = sent(client, "post", SCORES, assignment, {**body, "score": 5})
    assert response.status_code == 400 and message in response.json()["error"]
    assert not SegmentScore.objects.exists()
    assert Assignment.objects.get(pk=assignment.pk).last_activity_at is None


def test_a_score_for_a_segment_one_translation_lacks_is_refused(client):
    """Reached on the page, but not in this output's document: the UPSERT finds no segment."""
    assignment, document_ids = contrastive_page()
    Segment.objects.filter(document_id=document_ids[1], index=1).delete()
    Assignment.objects.filter(pk=assignment.pk).update(current_segment=1)
    response, _ = sent(client, "post", SCORES, assignment, {"output": 1, "segment": 1, "score": 5})
    assert response.status_code == 400 and response.json()["error"] == "segment 1 is not in this document"
    assert not SegmentScore.objects.exists()
    assert (
        sent(client, "post", SCORES, assignment, {"output": 0, "segment": 1, "score": 5})[0].status_code
        == 200
    )


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
    assert len(statements) == 4, "\n".join(statements)
    assert Assignment.objects.get(pk=assignment.pk).status == Assignment.Status.SUBMITTED


def test_an_esa_submit_with_a_segment_unscored_says_so_and_changes_nothing(client):
    assignment = assignment_of(make_translation_study("esa", taxonomy=None))
    read_to_the_end(client, assignment, score=50)
    SegmentScore.objects.filter(segment__index=2).delete()
    assert refused_submit(client, assignment) == "score every segment before submitting (1 left)"
