"""The admin's Export button, written a row at a time (docs/exports.md, "Admin export").

django-import-export builds the whole file in memory: every row in a tablib Dataset, then
the file as one string, then the response; a table of a big campaign's spans needed gigabytes.
Here its form, filters, field choice, permission check and resources stay as they are, and
only the writing differs: CSV and JSON are streamed to the browser in chunks, with the bytes
the library wrote; XLSX is written by openpyxl's write-only workbook to a temporary file and
sent from there (its cells are the library's, bold header row, first row frozen; the columns
keep openpyxl's default width, since fitting them to their text needs every row at once).
"""

import csv
import io
import json
import tempfile

from django.core.exceptions import PermissionDenied
from django.http import FileResponse, StreamingHttpResponse
from import_export.admin import ExportMixin
from import_export.formats.base_formats import BINARY_FORMATS, JSON
from import_export.signals import post_export
from openpyxl import Workbook
from openpyxl.cell import WriteOnlyCell
from openpyxl.styles import Alignment, Font
from tablib.formats._json import serialize_objects_handler

from .resources import SpreadsheetSafeCSV, SpreadsheetSafeXLSX
from .spreadsheet import spreadsheet_safe

CHUNK_BYTES = 64 * 1024
SHEET_TITLE = "Tablib Dataset"  # tablib's name of an untitled sheet


def csv_chunks(headers, rows, encoding):
    """The CSV the library writes (csv.writer's default dialect, formula text quoted), in chunks."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(headers)
    for row in rows:
        writer.writerow([spreadsheet_safe(value) for value in row])
        if buffer.tell() >= CHUNK_BYTES:
            yield buffer.getvalue().encode(encoding)
            buffer.seek(0)
            buffer.truncate()
    yield buffer.getvalue().encode(encoding)


def json_chunks(headers, rows, encoding):
    """tablib's json.dumps of the list of row objects, written an object at a time: the same bytes
    (json.dumps joins list items with ", "). Raw values: JSON is not opened by spreadsheets."""
    parts, size = ["["], 1
    for number, row in enumerate(rows):
        text = json.dumps(
            dict(zip(headers, row, strict=True)), default=serialize_objects_handler, ensure_ascii=False
        )
        parts.append(text if number == 0 else ", " + text)
        size += len(parts[-1])
        if size >= CHUNK_BYTES:
            yield "".join(parts).encode(encoding)
            parts, size = [], 0
    parts.append("]")
    yield "".join(parts).encode(encoding)


def xlsx_file(headers, rows):
    """A temporary file holding the workbook; openpyxl's write-only mode keeps one row in memory."""
    workbook = Workbook(write_only=True)
    sheet = workbook.create_sheet(SHEET_TITLE)
    sheet.freeze_panes = "A2"
    bold, wrap = Font(bold=True), Alignment(wrap_text=True)

    def cell(value, **style):
        written = WriteOnlyCell(sheet, value=value)
        for name, given in style.items():
            setattr(written, name, given)
        return written

    sheet.append([cell(header, font=bold) for header in headers])
    for row in rows:
        cells = []
        for value in row:
            value = spreadsheet_safe(value)
            try:
                written = cell(value, alignment=wrap) if "\n" in str(value) else cell(value)
            except ValueError:  # a value openpyxl has no cell type for, written as its text (as tablib does)
                written = cell(str(value))
            cells.append(written)
        sheet.append(cells)
    handle = tempfile.TemporaryFile()  # noqa: SIM115 - the response reads and closes it
    workbook.save(handle)
    handle.seek(0)
    return handle


class StreamedExportMixin(ExportMixin):
    """ExportMixin for the formats of exports/resources.py, writing its file a row at a time."""

    def _do_file_export(self, file_format, request, queryset, export_form=None):
        if not isinstance(file_format, (SpreadsheetSafeCSV, SpreadsheetSafeXLSX, JSON)):
            return super()._do_file_export(file_format, request, queryset, export_form=export_form)
        if not self.has_export_permission(request):
            raise PermissionDenied
        encoding = self.to_encoding or "utf-8"
        options = {
            "export_form": export_form,
            "encoding": self.to_encoding,
            # As get_export_data: native values for the library's binary formats (its own test).
            "force_native_type": type(file_format) in BINARY_FORMATS,
        }
        resource_class = self.choose_export_resource_class(export_form, request)
        resource = resource_class(**self.get_export_resource_kwargs(request, **options))
        fields = self.get_export_resource_fields_from_form(export_form)
        headers = resource.get_export_headers(selected_fields=fields)
        rows = (
            resource.export_resource(instance, selected_fields=fields, **options)
            for instance in resource.iter_queryset(resource.filter_export(queryset, export_fields=fields))
        )
        filename = self.get_export_filename(request, queryset, file_format)
        if isinstance(file_format, SpreadsheetSafeXLSX):
            response = FileResponse(
                xlsx_file(headers, rows), content_type=file_format.get_content_type(), filename=filename
            )
        else:
            chunks = csv_chunks if isinstance(file_format, SpreadsheetSafeCSV) else json_chunks
            response = StreamingHttpResponse(
                chunks(headers, rows, encoding), content_type=file_format.get_content_type()
            )
        response["Content-Disposition"] = f'attachment; filename="{filename}"'
        post_export.send(sender=None, model=self.model)
        return response
