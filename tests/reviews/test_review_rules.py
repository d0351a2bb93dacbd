"""The rules of a study's review questions: an option only for items with a given span
status, a flag only together with an option of another question."""

import json

import pytest
from django.urls import reverse

from accounts.models import Worker
from annotations.models import Assignment
from bundles import BundleInvalid
from bundles.services import study_import_bundle
from protocols.review.models import ReviewAnswer, ReviewItem
from protocols.review.questions import DEFAULT_QUESTIONS, check_questions
from tests.reviews.bundles import write_review_bundle

pytestmark = pytest.mark.django_db


@pytest.fixture
def study(tmp_path):
    return study_import_bundle(directory=write_review_bundle(tmp_path)).study


def assignment_on(study, document):
    return Assignment.objects.create(study=study, document=study.documents.get(external_id=document),
                                     worker=Worker.objects.create(platform="link", external_id=f"rev-{document}"))  # fmt: skip


def answer(client, assignment, item, answers):
    return client.post(
        reverse("task-api-answers", args=[assignment.token]),
        json.dumps({"item": item.pk, "answers": answers}),
        content_type="application/json",
    )


def item(study, document, position):
    return ReviewItem.objects.get(document__study=study, document__external_id=document, position=position)


def test_no_span_given_is_refused_for_an_item_whose_span_was_found(client, study):
    assignment = assignment_on(study, "game1")
    found, empty = item(study, "game1", 0), item(study, "game1", 4)
    assert (found.span_status, empty.span_status) == ("found", "no_span")
    refused = answer(client, assignment, found, {"span": "No span given", "explanation": "Correct"})
    assert refused.status_code == 400
    assert refused.json()["error"] == (
        "span: 'No span given' is only for items whose span is not given "
        "(this item's span is found in the output)"
    )
    assert not ReviewAnswer.objects.exists()
    assert (
        answer(client, assignment, empty, {"span": "No span given", "explanation": "Vague"}).status_code
        == 200
    )
    assert answer(client, assignment, found, {"span": "Error", "explanation": "Correct"}).status_code == 200


def test_hallucination_only_for_a_span_not_found(client, study):
    missing = item(study, "game2", 0)
    assert missing.span_status == "not_found"
    ok = answer(client, assignment_on(study, "game2"), missing, {"span": "Hallucination"})
    assert ok.status_code == 200
    refused = answer(
        client, assignment_on(study, "game1"), item(study, "game1", 3), {"span": "Hallucination"}
    )
    assert refused.status_code == 400 and "only for items whose span is not found" in refused.json()["error"]


def test_too_strict_flag_only_with_not_an_error(client, study):
    assignment, found = assignment_on(study, "game1"), item(study, "game1", 0)
    refused = answer(client, assignment, found, {"span": "Error", "flags": ["Too strict"]})
    assert refused.status_code == 400
    assert refused.json()["error"] == "flags: 'Too strict' goes only with Error span OK? = 'Not an error'"
    assert answer(client, assignment, found, {"flags": ["Too strict"]}).status_code == 400
    accepted = answer(
        client, assignment, found, {"span": "Not an error", "flags": ["Too strict", "Repeated"]}
    )
    assert accepted.status_code == 200
    assert ReviewAnswer.objects.get().answers["flags"] == ["Too strict", "Repeated"]


def test_the_default_questions_pass_their_own_checks():
    assert check_questions(DEFAULT_QUESTIONS) == []


def bad_rules():
    span, explanation, flags, comment = (dict(question) for question in DEFAULT_QUESTIONS)
    span["only_for_span"] = {"Maybe": ["no_span"], "Hallucination": ["missing"]}
    explanation["requires"] = {"Correct": {"span": ["Error"]}}
    flags["requires"] = {"Too strict": {"comment": ["x"]}, "Repeated": {"span": ["Perhaps"]}}
    comment["only_for_span"] = {"x": ["found"]}
    return [span, explanation, flags, comment]


def test_bad_rules_are_problems_of_study_yaml_with_the_question_line(tmp_path):
    with pytest.raises(BundleInvalid) as caught:
        study_import_bundle(directory=write_review_bundle(tmp_path, questions=bad_rules()))
    problems = [str(problem) for problem in caught.value.problems]
    lines = {problem.line for problem in caught.value.problems}
    assert all(text.startswith("study.yaml:") for text in problems)
    assert len(lines) > 1, "each problem points at its own question"
    messages = [problem.message for problem in caught.value.problems]
    for expected in [
        "question span: only_for_span: 'Maybe' is not one of its options",
        "question span: only_for_span: 'Hallucination' needs a list of span statuses (found, not_found, no_span)",
        "question explanation: 'requires' is for multi-choice questions: {option: {question key: [options]}}",
        "question flags: requires: 'comment' is not another single-choice question",
        "question flags: requires: 'Repeated' needs a list of options of 'span'",
        "question comment: 'only_for_span' must map options to span statuses, e.g. {Hallucination: [not_found]}",
    ]:
        assert f"config.questions: {expected}" in messages


def test_a_misspelt_rule_is_not_ignored(tmp_path):
    questions = [dict(DEFAULT_QUESTIONS[0], only_for_spans={"No span given": ["no_span"]})]
    with pytest.raises(BundleInvalid) as caught:
        study_import_bundle(directory=write_review_bundle(tmp_path, questions=questions))
    assert "config.questions: question span: unknown field(s) only_for_spans" in [
        problem.message for problem in caught.value.problems
    ]
