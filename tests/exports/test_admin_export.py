"""The admin's Export button streams its file, and the file is the one django-import-export
wrote: the same bytes for CSV and JSON, the same cells for XLSX (exports/admin_export.py)."""

import io

import openpyxl
import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from import_export.admin import ExportMixin

from bundles.services import study_import_bundle
from exports.admin_export import StreamedExportMixin
from exports.resources import EXPORT_FORMATS
from tests.bundles import annotation, study_yaml, write_bundle
from tests.exports.test_formula_injection import ASSIGNMENTS, DOCUMENTS

pytestmark = pytest.mark.django_db

ADMINS = {
    "span_errorannotation": "errorannotationresource",
    "annotations_assignment": "assignmentresource",
    "studies_document": "documentresource",
}
FORMAT = {file_format.__name__: str(number) for number, file_format in enumerate(EXPORT_FORMATS)}


@pytest.fixture
def study(tmp_path, researcher):
    # Two documents, one with four spans whose texts and comments start like formulas.
    directory = write_bundle(tmp_path / "bundle", study=study_yaml(slug="formulae"), documents=DOCUMENTS,
                             assignments=ASSIGNMENTS)  # fmt: skip
    return study_import_bundle(directory=directory, user=researcher).study


def export(client, study, admin_name, format_name):
    url = reverse(f"admin:{admin_name}_export") + f"?study={study.pk}"
    form = client.get(url).content.decode()
    prefix = ADMINS[admin_name]
    fields = sorted({part.split('"')[0] for part in form.split(f'name="{prefix}_')[1:]})
    assert fields, "the export form offers no field"
    response = client.post(
        url, {"format": FORMAT[format_name], "resource": "0", **{f"{prefix}_{f}": "on" for f in fields}}
    )
    assert response.status_code == 200, response.getvalue()[:500]
    return response


def by_the_library(monkeypatch):
    monkeypatch.setattr(StreamedExportMixin, "_do_file_export", ExportMixin._do_file_export)


@pytest.mark.parametrize("admin_name", ADMINS)
@pytest.mark.parametrize("format_name", ["SpreadsheetSafeCSV", "JSON"])
def test_the_streamed_file_has_the_bytes_the_library_wrote(
    client, study, researcher, monkeypatch, admin_name, format_name
):
    client.force_login(researcher)
    streamed = export(client, study, admin_name, format_name)
    assert streamed.streaming
    body = streamed.getvalue()
    by_the_library(monkeypatch)
    written = export(client, study, admin_name, format_name)
    assert not written.streaming
    assert body == written.getvalue()
    assert streamed["Content-Type"] == written["Content-Type"]
    assert streamed["Content-Disposition"] == written["Content-Disposition"]


def sheet_of(response):
    return openpyxl.load_workbook(io.BytesIO(response.getvalue())).active


@pytest.mark.parametrize("admin_name", ADMINS)
def test_the_streamed_workbook_has_the_cells_the_library_wrote(
    client, study, researcher, monkeypatch, admin_name
):
    client.force_login(researcher)
    streamed = sheet_of(export(client, study, admin_name, "SpreadsheetSafeXLSX"))
    by_the_library(monkeypatch)
    written = sheet_of(export(client, study, admin_name, "SpreadsheetSafeXLSX"))

    def cells(sheet):
        return [[(cell.value, cell.data_type, cell.font.b) for cell in row] for row in sheet.iter_rows()]

    assert cells(streamed) == cells(written)
    assert len(cells(streamed)) > 1
    assert streamed.title == written.title and streamed.freeze_panes == written.freeze_panes == "A2"


def sized_study(tmp_path, researcher, documents):
    """`documents` documents of two segments, each annotated once with a singleton and a paired span."""
    texts = ["Anna met Ben at the mill.", "Anna met Ben again."]
    found = [annotation(1, "RepE", 0, 12, "Anna met Ben", paired={"segment": 0, "start": 0, "end": 12,
                                                                  "text": "Anna met Ben"}),
             annotation(0, "CharE", 0, 4, "Anna")]  # fmt: skip
    directory = write_bundle(
        tmp_path / f"bundle-{documents}",
        study=study_yaml(slug=f"sized-{documents}"),
        documents=[
            {"id": f"d{n}", "system": "sysA", "input_id": f"in{n}", "segments": texts}
            for n in range(documents)
        ],
        assignments=[
            {"document": f"d{n}", "annotator": f"w{n}", "annotations": found} for n in range(documents)
        ],
    )
    return study_import_bundle(directory=directory, user=researcher).study


@pytest.mark.parametrize("admin_name", ADMINS)
def test_the_export_asks_the_database_as_often_for_few_rows_as_for_many(
    client, tmp_path, researcher, admin_name
):
    # Each row's related values (the span's paired segment, the document's segment count) come
    # with the rows, not one query a row: a big campaign's table would otherwise take hours.
    client.force_login(researcher)
    counts = []
    for documents in (2, 8):
        study = sized_study(tmp_path, researcher, documents)
        with CaptureQueriesContext(connection) as queries:
            body = export(client, study, admin_name, "SpreadsheetSafeCSV").getvalue().decode()
        assert body.count(f"sized-{documents}") >= documents
        counts.append(len(queries))
    assert counts[0] == counts[1], counts
