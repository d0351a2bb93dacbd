"""The report's `document_questions`: answer counts, and per Likert question how each
annotator's error counts go with their own holistic rating (SNaC, Table 3).

The worked example, four (annotator, document) pairs of submitted main assignments:

    pair      CharE  RepE  all  rating
    A on d1     0     1     1     5
    B on d1     1     0     1     4
    A on d2     2     1     3     2
    B on d2     3     0     3     3

Ratings: mean 3.5, deviations 1.5, .5, -1.5, -.5, sum of squares 5, sample SD sqrt(5/3).

CharE, Pearson: x deviations -1.5, -.5, .5, 1.5 (sum of squares 5); sum of products
-2.25 - .25 - .75 - .75 = -4, so r = -4 / sqrt(5 * 5) = -0.8. Spearman: ranks of x
1 2 3 4, of the ratings 4 3 1 2, d = -3 -1 2 2, sum d^2 = 18, rho = 1 - 6 * 18 / (4 * 15)
= -0.8. With n - 2 = 2 degrees of freedom t / sqrt(t^2 + 2) = |r|, so the two-sided
p-value is 1 - |r| = 0.2 for both.

RepE: x deviations .5, -.5, .5, -.5; products .75 - .25 - .75 + .25 = 0, so r = 0 and
p = 1. The ranks of x tie (1.5 3.5 1.5 3.5 after ranking 0 0 1 1 as 1.5, 3.5): rank
deviations 1 -1 1 -1 against 1.5 .5 -1.5 -.5 sum to 0 too, so rho = 0, p = 1.

all: x = 1 1 3 3, deviations -1 -1 1 1 (sum of squares 4); products -1.5 - .5 - 1.5 - .5
= -4, r = -4 / sqrt(4 * 5) = -2 / sqrt(5) = -0.894427; the ranks 1.5 1.5 3.5 3.5 have the
same deviations, so rho = r; p = 1 - 2 / sqrt(5) = 0.105573.

SceneE and InconE: nobody marked one, every count is 0: no correlation (null, reason).
"""

import json
import math
import random
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from django.template.loader import render_to_string
from scipy import stats

from annotations.models import Assignment
from bundles.services import study_import_bundle
from protocols.span.models import DocumentAnswer
from reports.metrics.spans.holistic import (
    DocumentAnswers,
    DocumentQuestion,
    correlation,
    document_questions_report,
)
from reports.page import report_page_context
from reports.study_report import study_report_data
from tests.bundles import DOCUMENTS, annotation
from tests.factories import AssignmentFactory, WorkerFactory
from tests.span_questions.questions import questions
from tests.span_questions.test_bundles import write_question_bundle

ROOT = Path(__file__).resolve().parents[2]
COHERENCE = DocumentQuestion("coherence", "likert", "How coherent?", low=1, high=5)
BETTER = DocumentQuestion(
    "better", "single", "Better?", options=("this one", "the other one", "no difference")
)
PROBLEMS = DocumentQuestion("problems", "multi", "Problems?", options=("names", "time jumps", "repetition"))
NOTES = DocumentQuestion("notes", "text", "Notes")
CATEGORIES = ["CharE", "SceneE", "InconE", "RepE"]

WORKED = [
    DocumentAnswers("A", "d1", {"coherence": 5, "better": "this one", "problems": ["names", "repetition"],
                                "notes": "x"}, {"RepE": 1}),
    DocumentAnswers("B", "d1", {"coherence": 4, "better": "this one"}, {"CharE": 1}),
    DocumentAnswers("A", "d2", {"coherence": 2, "better": "no difference"}, {"CharE": 2, "RepE": 1}),
    DocumentAnswers("B", "d2", {"coherence": 3, "problems": ["names"]}, {"CharE": 3}),
    # Read and marked, but not rated: in no correlation, and not in the counts of answers.
    DocumentAnswers("C", "d1", {}, {"CharE": 4}),
]  # fmt: skip
NO_VARIANCE = "every error count is 0: no variance"


FIELDS = ("pearson_r", "pearson_p", "spearman_rho", "spearman_p")


def undefined(n, reason):
    return {"n": n, **dict.fromkeys(FIELDS), **{f"{key}_reason": reason for key in FIELDS}}


def defined(n, r, p):
    approx = pytest.approx
    return {
        "n": n,
        "pearson_r": approx(r),
        "pearson_p": approx(p),
        "spearman_rho": approx(r),
        "spearman_p": approx(p),
    }


