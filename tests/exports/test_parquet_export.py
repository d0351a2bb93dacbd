"""The annotation table as Parquet: the CSV's columns and rows, typed (ints, bools, text),
streamed from the API or written by a background job."""

import csv
import io

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from django.urls import reverse

from exports.models import Export
from exports.parquet import parquet_chunks
from exports.rows import csv_lines
from exports.services import export_request
from exports.spreadsheet import spreadsheet_safe
from falte_site.celery import app as celery_app
from tests.exports.test_copy_export import import_awkward_study
from tests.exports.test_worker_feedback_exports import import_with_feedback

pytestmark = pytest.mark.django_db


@pytest.fixture
def study(tmp_path, researcher):
    return import_awkward_study(tmp_path, researcher)


def as_csv_cell(value):
    """A Parquet value as the CSV writes it (text formula-guarded, null as empty)."""
    return "" if value is None else str(spreadsheet_safe(value))


def csv_rows(study, with_ids):
    return list(csv.reader(io.StringIO("".join(csv_lines(study, with_platform_ids=with_ids)), newline="")))


@pytest.mark.parametrize("with_ids", [False, True])
def test_parquet_has_the_csv_rows_with_typed_columns(study, with_ids):
    # Row groups of 2 rows: several groups and a last one that is not full.
    table = pq.read_table(
        io.BytesIO(b"".join(parquet_chunks(study, with_platform_ids=with_ids, row_group=2)))
    )
    header, *rows = csv_rows(study, with_ids)
    assert table.column_names == header
    types = dict(zip(table.column_names, table.schema.types, strict=True))
    assert types["start"] == types["assignment"] == types["active_seconds"] == pa.int64()
    assert types["document.coherence"] == pa.int64() and types["no_annotation"] == pa.bool_()
    assert types["span_text"] == types["worker_feedback"] == types["created_at"] == pa.string()
    assert [[as_csv_cell(value) for value in row.values()] for row in table.to_pylist()] == rows
    found_nothing = [row for row in table.to_pylist() if row["no_annotation"]]
    assert found_nothing and all(row["start"] is None and row["segment"] is None for row in found_nothing)
    assert table.to_pylist()[0]["span_text"] == "=SUM(A1)"  # raw text, as in JSON Lines
    assert pq.ParquetFile(io.BytesIO(b"".join(parquet_chunks(study, row_group=2)))).num_row_groups == 4


def test_parquet_download_and_background_job(
    client, study, researcher, settings, tmp_path, django_capture_on_commit_callbacks
):
    settings.MEDIA_ROOT = tmp_path
    client.force_login(researcher)
    response = client.get(reverse("export-annotations", args=[study.pk, "parquet"]))
    assert response.status_code == 200 and response.streaming
    assert response["Content-Type"] == "application/vnd.apache.parquet"
    streamed = pq.read_table(io.BytesIO(b"".join(response.streaming_content)))
    assert "worker_external_id" in streamed.column_names  # a researcher sees platform ids

    # The job runs in this process, as on the embedded default (CI's PostgreSQL run has a broker).
    celery_app.conf.task_always_eager, before = True, celery_app.conf.task_always_eager
    try:
        with django_capture_on_commit_callbacks(execute=True):
            export = export_request(
                study=study, user=researcher, format=Export.Format.PARQUET, with_platform_ids=True
            )
    finally:
        celery_app.conf.task_always_eager = before
    export.refresh_from_db()
    assert export.status == Export.Status.DONE and export.rows == streamed.num_rows
    download = client.get(reverse("export-download", args=[export.pk]))
    assert pq.read_table(io.BytesIO(b"".join(download.streaming_content))).equals(streamed)


@pytest.mark.parametrize("protocol", ["likert", "bws", "review", "pairwise"])
def test_every_protocols_table_reads_back_as_its_csv(tmp_path, protocol):
    study = import_with_feedback(protocol, tmp_path)
    table = pq.read_table(io.BytesIO(b"".join(parquet_chunks(study, with_platform_ids=True))))
    header, *rows = csv_rows(study, True)
    assert table.column_names == header and rows
    assert [[as_csv_cell(value) for value in row.values()] for row in table.to_pylist()] == rows
    assert table.schema.field("assignment").type == pa.int64()
