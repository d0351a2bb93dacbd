"""What a reviewer's answer costs the database: BEGIN, the opening UPDATE (which also reads the
item), one UPSERT, COMMIT; only an item of the reviewer's own document, never after submit."""

import pytest

from accounts.models import Worker
from annotations.models import Assignment
from bundles.services import study_import_bundle
from protocols.review.models import ReviewAnswer, ReviewItem
from tests.annotations.statements import one_transaction, sent
from tests.reviews.bundles import write_review_bundle

pytestmark = pytest.mark.django_db

GOOD = {"span": "Error", "explanation": "Correct", "flags": ["Repeated"], "comment": "fine"}


@pytest.fixture
def assignment(tmp_path):
    study = study_import_bundle(directory=write_review_bundle(tmp_path)).study
    return Assignment.objects.create(study=study, document=study.documents.get(external_id="game1"),
                                     worker=Worker.objects.create(platform="link", external_id="rev"))  # fmt: skip


def test_an_answer_sends_four_statements_and_a_new_one_replaces_the_old(client, assignment):
    item = ReviewItem.objects.filter(document=assignment.document).first()
    for answers in (GOOD, {**GOOD, "comment": "on second thought"}):
        response, statements = sent(
            client, "post", "task-api-answers", assignment, {"item": item.pk, "answers": answers}
        )
        assert response.json() == {"item": item.pk, "answers": answers}
        assert len(statements) == 4 and one_transaction(statements), "\n".join(statements)
    assert list(ReviewAnswer.objects.values_list("answers", flat=True)) == [
        {**GOOD, "comment": "on second thought"}
    ]


@pytest.mark.parametrize("item", ["another document's", 2**70, -1, "7"])
def test_an_answer_names_an_item_of_the_reviewers_own_document(client, assignment, item):
    if item == "another document's":
        item = ReviewItem.objects.exclude(document=assignment.document).first().pk
    response = sent(client, "post", "task-api-answers", assignment, {"item": item, "answers": GOOD})[0]
    assert response.status_code == 400 and "not an item of this document" in response.json()["error"]
    assert not ReviewAnswer.objects.exists()


def test_an_answer_after_submit_is_409(client, assignment):
    Assignment.objects.filter(pk=assignment.pk).update(status=Assignment.Status.SUBMITTED)
    item = ReviewItem.objects.filter(document=assignment.document).first()
    assert (
        sent(client, "post", "task-api-answers", assignment, {"item": item.pk, "answers": GOOD})[
            0
        ].status_code
        == 409
    )


def test_a_submit_sends_four_statements(client, assignment):
    """Every item answered is a condition of the UPDATE (review_complete): BEGIN, the locking
    SELECT, the UPDATE, COMMIT; the items and answers are read only when something is left."""
    for item in ReviewItem.objects.filter(document=assignment.document):
        sent(client, "post", "task-api-answers", assignment, {"item": item.pk, "answers": GOOD})
    response, statements = sent(client, "post", "task-api-submit", assignment)
    assert response.status_code == 200 and response.json()["status"] == "submitted"
    assert len(statements) == 4 and one_transaction(statements), "\n".join(statements)


@pytest.mark.parametrize(
    "last",
    [
        "unanswered",
        {k: v for k, v in GOOD.items() if k != "explanation"},
        {**GOOD, "explanation": ""},
        {**GOOD, "explanation": None},
        {k: v for k, v in GOOD.items() if k != "span"},
    ],
    ids=["no answer row", "a required question left out", "empty", "null", "the other required one left out"],
)
def test_a_submit_with_one_item_not_fully_answered_says_so_and_stays_open(client, assignment, last):
    """Answers stored by an older page or an import may hold an empty or null required answer:
    the UPDATE's condition counts such an item as left, as review_missing does."""
    items = list(ReviewItem.objects.filter(document=assignment.document))
    for item in items[:-1]:
        ReviewAnswer.objects.create(assignment=assignment, item=item, answers=GOOD)
    if last != "unanswered":
        ReviewAnswer.objects.create(assignment=assignment, item=items[-1], answers=last)
    response, _statements = sent(client, "post", "task-api-submit", assignment)
    assert response.status_code == 400
    assert response.json()["error"] == "answer every item before submitting (1 left)"
    assert Assignment.objects.get(pk=assignment.pk).status != Assignment.Status.SUBMITTED
    # The optional questions (flags, comment) are not needed.
    ReviewAnswer.objects.update_or_create(
        assignment=assignment,
        item=items[-1],
        defaults={"answers": {"span": "Error", "explanation": "Correct"}},
    )
    assert sent(client, "post", "task-api-submit", assignment)[0].json()["status"] == "submitted"