def expected_worked_report():
    root5 = math.sqrt(5)
    return {
        "coherence": {
            "position": 0, "label": "How coherent?", "kind": "likert", "answered": 4, "assignments": 5,
            "scale": {"min": 1, "max": 5}, "counts": {"1": 0, "2": 1, "3": 1, "4": 1, "5": 1},
            "mean": 3.5, "sd": pytest.approx(math.sqrt(5 / 3)), "n": 4,
            "correlations": {
                "all": defined(4, -2 / root5, 1 - 2 / root5),
                "CharE": defined(4, -0.8, 0.2),
                "SceneE": undefined(4, NO_VARIANCE),
                "InconE": undefined(4, NO_VARIANCE),
                "RepE": {"n": 4, "pearson_r": pytest.approx(0, abs=1e-12), "pearson_p": pytest.approx(1),
                         "spearman_rho": pytest.approx(0, abs=1e-12), "spearman_p": pytest.approx(1)},
            },
        },
        "better": {"position": 1, "label": "Better?", "kind": "single", "answered": 3, "assignments": 5,
                   "options": ["this one", "the other one", "no difference"],
                   "counts": {"this one": 2, "the other one": 0, "no difference": 1}},
        "problems": {"position": 2, "label": "Problems?", "kind": "multi", "answered": 2, "assignments": 5,
                     "options": ["names", "time jumps", "repetition"],
                     "counts": {"names": 2, "time jumps": 0, "repetition": 1}},
        "notes": {"position": 3, "label": "Notes", "kind": "text", "answered": 1, "assignments": 5},
    }  # fmt: skip


def test_the_worked_example_by_hand():
    report = document_questions_report([COHERENCE, BETTER, PROBLEMS, NOTES], WORKED, CATEGORIES)

    assert report == expected_worked_report()
    assert list(report["coherence"]["correlations"]) == ["all", *CATEGORIES]


