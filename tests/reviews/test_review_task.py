"""Reviewers answering through the task API, and the review page's data."""

import json

import pytest
from django.urls import reverse

from accounts.models import Worker
from annotations.models import Assignment
from bundles.services import study_import_bundle
from protocols.review.models import ReviewAnswer, ReviewItem
from protocols.review.selectors import review_page_data
from tests.reviews.bundles import write_review_bundle

pytestmark = pytest.mark.django_db


@pytest.fixture
def assignment(tmp_path):
    study = study_import_bundle(directory=write_review_bundle(tmp_path)).study
    return Assignment.objects.create(study=study, document=study.documents.get(external_id="game1"),
                                     worker=Worker.objects.create(platform="link", external_id="rev"))  # fmt: skip


def post(client, name, assignment, body):
    return client.post(
        reverse(name, args=[assignment.token]), json.dumps(body), content_type="application/json"
    )


def test_answers_are_checked_saved_and_submit_needs_every_item(client, assignment):
    items = list(ReviewItem.objects.filter(document=assignment.document).order_by("position"))
    good = {"span": "Error", "explanation": "Correct", "flags": ["Repeated"], "comment": "fine"}
    assert (
        post(client, "task-api-answers", assignment, {"item": items[0].pk, "answers": good}).status_code
        == 200
    )
    assert ReviewAnswer.objects.get().answers == good
    bad = post(client, "task-api-answers", assignment, {"item": items[0].pk, "answers": {"span": "Maybe"}})
    assert bad.status_code == 400 and "'Maybe' is not one of its options" in bad.json()["error"]
    other = ReviewItem.objects.exclude(document=assignment.document).first()
    assert (
        "not an item of this document"
        in post(client, "task-api-answers", assignment, {"item": other.pk, "answers": good}).json()["error"]
    )
    assert (
        post(client, "task-api-submit", assignment, {}).json()["error"]
        == "answer every item before submitting (4 left)"
    )
    for item in items[1:]:
        post(
            client,
            "task-api-answers",
            assignment,
            {"item": item.pk, "answers": {"span": "Error", "explanation": "Vague"}},
        )
    assert post(client, "task-api-submit", assignment, {}).status_code == 200
    state = client.get(reverse("task-api-state", args=[assignment.token])).json()
    assert state["status"] == "submitted" and len(state["answers"]) == 5


def test_page_data_has_labels_and_colours_never_real_names(client, assignment):
    data = review_page_data(assignment)
    text = json.dumps(data)
    for name in ["gpt-4o", "llama-70b", "claude"]:
        assert name not in text
    assert [e["label"] for e in data["evaluators"]] == ["Evaluator A", "Evaluator B", "Evaluator C"]
    assert len({e["color"] for e in data["evaluators"]}) == 3
    assert data["document"]["data"]["tables"][0]["rows"][1][0] == "<b>LaVine</b>"


def test_export_has_a_row_per_item_and_reviewer_with_every_answer(client, tmp_path, researcher):
    import csv
    import io

    from tests.reviews.test_review_import_and_report import ANSWERS

    study = study_import_bundle(directory=write_review_bundle(tmp_path / "x", answers=ANSWERS, slug="exported"),
                                user=researcher).study  # fmt: skip
    client.force_login(researcher)
    response = client.get(reverse("export-annotations", args=[study.pk, "csv"]))
    rows = list(csv.DictReader(io.StringIO(b"".join(response.streaming_content).decode())))
    assert len(rows) == 10
    first = rows[0]
    assert (
        first["document"],
        first["item"],
        first["evaluator_label"],
        first["explanation"],
        first["answer.span"],
        first["answer.explanation"],
    ) == ("game1", "0", "Evaluator A", "Young scored 28, not 30.", "Error", "Correct")
    hard = [row for row in rows if row["item"] == "3"]
    assert [row["answer.flags"] for row in hard] == ["Hard to parse", "Hard to parse"] and hard[0][
        "answer.comment"
    ] == "odd"


def test_review_page_html_never_names_an_evaluator(client, assignment):
    page = client.get(reverse("task-annotate", args=[assignment.token]))
    html = page.content.decode()
    assert page.status_code == 200 and 'id="task-data"' in html
    for name in ["gpt-4o", "llama-70b", "claude"]:
        assert name not in html
    assert "<script>alert(1)" not in html
