"""The report's evaluator comparison (figures, run costs, the page) and the review loop back into it."""

import csv
import io
import re

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import StudyMembership, Worker
from annotations.models import Assignment
from evaluators.fake_llm import FakeChatServer, Reply
from evaluators.models import Evaluator, EvaluatorReview
from evaluators.review import ReviewRefused, review_study_create
from evaluators.services import evaluator_run_request
from protocols.review.models import ReviewAnswer, ReviewItem
from reports.models import Report
from reports.study_report import study_report_data
from tests.factories import (
    AssignmentFactory,
    ErrorAnnotationFactory,
    UserFactory,
    WorkerFactory,
    make_span_study,
)

pytestmark = pytest.mark.django_db
ANSWER = '{"errors": [{"category": "CharE", "span": "Anna", "segment": 1, "occurrence": null, "earlier_span": null, "explanation": "who?"}, {"category": "CharE", "span": "Zed", "segment": null, "occurrence": null, "earlier_span": null, "explanation": "nowhere"}]}'


@pytest.fixture
def study(researcher):
    """Three documents; two people mark "Anna" (CharE) in segment 0 of each."""
    study = make_span_study(documents=3, segments=2, researcher=researcher)
    category = study.taxonomy.categories.get(key="CharE")
    people = [WorkerFactory(), WorkerFactory()]
    for document in study.documents.all():
        for worker in people:
            assignment = AssignmentFactory(document=document, study=study, worker=worker, status="submitted")
            ErrorAnnotationFactory(
                assignment=assignment, segment=document.segments.get(index=0), category=category,
                start=25, end=29, text="Anna",
            )  # fmt: skip
    return study


@pytest.fixture
def evaluated(study, django_capture_on_commit_callbacks):
    """An LLM that marks "Anna" in segment 0 (right) and an unplaceable "Zed", with 1,000 + 50 tokens a call."""
    with FakeChatServer(
        responder=lambda body: Reply(ANSWER, prompt_tokens=1000, completion_tokens=50)
    ) as server:
        evaluator = Evaluator.objects.create(
            study=study,
            key="llm-a",
            kind="llm",
            base_url=server.base_url,
            model="m",
            price_input_per_1k="0.2",
        )
        with django_capture_on_commit_callbacks(execute=True):
            evaluator_run_request(evaluator=evaluator)
    return evaluator


def test_the_report_compares_the_evaluator_with_the_people_and_counts_its_cost(study, evaluated):
    report = study_report_data(study)
    comparison = report["evaluator_comparison"]
    assert comparison["evaluators"] == ["llm-a"]
    union = comparison["by_evaluator"]["llm-a"]["categories"]["CharE"]["token"]["union"]
    assert (union["predicted"], union["reference"], union["correct"]) == (3, 3, 3)
    assert union["precision"] == union["recall"] == union["f1"] == 1.0
    runs = comparison["runs"]["llm-a"]
    assert runs["calls"] == 3 and runs["prompt_tokens"] == 3000 and runs["cost"] == pytest.approx(0.6)
    assert runs["items"] == 6 and runs["placed"] == 3 and runs["not_found_rate"] == 0.5
    assert runs["latency_ms_p50"] is not None
    # The people's own figures do not count the evaluator.
    assert len(report["annotators"]) == 2
    assert report["categories"]["CharE"]["spans"] == 6


def test_a_study_without_evaluators_has_no_comparison(study):
    assert "evaluator_comparison" not in study_report_data(study)


def test_the_report_page_shows_the_comparison_escaped(study, evaluated, researcher):
    Evaluator.objects.filter(pk=evaluated.pk).update(key="<b>llm</b>")
    Assignment.objects.filter(kind="model").update(worker=evaluated_worker("<b>llm</b>"))
    report = Report.objects.create(study=study, status="done", result=study_report_data(study))
    client = Client()
    client.force_login(researcher)
    page = client.get(f"/admin/reports/report/{report.pk}/change/").content.decode()
    assert 'id="evaluator-table"' in page and 'id="evaluator-runs-table"' in page
    assert "Token-level F1 over all categories, by evaluator and reference" in page
    assert "<b>llm</b>" not in page and "&lt;b&gt;llm&lt;/b&gt;" in page


def evaluated_worker(key):
    return Worker.objects.create(platform="model", external_id=key)


def test_a_review_study_of_the_spans_feeds_reviewed_precision_back(study, evaluated, researcher):
    review = review_study_create(evaluators=[evaluated], slug="llm-review", user=researcher)
    assert review.protocol == "review" and review.documents.count() == 3
    items = ReviewItem.objects.filter(document__study=review).order_by("document__position", "position")
    assert items.count() == 6
    assert {item.label for item in items} == {"Evaluator A"}
    assert [item.span_status for item in items[:2]] == ["found", "not_found"]
    assert items[0].explanation == "CharE: who?" and items[0].locations == [[0, 25, 29]]
    # Two reviewers: the found spans are errors, the unplaceable ones are not (one reviewer unsure once).
    for reviewer in (WorkerFactory(), WorkerFactory()):
        for document in review.documents.all():
            assignment = AssignmentFactory(
                document=document, study=review, worker=reviewer, status="submitted"
            )
            for item in items.filter(document=document):
                verdict = "Error" if item.span_status == "found" else "Hallucination"
                ReviewAnswer.objects.create(assignment=assignment, item=item, answers={"span": verdict})
    reviewed = study_report_data(study)["evaluator_comparison"]["reviewed"]["llm-a"]
    assert (reviewed["answers"], reviewed["judged_errors"], reviewed["precision"]) == (12, 6, 0.5)
    assert reviewed["categories"]["CharE"]["precision"] == 0.5
    assert EvaluatorReview.objects.get().review == review


def test_no_review_study_before_a_run(study):
    evaluator = Evaluator.objects.create(study=study, key="idle", kind="builtin", detector="repetition")
    with pytest.raises(ReviewRefused, match="run them first"):
        review_study_create(evaluators=[evaluator], slug="idle-review")


def test_the_admin_action_creates_the_review_study(study, evaluated, researcher):
    client = Client()
    client.force_login(researcher)
    response = client.post(
        "/admin/evaluators/evaluator/",
        {"action": "review_spans", "_selected_action": [evaluated.pk]},
        follow=True,
    )
    assert response.status_code == 200
    review = EvaluatorReview.objects.get().review
    assert review.slug == f"{study.slug}-review"
    assert review.memberships.filter(user=researcher, role="researcher").exists()


def test_the_annotation_table_names_evaluators_by_key_and_people_by_pseudonym(study, evaluated):
    analyst = UserFactory(username="analyst-t", is_staff=True)
    StudyMembership.objects.create(study=study, user=analyst, role="analyst")
    client = Client()
    client.force_login(analyst)
    response = client.get(reverse("export-annotations", args=[study.pk, "csv"]))
    body = b"".join(response.streaming_content).decode() if response.streaming else response.content.decode()
    rows = list(csv.DictReader(io.StringIO(body)))
    assert len(rows) == 9
    assert {row["annotator"] for row in rows if row["kind"] == "model"} == {"llm-a"}
    people = {row["annotator"] for row in rows if row["kind"] == "main"}
    assert len(people) == 2 and all(re.fullmatch(r"A[0-9a-f]{10}", name) for name in people)
    assert "worker-" not in body
