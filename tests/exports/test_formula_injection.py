"""Cells a worker controls never run as formulas when a researcher opens a CSV or XLSX
export in a spreadsheet; JSONL keeps every value exactly as stored."""

import copy
import csv
import io
import json
import zipfile
from decimal import Decimal

import openpyxl
import pytest
import tablib
from django.urls import reverse

from bundles.services import study_export_bundle, study_import_bundle
from exports import rows as export_rows
from exports.models import Export
from exports.resources import EXPORT_FORMATS
from exports.services import export_write
from exports.spreadsheet import spreadsheet_safe
from tests.bundles import annotation, study_yaml, write_bundle
from tests.reviews.bundles import write_review_bundle
from tests.reviews.test_review_import_and_report import ANSWERS as REVIEW_ANSWERS

pytestmark = pytest.mark.django_db

HYPERLINK = '=HYPERLINK("http://x","y")'
PAYLOADS = [HYPERLINK, "+1", "-2+3", "@SUM(A1)", "\t=1", "\r=1"]
TRIGGERS = ("=", "+", "-", "@", "\t", "\r")

SEGMENT = f"{HYPERLINK} then -2+3 and @SUM(A1) or +1."
DOCUMENTS = [
    {"id": HYPERLINK, "system": "+1", "segments": [SEGMENT]},
    {"id": "@SUM(A1)", "system": "-2+3", "segments": ["Nothing to see here."]},
]


def span(text, comment):
    start = SEGMENT.index(text)
    return annotation(0, "CharE", start, start + len(text), text, comment=comment)


ASSIGNMENTS = [
    {"document": HYPERLINK, "annotator": "=w1", "annotations": [
        span(HYPERLINK, "\t=1"), span("-2+3", "\r=1"), span("@SUM(A1)", "+1"), span("+1", HYPERLINK)]},
    {"document": "@SUM(A1)", "annotator": "w2", "annotations": []},
]  # fmt: skip


@pytest.fixture
def study(tmp_path, researcher):
    directory = write_bundle(tmp_path / "bundle", study=study_yaml(slug="formulae"), documents=DOCUMENTS,
                             assignments=ASSIGNMENTS)  # fmt: skip
    return study_import_bundle(directory=directory, user=researcher).study


def cells(csv_text):
    return [cell for row in csv.reader(io.StringIO(csv_text, newline="")) for cell in row]


def assert_neutralised(values, payloads=PAYLOADS):
    """Every payload comes out quoted, and no text cell starts with a formula character."""
    values = [value for value in values if isinstance(value, str)]
    for payload in payloads:
        assert "'" + payload in values, payload
    assert [value for value in values if value.startswith(TRIGGERS)] == []


def streamed(client, study, file_format):
    response = client.get(reverse("export-annotations", args=[study.pk, file_format]))
    assert response.status_code == 200
    return b"".join(response.streaming_content).decode()


@pytest.mark.parametrize("value", PAYLOADS)
def test_text_starting_with_a_formula_character_gets_a_quote(value):
    assert spreadsheet_safe(value) == "'" + value


@pytest.mark.parametrize("value", ["", "plain", "'=1", " =1", "a=1", "2-3", "😀=1"])
def test_other_text_is_unchanged(value):
    assert spreadsheet_safe(value) == value


@pytest.mark.parametrize("value", [-3, -2.5, Decimal("-1.5"), 0, True, None])
def test_numbers_and_other_values_stay_as_they_are(value):
    assert spreadsheet_safe(value) is value


def test_streamed_csv_quotes_worker_text(client, study, researcher):
    client.force_login(researcher)
    body = streamed(client, study, "csv")
    assert_neutralised(cells(body))
    table = list(csv.DictReader(io.StringIO(body, newline="")))
    assert len(table) == 5
    assert table[0]["worker_external_id"] == "'=w1"
    assert [row["document"] for row in table] == ["'" + HYPERLINK] * 4 + ["'@SUM(A1)"]


def test_csv_writer_quotes_text_cells_only(monkeypatch, study):
    def one_row(study, *, with_platform_ids=False):
        yield ["-3", -3, -2.5, Decimal("-1.5"), "=1", ""]

    monkeypatch.setattr(export_rows, "annotation_rows", one_row)
    body = "".join(export_rows.csv_lines(study))
    assert body.splitlines()[1] == "'-3,-3,-2.5,-1.5,'=1,"


def test_jsonl_stays_raw(client, study, researcher):
    client.force_login(researcher)
    lines = [json.loads(line) for line in streamed(client, study, "jsonl").splitlines()]
    assert [line["span_text"] for line in lines] == [HYPERLINK, "-2+3", "@SUM(A1)", "+1", ""]
    assert [line["comment"] for line in lines] == ["\t=1", "\r=1", "+1", HYPERLINK, ""]
    assert lines[0]["document"] == HYPERLINK and lines[0]["start"] == 0


