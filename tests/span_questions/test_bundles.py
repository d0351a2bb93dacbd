"""assignments.jsonl lines of a span study carry `document_answers`: checked like the task
API's answers (file:line: message, nothing written), stored, exported back unchanged."""

import json

import pytest
from django.core.management import call_command

from bundles import BundleInvalid
from bundles.services import study_export_bundle, study_import_bundle
from protocols.span.models import DocumentAnswer
from studies.models import Study
from tests.bundles import annotation, study_yaml, write_bundle
from tests.span_questions.questions import questions
from tests.studies.test_roundtrip import empty_database, read_all

pytestmark = pytest.mark.django_db

LINES = [
    {"document": "d1", "annotator": "w1", "block": "7", "active_seconds": 310,
     "submitted_at": "2026-03-01T12:00:00Z",
     "annotations": [annotation(1, "CharE", 0, 13, "Miss Sessions", comment="who is she?")],
     # Given out of order: stored and exported in the questions' (and options') order.
     "document_answers": {"notes": "Ends =SUM(A1) <b>abruptly</b>.\nTwo lines.", "problems": ["repetition", "names"],
                          "coherence": 2, "better": "the other one"}},
    {"document": "d2", "annotator": "w2", "annotations": [], "document_answers": {"coherence": 5}},
    {"document": "d2", "annotator": "expert", "platform": "expert", "kind": "gold",
     "annotations": [annotation(0, "CharE", 28, 29, "😀")]},
]  # fmt: skip


def write_question_bundle(directory, lines=LINES, config=None):
    config = {"document_questions": questions()} if config is None else config
    return write_bundle(directory, study=study_yaml(config=config), assignments=lines)


def bundle_problems(tmp_path, lines, **options):
    with pytest.raises(BundleInvalid) as caught:
        study_import_bundle(directory=write_question_bundle(tmp_path, lines, **options))
    return [str(problem) for problem in caught.value.problems]


def test_import_stores_the_answers_of_each_line(tmp_path):
    study = study_import_bundle(directory=write_question_bundle(tmp_path)).study

    answers = {
        (row.assignment.document.external_id, row.assignment.worker.external_id): row.answers
        for row in DocumentAnswer.objects.filter(assignment__study=study).select_related(
            "assignment__document", "assignment__worker"
        )
    }
    assert answers == {
        ("d1", "w1"): {"coherence": 2, "better": "the other one", "problems": ["names", "repetition"],
                       "notes": "Ends =SUM(A1) <b>abruptly</b>.\nTwo lines."},
        ("d2", "w2"): {"coherence": 5},
    }  # fmt: skip


def test_export_import_export_is_identical(tmp_path):
    study_import_bundle(directory=write_question_bundle(tmp_path / "in"))
    call_command("export_study", "bundle-study", str(tmp_path / "first"))

    empty_database()
    call_command("import_study", str(tmp_path / "first"))
    call_command("export_study", "bundle-study", str(tmp_path / "second"))

    first, second = read_all(tmp_path / "first"), read_all(tmp_path / "second")
    assert first == second
    lines = [json.loads(line) for line in first["assignments.jsonl"].decode().splitlines()]
    assert [line.get("document_answers") for line in lines] == [
        {"coherence": 2, "better": "the other one", "problems": ["names", "repetition"],
         "notes": "Ends =SUM(A1) <b>abruptly</b>.\nTwo lines."},
        None,  # the expert's gold line answered nothing: no key at all
        {"coherence": 5},
    ]  # fmt: skip
    assert '"coherence": 2, "better": "the other one"' in first["assignments.jsonl"].decode()
    assert "document_questions" in first["study.yaml"].decode()


def test_a_study_without_questions_exports_as_before(tmp_path):
    lines = [{key: value for key, value in line.items() if key != "document_answers"} for line in LINES]
    study = study_import_bundle(directory=write_question_bundle(tmp_path / "in", lines, config={})).study
    study_export_bundle(study=study, directory=tmp_path / "out")

    assert "document_answers" not in (tmp_path / "out" / "assignments.jsonl").read_text()


@pytest.mark.parametrize(
    ("answers", "message"),
    [
        ({"fluency": 3}, "document_answers: unknown question 'fluency' (this study asks coherence, better, problems, notes)"),
        ({"coherence": 9}, "document_answers: coherence: give a whole number from 1 to 5, not 9"),
        ({"coherence": "3"}, "document_answers: coherence: give a whole number from 1 to 5, not '3'"),
        ({"better": "both"}, "document_answers: better: 'both' is not one of its options (this one, the other one, no difference)"),
        ({"problems": "names"}, "document_answers: problems: give a list of its options (names, time jumps, repetition)"),
        ({"problems": ["names", "names"]}, "document_answers: problems: an option is given more than once"),
        ({"notes": "x" * 2001}, "document_answers: notes: give a text of at most 2,000 characters"),
        (["coherence", 3], "'document_answers' must be an object {question key: answer}"),
    ],
)  # fmt: skip
def test_a_bad_answer_is_reported_with_its_line_and_nothing_is_written(tmp_path, answers, message):
    lines = [dict(line) for line in LINES]
    lines[1]["document_answers"] = answers

    assert bundle_problems(tmp_path, lines) == [f"assignments.jsonl:2: {message}"]
    assert not Study.objects.exists()
    assert not DocumentAnswer.objects.exists()


def test_every_bad_answer_of_every_line_is_reported(tmp_path):
    lines = [dict(line) for line in LINES]
    lines[0]["document_answers"] = {"coherence": 0, "better": "both", "notes": "fine"}
    lines[2]["document_answers"] = {"mood": "grim"}

    assert bundle_problems(tmp_path, lines) == [
        "assignments.jsonl:1: document_answers: coherence: give a whole number from 1 to 5, not 0",
        "assignments.jsonl:1: document_answers: better: 'both' is not one of its options (this one, the other one, "
        "no difference)",
        "assignments.jsonl:3: document_answers: unknown question 'mood' (this study asks coherence, better, "
        "problems, notes)",
    ]


def test_answers_in_a_study_without_questions_are_refused(tmp_path):
    assert bundle_problems(tmp_path, LINES[1:2], config={}) == [
        "assignments.jsonl:1: document_answers: unknown question 'coherence' (config.document_questions has none)"
    ]


def test_required_questions_may_stay_unanswered_in_imported_work(tmp_path):
    # Work from before the questions existed (e.g. FALTE's own data) still imports.
    study = study_import_bundle(directory=write_question_bundle(tmp_path, LINES[2:])).study

    assert study.assignments.count() == 1
    assert not DocumentAnswer.objects.exists()


def test_broken_questions_are_reported_once_with_study_yaml(tmp_path):
    broken = questions()
    broken[0]["kind"] = "stars"

    problems = bundle_problems(tmp_path, LINES, config={"document_questions": broken})

    assert len(problems) == 1
    assert "config.document_questions: question 1 (coherence): 'kind' must be one of" in problems[0]
    assert problems[0].startswith("study.yaml:")
