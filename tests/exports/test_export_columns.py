"""No annotation table export, of any protocol, in any format, has two columns of one
name or drops a field: a study's own question keys cannot shadow a fixed column."""

import csv
import io
import json

import pytest

from bundles.services import study_import_bundle
from exports.rows import FEEDBACK_COLUMN, PLATFORM_COLUMNS, csv_lines, jsonl_lines
from protocols.rating.models import BestWorstJudgment, Rating
from protocols.review.exports import REVIEW_COLUMNS
from protocols.span.exports import COLUMNS
from tests.bundles import write_bundle
from tests.exports.test_exports import ASSIGNMENTS as SPAN_ASSIGNMENTS
from tests.rating_bundles import write_rating_bundle
from tests.reviews.bundles import ITEMS, write_review_bundle
from tests.reviews.test_review_import_and_report import ANSWERS as REVIEW_ANSWERS
from tests.studies.test_rating_bundles import bws_lines, likert_lines

pytestmark = pytest.mark.django_db

FIXED = list(dict.fromkeys([*COLUMNS, *REVIEW_COLUMNS, FEEDBACK_COLUMN, *PLATFORM_COLUMNS]))
COLLIDING_QUESTIONS = [{"key": name, "label": name, "kind": "text"} for name in FIXED]


def colliding_answers():
    """One reviewer answering every question of every game1 item with a text naming it."""
    count = sum(1 for item in ITEMS if item["document"] == "game1")
    return [{"document": "game1", "annotator": "rev1", "platform": "prolific", "answers": [
        {"item": n, "answers": {name: f"{name} of item {n}" for name in FIXED}} for n in range(count)]}]  # fmt: skip


# Rating protocols: the model of their rows, and a column every row fills.
RATED = {"likert": (Rating, "score"), "bws": (BestWorstJudgment, "best")}

STUDIES = {
    "span": lambda d: write_bundle(d, assignments=SPAN_ASSIGNMENTS),
    "likert": lambda d: write_rating_bundle(d, assignments=likert_lines()),
    "bws": lambda d: write_rating_bundle(d, protocol="bws", assignments=bws_lines()),
    "review": lambda d: write_review_bundle(d, answers=REVIEW_ANSWERS),
    "review-colliding": lambda d: write_review_bundle(
        d, questions=COLLIDING_QUESTIONS, answers=colliding_answers()
    ),
}


@pytest.fixture(params=list(STUDIES))
def study(request, tmp_path):
    return study_import_bundle(directory=STUDIES[request.param](tmp_path)).study


@pytest.mark.parametrize("with_platform_ids", [False, True], ids=["analyst", "researcher"])
def test_every_export_has_unique_columns_and_every_field_in_every_row(study, with_platform_ids):
    text = "".join(csv_lines(study, with_platform_ids=with_platform_ids))
    header, *rows = list(csv.reader(io.StringIO(text, newline="")))
    assert len(header) == len(set(header)), [name for name in header if header.count(name) > 1]
    assert rows, "the study has submitted work to export"
    assert all(len(row) == len(header) for row in rows)
    lines = [
        json.loads(line)
        for line in "".join(jsonl_lines(study, with_platform_ids=with_platform_ids)).splitlines()
    ]
    assert len(lines) == len(rows)
    assert all(list(line) == header for line in lines)
    assert ("worker_external_id" in header) == with_platform_ids
    if study.protocol in RATED:  # a row per rating or judgment, never the span table's empty rows
        model, field = RATED[study.protocol]
        assert "no_annotation" not in header
        assert len(rows) == model.objects.filter(assignment__study=study).count()
        assert all(row[header.index(field)] for row in rows)


def test_review_export_keeps_the_evaluators_explanation_and_the_answer_about_it(tmp_path):
    study = study_import_bundle(directory=write_review_bundle(tmp_path, answers=REVIEW_ANSWERS)).study
    first = json.loads(next(iter("".join(jsonl_lines(study)).splitlines())))
    assert first["explanation"] == ITEMS[0]["explanation"] and first["answer.explanation"] == "Correct"
    table = list(csv.DictReader(io.StringIO("".join(csv_lines(study)), newline="")))
    assert (table[0]["explanation"], table[0]["answer.explanation"]) == (ITEMS[0]["explanation"], "Correct")


def test_question_keys_named_like_fixed_columns_keep_both_values(tmp_path):
    study = study_import_bundle(
        directory=write_review_bundle(tmp_path, questions=COLLIDING_QUESTIONS, answers=colliding_answers())
    ).study
    row = json.loads(next(iter("".join(jsonl_lines(study, with_platform_ids=True)).splitlines())))
    assert row["explanation"] == ITEMS[0]["explanation"] and row["study"] == study.slug
    assert row["worker_platform"] == "prolific"
    assert all(row[f"answer.{name}"] == f"{name} of item 0" for name in FIXED)
