"""The worker's feedback leaves the platform with the work: a worker_feedback column in the
annotation table of every protocol, and a feedback field on bundle assignment lines that
survives export -> import -> export byte for byte."""

import csv
import io
import json

import pytest

from annotations.models import Assignment
from bundles import BundleInvalid
from bundles.services import study_export_bundle, study_import_bundle
from exports.rows import csv_lines, jsonl_lines
from tests.bundles import write_bundle
from tests.exports.test_exports import ASSIGNMENTS as SPAN_ASSIGNMENTS
from tests.pairwise.bundles import write_pairwise_bundle
from tests.pairwise.test_bundles import STRENGTH as PAIRWISE_STRENGTH
from tests.pairwise.test_bundles import lines as pairwise_lines
from tests.rating_bundles import write_rating_bundle
from tests.reviews.bundles import write_review_bundle
from tests.reviews.test_review_import_and_report import ANSWERS as REVIEW_ANSWERS
from tests.studies.test_rating_bundles import bws_lines, likert_lines
from tests.studies.test_roundtrip import empty_database, read_all

pytestmark = pytest.mark.django_db

# A formula, markup, a line break and a character beyond the Basic Multilingual Plane.
FEEDBACK = '=HYPERLINK("http://evil.example","item 2")\nSummary 3 was <b>empty</b> 😀'


def with_feedback(lines):
    """The assignment lines, the first one carrying the worker's feedback."""
    first, *rest = lines
    return [{**first, "feedback": FEEDBACK}, *rest]


STUDIES = {
    "span": lambda d, lines=SPAN_ASSIGNMENTS: write_bundle(d, assignments=lines),
    "likert": lambda d, lines=None: write_rating_bundle(d, assignments=lines or likert_lines()),
    "bws": lambda d, lines=None: write_rating_bundle(d, protocol="bws", assignments=lines or bws_lines()),
    "review": lambda d, lines=REVIEW_ANSWERS: write_review_bundle(d, answers=lines),
    "pairwise": lambda d, lines=None: write_pairwise_bundle(
        d, config=PAIRWISE_STRENGTH, assignments=lines or pairwise_lines()
    ),
}
DEFAULT_LINES = {
    "span": lambda: SPAN_ASSIGNMENTS,
    "likert": likert_lines,
    "bws": bws_lines,
    "review": lambda: REVIEW_ANSWERS,
    "pairwise": pairwise_lines,
}


def import_with_feedback(protocol, directory):
    lines = with_feedback(DEFAULT_LINES[protocol]())
    return study_import_bundle(directory=STUDIES[protocol](directory, lines)).study


@pytest.mark.parametrize("protocol", list(STUDIES))
def test_every_protocols_table_has_the_feedback_of_each_rows_assignment(protocol, tmp_path):
    study = import_with_feedback(protocol, tmp_path / "in")
    written = Assignment.objects.get(study=study, worker_feedback=FEEDBACK)
    assert Assignment.objects.filter(study=study).exclude(pk=written.pk).filter(worker_feedback="").exists()

    rows = [json.loads(line) for line in "".join(jsonl_lines(study)).splitlines()]
    assert all(list(row)[-1] == "worker_feedback" for row in rows)
    for row in rows:
        assert row["worker_feedback"] == (FEEDBACK if row["assignment"] == written.pk else "")

    # The CSV cell is the same text, quoted so that a spreadsheet does not run it.
    table = list(csv.DictReader(io.StringIO("".join(csv_lines(study, with_platform_ids=True)), newline="")))
    mine = [row for row in table if row["assignment"] == str(written.pk)]
    assert mine and all(row["worker_feedback"] == "'" + FEEDBACK for row in mine)
    assert all(row["worker_feedback"] == "" for row in table if row["assignment"] != str(written.pk))
    assert list(table[0])[-3:] == ["worker_feedback", "worker_platform", "worker_external_id"]


@pytest.mark.parametrize("protocol", list(STUDIES))
def test_feedback_survives_export_import_export_byte_for_byte(protocol, tmp_path):
    study = import_with_feedback(protocol, tmp_path / "in")
    study_export_bundle(study=study, directory=tmp_path / "first")
    exported = [
        json.loads(line) for line in (tmp_path / "first" / "assignments.jsonl").read_text().splitlines()
    ]
    assert [line.get("feedback") for line in exported].count(FEEDBACK) == 1
    # Empty feedback is left out, so a bundle from before feedback existed stays as it was.
    assert all(line.get("feedback", None) in (FEEDBACK, None) for line in exported)

    slug = study.slug
    empty_database()
    study = study_import_bundle(directory=tmp_path / "first").study
    assert study.slug == slug
    assert Assignment.objects.get(study=study, worker_feedback=FEEDBACK)
    study_export_bundle(study=study, directory=tmp_path / "second")
    assert read_all(tmp_path / "first") == read_all(tmp_path / "second")


@pytest.mark.parametrize("protocol", list(STUDIES))
def test_a_bundle_without_feedback_exports_without_the_field(protocol, tmp_path):
    study = study_import_bundle(directory=STUDIES[protocol](tmp_path / "in")).study
    study_export_bundle(study=study, directory=tmp_path / "out")
    assert '"feedback"' not in (tmp_path / "out" / "assignments.jsonl").read_text()


def test_the_anonymised_bundle_keeps_the_feedback(tmp_path):
    # It is study data, not an identity; docs/exports.md warns that workers may write personal data in it.
    study = import_with_feedback("span", tmp_path / "in")
    study_export_bundle(study=study, directory=tmp_path / "out", identities=False)
    text = (tmp_path / "out" / "assignments.jsonl").read_text()
    assert "PROLIFIC-5f3a" not in text
    assert json.loads(text.splitlines()[0])["feedback"] == FEEDBACK


@pytest.mark.parametrize(
    ("feedback", "message"),
    [
        (5, "'feedback' must be text"),
        (["a"], "'feedback' must be text"),
        ("x" * 5001, "'feedback' is 5,001 characters long; at most 5,000 fit"),
    ],
)
def test_bad_feedback_in_a_bundle_is_a_problem_at_its_line(tmp_path, feedback, message):
    lines = [{**SPAN_ASSIGNMENTS[0], "feedback": feedback}, *SPAN_ASSIGNMENTS[1:]]
    with pytest.raises(BundleInvalid) as refused:
        study_import_bundle(directory=write_bundle(tmp_path, assignments=lines))
    assert f"assignments.jsonl:1: {message}" in str(refused.value)
    assert not Assignment.objects.exists()
