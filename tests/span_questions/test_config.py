"""config.document_questions is checked in one place: the admin's study form and the bundle
import both refuse a bad list with a message that names the question and what is wrong."""

import pytest
from django.urls import reverse

from bundles import BundleInvalid
from bundles.services import study_import_bundle
from studies.config import config_problems
from studies.models import Study
from tests.bundles import study_yaml, write_bundle
from tests.factories import make_span_study
from tests.span_questions.questions import questions
from tests.studies.test_config import line_of, study_form_data

pytestmark = pytest.mark.django_db


def messages(value, protocol="span"):
    return [str(problem) for problem in config_problems({"document_questions": value}, protocol=protocol)]


def with_question(**fields):
    """A one-question list: a likert question changed by `fields` (None drops a field)."""
    question = {"key": "coherence", "label": "How coherent?", "kind": "likert", **fields}
    return [{name: value for name, value in question.items() if value is not None}]


def test_the_documented_questions_have_no_problem():
    assert messages(questions()) == []
    assert messages([]) == []  # no question: the page asks nothing after the last segment


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("coherence", "config.document_questions: must be a list of questions {key, label, kind, ...}"),
        ([{"key": f"q{n}", "label": "Q", "kind": "text"} for n in range(21)],
         "config.document_questions: at most 20 questions, not 21"),
        (["coherence"], "config.document_questions: question 1 must be a mapping {key, label, kind}"),
        (with_question(key=None), "config.document_questions: question 1: 'key' is required: 1 to 64 letters, digits, _ and -"),
        (with_question(key="the coherence"), "question 1 (the coherence): 'key' is required: 1 to 64 letters"),
        (with_question(key="a.b"), "question 1 (a.b): 'key' is required"),
        (with_question(key="k" * 65), "'key' is required: 1 to 64"),
        (with_question(label=None), "question 1 (coherence): 'label' is required: the question's text, at most 500"),
        (with_question(label="  "), "question 1 (coherence): 'label' is required"),
        (with_question(label="x" * 501), "'label' is required"),
        (with_question(kind="rating"), "question 1 (coherence): 'kind' must be one of likert, single, multi, text, not 'rating'"),
        (with_question(required="yes"), "question 1 (coherence): 'required' must be true or false"),
        (with_question(help=["a"]), "question 1 (coherence): 'help' must be a text of at most 2,000 characters"),
        (with_question(colour="red"), "question 1 (coherence): unknown field 'colour' (known: key, label, kind, options, scale, required, help)"),
        (with_question(options=["a", "b"]), "question 1 (coherence): a likert question has no 'options' (only single and multi questions do)"),
        (with_question(scale={"min": 1, "max": 20}), "question 1 (coherence): the scale must have from 2 to 11 points (min below max), not 1 to 20"),
        (with_question(scale={"min": 5, "max": 1}), "the scale must have from 2 to 11 points (min below max), not 5 to 1"),
        (with_question(scale={"min": "1", "max": 5}), "question 1 (coherence): scale.min must be a whole number from -100 to 100"),
        (with_question(scale={"max": True}), "scale.max must be a whole number"),
        (with_question(scale={"min": 1, "max": 5, "step": 1}), "question 1 (coherence): unknown scale field 'step' (known: min, max, labels)"),
        (with_question(scale=[1, 5]), "question 1 (coherence): 'scale' must be a mapping {min, max, labels}"),
        (with_question(scale={"max": 5, "labels": {9: "far"}}), "question 1 (coherence): scale.labels: 9 is not a point of the scale"),
        (with_question(scale={"max": 5, "labels": {1: 3}}), "scale.labels: the label of 1 must be a text"),
        ([{"key": "better", "label": "Better?", "kind": "single"}], "question 1 (better): 'options' must be a list of 2 to 20 texts"),
        ([{"key": "better", "label": "Better?", "kind": "single", "options": ["only"]}], "'options' must be a list of 2 to 20 texts"),
        ([{"key": "why", "label": "Why?", "kind": "multi", "options": []}], "question 1 (why): 'options' must be a list of 1 to 20 texts"),
        ([{"key": "why", "label": "Why?", "kind": "multi", "options": [f"o{n}" for n in range(21)]}], "'options' must be a list of 1 to 20"),
        ([{"key": "better", "label": "Better?", "kind": "single", "options": ["A", 2]}], "question 1 (better): option 2 must be a non-empty text of at most 200 characters"),
        ([{"key": "better", "label": "Better?", "kind": "single", "options": ["A", " "]}], "option ' ' must be a non-empty text"),
        ([{"key": "better", "label": "Better?", "kind": "single", "options": ["A", "B", "A"]}], "question 1 (better): options must differ: 'A' more than once"),
        ([{"key": "notes", "label": "Notes", "kind": "text", "scale": {"max": 5}}], "question 1 (notes): a text question has no 'scale' (only likert questions do)"),
        ([{"key": "notes", "label": "Notes", "kind": "text", "options": ["a"]}], "question 1 (notes): a text question has no 'options'"),
        ([*questions(), {"key": "coherence", "label": "Again", "kind": "text"}],
         "config.document_questions: question 5 (coherence): the key 'coherence' is used by an earlier question"),
    ],
)  # fmt: skip
def test_a_bad_question_list_is_refused_with_what_is_wrong(value, expected):
    found = messages(value)

    assert any(expected in message for message in found), found


