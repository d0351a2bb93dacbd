"""The annotation table of a span study with document questions: a `document.<key>` column
per question, the assignment's answer repeated on each of its rows (its no_annotation row too)."""

import csv
import io
import json

import pytest

from bundles.services import study_import_bundle
from exports.rows import FEEDBACK_COLUMN, PLATFORM_COLUMNS, csv_lines, jsonl_lines, row_count
from protocols.span.exports import COLUMNS
from tests.bundles import annotation
from tests.exports.test_exports import download
from tests.span_questions.test_bundles import LINES, write_question_bundle

pytestmark = pytest.mark.django_db

DOCUMENT_COLUMNS = ["document.coherence", "document.better", "document.problems", "document.notes"]


@pytest.fixture
def study(tmp_path, researcher):
    lines = [dict(line) for line in LINES]
    # A second span for w1, and a text a spreadsheet would run as a formula.
    lines[0]["annotations"] = [*lines[0]["annotations"], annotation(0, "CharE", 0, 4, "Anna")]
    lines[0]["document_answers"] = {**lines[0]["document_answers"], "notes": '=HYPERLINK("http://x")'}
    return study_import_bundle(directory=write_question_bundle(tmp_path, lines), user=researcher).study


def table(study, **options):
    return list(csv.DictReader(io.StringIO("".join(csv_lines(study, **options)), newline="")))


def test_csv_has_a_column_per_question_after_the_span_columns(study):
    header = next(csv.reader(io.StringIO("".join(csv_lines(study, with_platform_ids=True)))))

    assert header == [*COLUMNS, *DOCUMENT_COLUMNS, FEEDBACK_COLUMN, *PLATFORM_COLUMNS]


def test_every_row_of_an_assignment_repeats_its_answers(study):
    rows = table(study)

    assert [(row["document"], row["span_text"], row["no_annotation"]) for row in rows] == [
        ("d1", "Anna", "False"), ("d1", "Miss Sessions", "False"), ("d2", "😀", "False"), ("d2", "", "True"),
    ]  # fmt: skip
    anna, sessions, gold, found_nothing = ([row[c] for c in DOCUMENT_COLUMNS] for row in rows)
    # Multi-choice answers joined by "; "; a formula-like text quoted by the CSV writer.
    assert anna == sessions == ["2", "the other one", "names; repetition", '\'=HYPERLINK("http://x")']
    assert gold == ["", "", "", ""]  # the expert answered nothing
    assert found_nothing == ["5", "", "", ""]  # the no_annotation row carries the answers too
    assert row_count(study) == 4


def test_jsonl_has_the_same_columns_with_raw_values(study):
    lines = [json.loads(line) for line in "".join(jsonl_lines(study)).splitlines()]

    assert all(list(line) == [*COLUMNS, *DOCUMENT_COLUMNS, FEEDBACK_COLUMN] for line in lines)
    first, _, gold, found_nothing = lines
    assert [first[c] for c in DOCUMENT_COLUMNS] == [
        2,
        "the other one",
        "names; repetition",
        '=HYPERLINK("http://x")',
    ]
    assert [gold[c] for c in DOCUMENT_COLUMNS] == ["", "", "", ""]
    assert (found_nothing["no_annotation"], found_nothing["document.coherence"]) == (True, 5)


def test_the_downloaded_csv_has_the_columns(client, study, researcher):
    client.force_login(researcher)
    response, body = download(client, study)

    assert response.status_code == 200
    header = next(csv.reader(io.StringIO(body)))
    assert header[len(COLUMNS) : len(COLUMNS) + 4] == DOCUMENT_COLUMNS


def test_a_study_without_questions_keeps_its_columns(tmp_path):
    lines = [{key: value for key, value in line.items() if key != "document_answers"} for line in LINES]
    study = study_import_bundle(directory=write_question_bundle(tmp_path, lines, config={})).study

    header = next(csv.reader(io.StringIO("".join(csv_lines(study)))))

    assert header == [*COLUMNS, FEEDBACK_COLUMN]
    assert all(len(row) == len(COLUMNS) + 1 for row in csv.reader(io.StringIO("".join(csv_lines(study)))))
