"""Review studies: evaluator items in, spans located, answers in and out, the report."""

import pytest

from bundles import BundleInvalid
from bundles.services import study_export_bundle, study_import_bundle
from protocols.review.bundle_checks import locate_span
from protocols.review.models import ReviewItem
from reports.study_report import study_report_data
from studies.models import Study
from tests.reviews.bundles import write_review_bundle

pytestmark = pytest.mark.django_db

ANSWERS = [
    {"document": "game1", "annotator": "rev1", "answers": [
        {"item": 0, "answers": {"span": "Error", "explanation": "Correct", "flags": []}},
        {"item": 1, "answers": {"span": "Not an error", "explanation": "Not an error", "flags": ["Too strict"]}},
        {"item": 2, "answers": {"span": "Error", "explanation": "Partially correct", "flags": []}},
        {"item": 3, "answers": {"span": "Hallucination", "explanation": "Vague", "flags": ["Hard to parse"], "comment": "odd"}},
        {"item": 4, "answers": {"span": "No span given", "explanation": "Vague", "flags": []}}]},
    {"document": "game1", "annotator": "rev2", "answers": [
        {"item": 0, "answers": {"span": "Error", "explanation": "Correct", "flags": []}},
        {"item": 1, "answers": {"span": "Error", "explanation": "Incorrect", "flags": []}},
        {"item": 2, "answers": {"span": "Error", "explanation": "Correct", "flags": []}},
        {"item": 3, "answers": {"span": "Hallucination", "explanation": "Vague", "flags": ["Hard to parse"]}},
        {"item": 4, "answers": {"span": "No span given", "explanation": "Incomplete", "flags": []}}]},
]  # fmt: skip


def test_locating_spans_every_occurrence_a_given_one_or_none():
    segments = ["Young scored. Young again.", "And Young."]
    assert locate_span(segments, "Young") == [[0, 0, 5], [0, 14, 19], [1, 4, 9]]
    assert locate_span(segments, "Young", occurrence=3) == [[1, 4, 9]]
    assert locate_span(segments, "Young", occurrence=4) == []
    assert locate_span(segments, "Celtics") == []


def test_items_are_located_and_labelled_without_real_names(tmp_path):
    study_import_bundle(directory=write_review_bundle(tmp_path))
    items = list(ReviewItem.objects.order_by("document__position", "position"))
    assert [(i.label, i.span_status) for i in items] == [
        ("Evaluator A", "found"), ("Evaluator A", "found"), ("Evaluator B", "found"), ("Evaluator B", "found"),
        ("Evaluator C", "no_span"), ("Evaluator C", "not_found"),
    ]  # fmt: skip
    assert items[0].locations == [[0, 33, 38], [1, 0, 5]]  # every occurrence
    assert items[1].locations == [[1, 0, 5]]  # the second occurrence only


def test_report_per_evaluator_and_alpha_per_question(tmp_path):
    study = study_import_bundle(directory=write_review_bundle(tmp_path, answers=ANSWERS)).study
    report = study_report_data(study)
    gpt = report["evaluators"]["gpt-4o"]
    assert (gpt["items"], gpt["not_found"], gpt["no_span"], gpt["reviews"]) == (2, 0, 0, 4)
    assert gpt["answers"]["span"] == {"Error": 3, "Not an error": 1, "No span given": 0, "Hallucination": 0}
    assert gpt["real_error_pct"] == 75.0
    assert gpt["flag_rates_pct"]["flags"]["Too strict"] == 25.0
    claude = report["evaluators"]["claude"]
    assert (claude["items"], claude["not_found"], claude["no_span"], claude["not_found_pct"]) == (
        2,
        1,
        1,
        50.0,
    )
    # "span": 5 items x 2 reviewers, one disagreement (item 1): nominal alpha by hand.
    # values: E,E | N,E | E,E | H,H | S,S -> coincidences: E-E 4, E-N 1, N-E 1, H-H 2, S-S 2; n = 10
    # n_E = 5, n_N = 1, n_H = 2, n_S = 2; D_o = 2/10; D_e = (100 - 25 - 1 - 4 - 4) / (10 * 9) = 66/90
    assert report["questions"]["span"]["alpha"] == pytest.approx(1 - (2 / 10) / (66 / 90))
    assert report["questions"]["span"]["items_with_two_reviewers"] == 5