def test_every_problem_of_a_list_is_reported_at_once():
    value = [
        {"key": "a b", "label": "", "kind": "likert"},
        {"key": "ok", "label": "OK", "kind": "single", "options": ["x"]},
    ]
    assert messages(value) == [
        "config.document_questions: question 1 (a b): 'key' is required: 1 to 64 letters, digits, _ and -",
        "config.document_questions: question 1 (a b): 'label' is required: the question's text, at most 500 characters",
        "config.document_questions: question 2 (ok): 'options' must be a list of 2 to 20 texts",
    ]


def test_document_questions_are_for_span_studies_only():
    assert messages(questions(), protocol="likert") == [
        "config.document_questions: is for span studies, not likert"
    ]


# The bundle import -------------------------------------------------------------------


def test_the_bundle_import_names_the_line_of_the_bad_question_and_writes_nothing(tmp_path):
    bad = questions()
    bad[2]["options"] = ["names", "names"]
    with pytest.raises(BundleInvalid) as caught:
        study_import_bundle(
            directory=write_bundle(tmp_path, study=study_yaml(config={"document_questions": bad}))
        )

    line = line_of(tmp_path, "key: problems")
    assert [str(problem) for problem in caught.value.problems] == [
        f"study.yaml:{line}: config.document_questions: question 3 (problems): options must differ: "
        "'names' more than once"
    ]
    assert not Study.objects.exists()


def test_a_bundle_with_good_questions_imports_them(tmp_path):
    study_import_bundle(
        directory=write_bundle(tmp_path, study=study_yaml(config={"document_questions": questions()}))
    )

    stored = Study.objects.get().config["document_questions"]
    assert [question["key"] for question in stored] == ["coherence", "better", "problems", "notes"]


# The admin's study form --------------------------------------------------------------


def test_the_admin_form_refuses_bad_questions_on_the_config_field(client, researcher):
    study = make_span_study(researcher=researcher)
    client.force_login(researcher)
    url = reverse("admin:studies_study_change", args=[study.pk])
    config = '{"document_questions": [{"key": "coherence", "label": "How coherent?", "kind": "likert", "scale": {"max": 12}}]}'

    response = client.post(url, study_form_data(study, config))

    assert response.status_code == 200
    assert response.context["adminform"].form.errors["config"] == [
        "config.document_questions: question 1 (coherence): the scale must have from 2 to 11 points "
        "(min below max), not 1 to 12"
    ]
    study.refresh_from_db()
    assert study.config == {}


def test_the_admin_form_saves_good_questions(client, researcher):
    study = make_span_study(researcher=researcher)
    client.force_login(researcher)
    url = reverse("admin:studies_study_change", args=[study.pk])
    config = '{"document_questions": [{"key": "coherence", "label": "How coherent?", "kind": "likert"}]}'

    response = client.post(url, study_form_data(study, config))

    assert response.status_code == 302
    study.refresh_from_db()
    assert study.config == {
        "document_questions": [{"key": "coherence", "label": "How coherent?", "kind": "likert"}]
    }
