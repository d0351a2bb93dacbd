"""What a Likert rating and a best-worst judgment cost the database, and that the cheap path keeps
their guarantees: BEGIN, the opening UPDATE (which also finds the documents named), one UPSERT,
COMMIT; the same answer again changes nothing, a new one replaces it, a closed block takes none."""

import pytest

from accounts.models import Worker
from annotations.models import Assignment
from annotations.services.blocks import block_assignment_create
from bundles.services import study_import_bundle
from protocols.rating.models import BestWorstJudgment, Rating
from tests.annotations.statements import one_transaction, refused_submit, sent
from tests.rating_bundles import write_rating_bundle

pytestmark = pytest.mark.django_db


@pytest.fixture
def likert(tmp_path):
    study = study_import_bundle(
        directory=write_rating_bundle(tmp_path, config={"scale": {"min": 1, "max": 5}})
    ).study
    return block_assignment_create(study=study, worker=Worker.objects.create(platform="link", external_id="w"),
                                   block="b1")  # fmt: skip


@pytest.fixture
def bws(tmp_path):
    study = study_import_bundle(directory=write_rating_bundle(tmp_path, protocol="bws", slug="bws")).study
    return block_assignment_create(study=study, worker=Worker.objects.create(platform="link", external_id="w"),
                                   block="b2")  # fmt: skip


def external_ids(assignment):
    return dict(assignment.study.documents.values_list("id", "external_id"))


def test_a_rating_sends_four_statements_and_a_new_score_replaces_the_old(client, likert):
    document = external_ids(likert)[likert.items[0]]
    for score in (4, 2, 2):
        response, statements = sent(
            client, "post", "task-api-ratings", likert, {"document": document, "score": score}
        )
        assert response.json() == {"document": document, "score": score}
        assert len(statements) == 4 and one_transaction(statements), "\n".join(statements)
    assert list(Rating.objects.values_list("document__external_id", "score")) == [(document, 2)]
    likert.refresh_from_db()
    assert likert.status == Assignment.Status.IN_PROGRESS and likert.last_activity_at is not None


def test_a_rating_names_a_document_of_the_workers_block(client, likert):
    ids = external_ids(likert)
    outside = next(external for pk, external in ids.items() if pk not in likert.items)
    for document in (outside, "no-such-document", 7):
        response = sent(client, "post", "task-api-ratings", likert, {"document": document, "score": 3})[0]
        assert response.status_code == 400 and "is not in this block" in response.json()["error"]
    assert not Rating.objects.exists()
    assert Assignment.objects.get(pk=likert.pk).last_activity_at is None


def test_a_rating_of_a_submitted_block_is_409(client, likert):
    Assignment.objects.filter(pk=likert.pk).update(status=Assignment.Status.SUBMITTED)
    document = external_ids(likert)[likert.items[0]]
    response = sent(client, "post", "task-api-ratings", likert, {"document": document, "score": 3})[0]
    assert response.status_code == 409 and not Rating.objects.exists()


def test_a_judgment_sends_four_statements_and_a_new_one_replaces_the_old(client, bws):
    ids = external_ids(bws)
    entry = bws.items[0]
    a, b, c = (ids[pk] for pk in entry["documents"])
    for best, worst in ((a, b), (c, a), (c, a)):
        body = {"position": entry["position"], "best": best, "worst": worst, "value": 2}
        response, statements = sent(client, "post", "task-api-judgments", bws, body)
        assert response.json() == {"position": entry["position"], "best": best, "worst": worst, "value": 2}
        assert len(statements) == 4 and one_transaction(statements), "\n".join(statements)
    judgment = BestWorstJudgment.objects.get()
    assert (ids[judgment.best_id], ids[judgment.worst_id], judgment.documents) == (
        c,
        a,
        sorted(entry["documents"]),
    )


def test_a_judgment_of_a_released_block_is_409(client, bws):
    Assignment.objects.filter(pk=bws.pk).update(status=Assignment.Status.RELEASED)
    ids = external_ids(bws)
    a, b, _ = (ids[pk] for pk in bws.items[0]["documents"])
    body = {"position": bws.items[0]["position"], "best": a, "worst": b, "value": 2}
    assert sent(client, "post", "task-api-judgments", bws, body)[0].status_code == 409
    assert not BestWorstJudgment.objects.exists()


def test_a_block_submit_sends_four_statements(client, likert):
    """Submit locks the assignment with what it reads (one SELECT ... FOR UPDATE), asks the protocol
    which of the block's documents have no rating yet, and stores the status and code (one UPDATE)."""
    ids = external_ids(likert)
    for pk in likert.items:
        sent(client, "post", "task-api-ratings", likert, {"document": ids[pk], "score": 3})
    response, statements = sent(client, "post", "task-api-submit", likert)
    assert response.status_code == 200 and response.json()["status"] == "submitted"
    assert len(statements) == 4 and one_transaction(statements), "\n".join(statements)


def test_a_block_submit_with_an_output_left_says_how_many_and_changes_nothing(client, likert):
    ids = external_ids(likert)
    for pk in likert.items[1:]:
        sent(client, "post", "task-api-ratings", likert, {"document": ids[pk], "score": 3})
    assert refused_submit(client, likert) == "rate every output before submitting (1 left)"


def test_a_best_worst_block_is_submitted_in_four_statements(client, bws):
    ids = external_ids(bws)
    for entry in bws.items:
        best, worst = (ids[pk] for pk in entry["documents"][:2])
        body = {"position": entry["position"], "best": best, "worst": worst, "value": 2}
        assert sent(client, "post", "task-api-judgments", bws, body)[0].status_code == 200
    response, statements = sent(client, "post", "task-api-submit", bws)
    assert response.status_code == 200 and response.json()["status"] == "submitted"
    assert len(statements) == 4 and one_transaction(statements), "\n".join(statements)