def test_custom_questions_and_bad_answers(tmp_path):
    questions = [{"key": "ok", "label": "Is it right?", "kind": "single", "options": ["yes", "no"]}]
    bad = [{"document": "game1", "annotator": "r", "answers": [{"item": 0, "answers": {"ok": "maybe"}}]}]
    with pytest.raises(BundleInvalid) as caught:
        study_import_bundle(directory=write_review_bundle(tmp_path, questions=questions, answers=bad))
    assert [str(p) for p in caught.value.problems] == [
        "assignments.jsonl:1: answer 1: ok: 'maybe' is not one of its options"
    ]
    good = [{"document": "game1", "annotator": "r", "answers": [{"item": 0, "answers": {"ok": "no"}}]}]
    study = study_import_bundle(
        directory=write_review_bundle(tmp_path / "b", questions=questions, answers=good)
    ).study
    assert study_report_data(study)["evaluators"]["gpt-4o"]["answers"] == {"ok": {"yes": 0, "no": 1}}


def test_bad_questions_in_study_yaml(tmp_path):
    questions = [{"key": "ok", "kind": "single"}, {"key": "ok", "kind": "essay"}]
    with pytest.raises(BundleInvalid) as caught:
        study_import_bundle(directory=write_review_bundle(tmp_path, questions=questions))
    messages = [p.message for p in caught.value.problems]
    assert "config.questions: question ok: 'options' must be a list of texts" in messages
    assert "config.questions: question 2: 'key' is required and unique" in messages


def test_review_bundle_round_trips(tmp_path):
    from pathlib import Path

    study = study_import_bundle(directory=write_review_bundle(tmp_path / "in", answers=ANSWERS)).study
    study_export_bundle(study=study, directory=tmp_path / "first")
    Study.objects.all().delete()
    study_import_bundle(directory=tmp_path / "first")
    study_export_bundle(study=Study.objects.get(), directory=tmp_path / "second")
    read = lambda d: {p.name: p.read_bytes() for p in sorted(Path(d).iterdir())}  # noqa: E731
    assert read(tmp_path / "first") == read(tmp_path / "second")
    assert "review_items.jsonl" in read(tmp_path / "first")


def test_report_page_of_a_review_study(tmp_path, client, researcher):
    from django.urls import reverse

    from reports.models import Report

    study = study_import_bundle(
        directory=write_review_bundle(tmp_path, answers=ANSWERS), user=researcher
    ).study
    report = Report.objects.create(study=study, status="done", result=study_report_data(study), progress=1)
    client.force_login(researcher)
    html = client.get(reverse("admin:reports_report_change", args=[report.pk])).content.decode()
    assert 'id="evaluators-table"' in html and 'id="review-agreement-table"' in html
    assert "<td>gpt-4o</td><td>2</td><td>4</td>" in html and html.count("<svg") >= 2


def test_answers_written_a_batch_at_a_time_are_the_answers_written_at_once(tmp_path, monkeypatch):
    """Checked answers wait on disk and are written a batch at a time, each batch reading its own
    documents' and items' ids: batches of one give the same study, byte for byte, and at most a
    batch of checked assignments is in memory while one is written (before, all of them were,
    and a map of every item's id)."""
    from bundles.specs import AssignmentSpec
    from tests.bundles import whole_and_batched

    directory = write_review_bundle(tmp_path / "in", answers=ANSWERS)
    (whole, batched), held = whole_and_batched(tmp_path, directory, monkeypatch, "review", AssignmentSpec)
    assert whole == batched and b'"rev2"' in whole["assignments.jsonl"]
    assert len(held) == 2 and max(held) <= 1, held