def independent(x, y):
    """Pearson with numpy's corrcoef; Spearman as Pearson of ranks made apart; p from the t distribution."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    n = len(x)

    def with_p(r):
        t = r * math.sqrt((n - 2) / (1 - r * r))
        return r, 2 * stats.t.sf(abs(t), n - 2)

    r, p = with_p(np.corrcoef(x, y)[0, 1])
    rho, rho_p = with_p(np.corrcoef(stats.rankdata(x), stats.rankdata(y))[0, 1])
    return {"n": n, "pearson_r": r, "pearson_p": p, "spearman_rho": rho, "spearman_p": rho_p}


def test_the_worked_example_against_an_independent_computation():
    rated = WORKED[:4]
    correlations = document_questions_report([COHERENCE], WORKED, CATEGORIES)["coherence"]["correlations"]
    ratings = [a.answers["coherence"] for a in rated]

    for key in ("CharE", "all"):
        counts = [sum(a.errors.values()) if key == "all" else a.errors.get(key, 0) for a in rated]
        assert correlations[key] == pytest.approx(independent(counts, ratings))


def test_a_larger_random_study_against_an_independent_computation():
    rng = random.Random(7)
    assignments = [
        DocumentAnswers(f"w{n % 6}", f"d{n // 6}", {"coherence": rng.randint(1, 7)},
                        {"CharE": rng.randint(0, 5), "RepE": rng.choice([0, 0, 1, 2])})
        for n in range(60)
    ]  # fmt: skip
    scale = DocumentQuestion("coherence", "likert", "Coherence", low=1, high=7)

    report = document_questions_report([scale], assignments, ["CharE", "RepE"])["coherence"]

    ratings = [a.answers["coherence"] for a in assignments]
    for key in ("CharE", "RepE", "all"):
        counts = [sum(a.errors.values()) if key == "all" else a.errors.get(key, 0) for a in assignments]
        assert report["correlations"][key] == pytest.approx(independent(counts, ratings))
    assert report["mean"] == pytest.approx(np.mean(ratings))
    assert report["sd"] == pytest.approx(np.std(ratings, ddof=1))
    assert sum(report["counts"].values()) == report["n"] == 60


@pytest.mark.parametrize(
    ("counts", "ratings", "reason"),
    [
        ([], [], "fewer than 3 rated documents (n = 0)"),
        ([1, 2], [3, 4], "fewer than 3 rated documents (n = 2)"),
        ([0, 0, 0, 0], [1, 2, 3, 4], "every error count is 0: no variance"),
        ([2, 2, 2], [1, 2, 3], "every error count is 2: no variance"),
        ([0, 1, 2], [4, 4, 4], "every rating is 4: no variance"),
    ],
)
def test_undefined_correlations_are_null_with_a_reason(counts, ratings, reason):
    assert correlation(counts, ratings) == undefined(len(counts), reason)


def test_no_rating_at_all_gives_null_mean_and_sd_with_reasons():
    report = document_questions_report([COHERENCE], [WORKED[4]], CATEGORIES)["coherence"]

    assert (report["mean"], report["mean_reason"]) == (None, "no ratings")
    assert (report["sd"], report["sd_reason"]) == (None, "fewer than two ratings")
    assert report["n"] == 0 and report["answered"] == 0 and report["assignments"] == 1
    assert report["correlations"]["all"] == undefined(0, "fewer than 3 rated documents (n = 0)")
    json.dumps(report)  # JSON-ready: no numpy numbers


def test_the_metric_loads_no_django():
    check = (
        "import reports.metrics.spans.holistic, sys; "
        "assert not any(m == 'django' or m.startswith('django.') for m in sys.modules)"
    )
    completed = subprocess.run([sys.executable, "-c", check], cwd=ROOT, capture_output=True, text=True)
    assert completed.returncode == 0, completed.stderr


# The same example through the database: the study report ------------------------------

d2_second = DOCUMENTS[1]["segments"][1]
ELODIE = d2_second.index("Élodie")
REPEATED = {"segment": 0, "start": 0, "end": 3, "text": "Tom"}
BUNDLE_LINES = [
    {"document": "d1", "annotator": "A", "annotations": [
        annotation(1, "RepE", 23, 41, "Anna met Ben again",
                   paired={"segment": 0, "start": 0, "end": 12, "text": "Anna met Ben"})],
     "document_answers": {"coherence": 5, "better": "this one", "problems": ["names", "repetition"], "notes": "x"}},
    {"document": "d1", "annotator": "B", "annotations": [annotation(1, "CharE", 0, 13, "Miss Sessions")],
     "document_answers": {"coherence": 4, "better": "this one"}},
    {"document": "d1", "annotator": "C", "annotations": [annotation(0, "CharE", 0, 4, "Anna")] * 4},
    {"document": "d2", "annotator": "A", "annotations": [
        annotation(0, "CharE", 0, 3, "Tom"), annotation(0, "CharE", 6, 11, "Jerry"),
        annotation(1, "RepE", ELODIE, ELODIE + 6, "Élodie", paired=REPEATED)],
     "document_answers": {"coherence": 2, "better": "no difference"}},
    {"document": "d2", "annotator": "B", "annotations": [
        annotation(0, "CharE", 0, 3, "Tom"), annotation(0, "CharE", 6, 11, "Jerry"),
        annotation(1, "CharE", ELODIE, ELODIE + 6, "Élodie")],
     "document_answers": {"coherence": 3, "problems": ["names"]}},
    # An expert's gold rating never mixes into the crowd's figures.
    {"document": "d2", "annotator": "E", "platform": "expert", "kind": "gold",
     "annotations": [annotation(0, "CharE", 0, 3, "Tom")], "document_answers": {"coherence": 1}},
]  # fmt: skip


@pytest.fixture
def study(tmp_path, db):
    config = {"document_questions": [{**q, "label": label} for q, label in zip(
        questions(), ["How coherent?", "Better?", "Problems?", "Notes"], strict=True)]}  # fmt: skip
    study = study_import_bundle(directory=write_question_bundle(tmp_path, BUNDLE_LINES, config=config)).study
    # Work in progress is not in the report either.
    open_work = AssignmentFactory(document=study.documents.get(external_id="d1"), worker=WorkerFactory())
    DocumentAnswer.objects.create(assignment=open_work, answers={"coherence": 1})
    assert open_work.status != Assignment.Status.SUBMITTED
    return study


def test_the_study_report_has_the_worked_example(study):
    result = study_report_data(study)

    assert result["document_questions"] == expected_worked_report()
    json.dumps(result)


def test_a_study_without_questions_has_no_document_questions_key(tmp_path, db):
    lines = [{k: v for k, v in line.items() if k != "document_answers"} for line in BUNDLE_LINES]
    study = study_import_bundle(directory=write_question_bundle(tmp_path, lines, config={})).study

    assert "document_questions" not in study_report_data(study)


def test_the_report_page_shows_the_answers_and_the_correlations(study, rf):
    report = SimpleNamespace(status="done", result=study_report_data(study), study=study, is_active=False,
                             pk=1, created_at="today", requested_by=None)  # fmt: skip
    context = report_page_context(report)
    request = rf.get("/")
    request.user = SimpleNamespace(
        is_active=True, is_staff=True, is_authenticated=True, get_username=lambda: "r"
    )

    page = render_to_string("admin/reports/report/page.html", {**context, "report": report}, request=request)

    assert "Questions about the whole text" in page
    assert "Answered in 4 of 5 assignments." in page and "Mean 3.50, SD 1.29, n = 4." in page
    assert 'id="question-coherence-counts"' in page and 'id="question-better-counts"' in page
    assert "<tr><td>this one</td><td>2</td></tr>" in page
    assert (
        "<tr><td>all</td><td>4</td><td>-0.894</td><td>0.106</td><td>-0.894</td><td>0.106</td><td></td></tr>"
        in page
    )
    assert (
        "<tr><td>CharE</td><td>4</td><td>-0.800</td><td>0.200</td><td>-0.800</td><td>0.200</td><td></td></tr>"
        in page
    )
    assert (
        "<tr><td>SceneE</td><td>4</td><td>n/a</td><td>n/a</td><td>n/a</td><td>n/a</td>"
        "<td>every error count is 0: no variance</td></tr>"
    ) in page
    assert 'id="question-notes-correlations"' not in page