def test_background_export_file_quotes_worker_text(study, researcher, settings, tmp_path):
    settings.MEDIA_ROOT = str(tmp_path / "media")
    written = {}
    for file_format in (Export.Format.CSV, Export.Format.JSONL):
        export = Export.objects.create(study=study, requested_by=researcher, format=file_format)
        export = export_write(export_id=export.pk)
        assert export.status == Export.Status.DONE, export.error
        written[file_format] = (tmp_path / "media" / export.file).read_bytes().decode()
    assert_neutralised(cells(written[Export.Format.CSV]))
    assert HYPERLINK in [json.loads(line)["span_text"] for line in written[Export.Format.JSONL].splitlines()]


def test_review_export_quotes_answers(client, tmp_path, researcher):
    answers = copy.deepcopy(REVIEW_ANSWERS)
    answers[0]["answers"][0]["answers"]["comment"] = "=1+1"
    study = study_import_bundle(directory=write_review_bundle(tmp_path / "review", answers=answers),
                                user=researcher).study  # fmt: skip
    client.force_login(researcher)
    table = list(csv.DictReader(io.StringIO(streamed(client, study, "csv"), newline="")))
    assert [row["answer.comment"] for row in table if row["answer.comment"]] == ["'=1+1", "odd"]


def test_bundle_csv_quotes_and_its_jsonl_files_stay_raw(client, study, researcher, tmp_path):
    study_export_bundle(study=study, directory=tmp_path / "out")
    assert_neutralised(cells((tmp_path / "out" / "annotations.csv").read_bytes().decode()))
    records = [json.loads(line) for line in (tmp_path / "out" / "assignments.jsonl").read_text().splitlines()]
    annotated = next(record for record in records if record["annotations"])
    assert annotated["document"] == HYPERLINK and annotated["annotator"] == "=w1"
    assert [a["text"] for a in annotated["annotations"]] == [HYPERLINK, "-2+3", "@SUM(A1)", "+1"]
    assert [a["comment"] for a in annotated["annotations"]] == ["\t=1", "\r=1", "+1", HYPERLINK]

    client.force_login(researcher)
    archive = zipfile.ZipFile(io.BytesIO(client.get(reverse("export-bundle", args=[study.pk])).getvalue()))
    assert_neutralised(cells(archive.read("formulae/annotations.csv").decode()))


def test_bundle_round_trip_keeps_raw_values(study, tmp_path):
    study_export_bundle(study=study, directory=tmp_path / "first")
    study.delete()
    reimported = study_import_bundle(directory=tmp_path / "first").study
    assert reimported.documents.filter(external_id=HYPERLINK).exists()
    study_export_bundle(study=reimported, directory=tmp_path / "second")
    for name in ("annotations.csv", "assignments.jsonl", "documents.jsonl", "study.yaml"):
        assert (tmp_path / "first" / name).read_bytes() == (tmp_path / "second" / name).read_bytes(), name


def admin_export(client, study, format_index):
    url = reverse("admin:span_errorannotation_export") + f"?study={study.pk}"
    fields = ["id", "document", "start", "text", "comment"]
    response = client.post(url, {"format": str(format_index), "resource": "0",
                                 **{f"errorannotationresource_{f}": "on" for f in fields}})  # fmt: skip
    assert response.status_code == 200, response.content[:500]
    return response.getvalue()


def test_admin_csv_and_xlsx_quote_text_and_json_stays_raw(client, study, researcher):
    client.force_login(researcher)
    names = [file_format.__name__ for file_format in EXPORT_FORMATS]
    csv_cells = cells(admin_export(client, study, names.index("SpreadsheetSafeCSV")).decode())
    assert_neutralised(csv_cells)

    workbook = openpyxl.load_workbook(
        io.BytesIO(admin_export(client, study, names.index("SpreadsheetSafeXLSX")))
    )
    sheet = [list(row) for row in workbook.active.iter_rows(values_only=True)]
    assert sheet[0] == ["id", "document", "start", "text", "comment"]
    assert [row[2] for row in sheet[1:]] == [
        0,
        SEGMENT.index("-2+3"),
        SEGMENT.index("@SUM(A1)"),
        SEGMENT.index("+1"),
    ]
    # openpyxl reads a carriage return in a cell back as a new line (XML line-end handling).
    assert_neutralised([value for row in sheet for value in row], [p.replace("\r", "\n") for p in PAYLOADS])
    assert all(cell.data_type != "f" for row in workbook.active.iter_rows() for cell in row)

    rows = json.loads(admin_export(client, study, names.index("JSON")))
    assert [row["text"] for row in rows] == [HYPERLINK, "-2+3", "@SUM(A1)", "+1"]
    assert [row["comment"] for row in rows] == ["\t=1", "\r=1", "+1", HYPERLINK]


def test_spreadsheet_formats_quote_text_cells_only():
    names = {file_format.__name__: file_format for file_format in EXPORT_FORMATS}
    dataset = tablib.Dataset(["-3", -3, -2.5, "=1"], headers=["text", "int", "float", "formula"])
    assert names["SpreadsheetSafeCSV"]().export_data(dataset).splitlines()[1] == "'-3,-3,-2.5,'=1"
    sheet = openpyxl.load_workbook(io.BytesIO(names["SpreadsheetSafeXLSX"]().export_data(dataset))).active
    assert list(sheet.iter_rows(min_row=2, values_only=True)) == [("'-3", -3, -2.5, "'=1")]
