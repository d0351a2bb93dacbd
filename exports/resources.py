"""django-import-export resources: the admin's Export button for documents,
assignments and annotations (CSV, XLSX, JSON), with the admin's filters applied.

Import through these is off: data comes in through study bundles, which
check every row first (docs/bundle-format.md). Annotators appear under their
pseudonymous id, as in every analyst-facing file. CSV and XLSX quote text
that would run as a formula; JSON keeps it raw.
"""

import tablib
from import_export import fields, resources, widgets
from import_export.formats.base_formats import CSV, JSON, XLSX

from accounts.pseudonyms import annotator_pseudonym
from annotations.models import Assignment
from studies.models import Document

from .spreadsheet import spreadsheet_safe


class _SpreadsheetSafe:
    """Quotes text cells a spreadsheet would run as formulas (exports/spreadsheet.py).

    django-import-export's IMPORT_EXPORT_ESCAPE_FORMULAE_ON_EXPORT only strips a
    leading `=` (losing it, and leaving `+`, `-`, `@`), and turns every cell into text.
    """

    def export_data(self, dataset, **kwargs):
        safe = tablib.Dataset(headers=dataset.headers, title=dataset.title)
        for row in dataset:
            safe.append([spreadsheet_safe(value) for value in row])
        return super().export_data(safe, **kwargs)


class SpreadsheetSafeCSV(_SpreadsheetSafe, CSV):
    pass


class SpreadsheetSafeXLSX(_SpreadsheetSafe, XLSX):
    pass


EXPORT_FORMATS = [SpreadsheetSafeCSV, SpreadsheetSafeXLSX, JSON]


class ExportResource(resources.ModelResource):
    def export_field(self, field, instance, **kwargs):
        # Numbers stay numbers in every format, so that only text is quoted in spreadsheets.
        if isinstance(field.widget, widgets.NumberWidget):
            kwargs["force_native_type"] = True
        return super().export_field(field, instance, **kwargs)


class DocumentResource(ExportResource):
    study = fields.Field(attribute="study__slug", column_name="study")
    segments = fields.Field(column_name="segments")

    class Meta:
        model = Document
        fields = ["id", "study", "external_id", "input_id", "system", "kind", "position", "segments"]
        export_order = fields

    def dehydrate_segments(self, document):
        # The admin's queryset counts them in its own query (studies/admin/documents.py), so the
        # Export button does not ask once a document.
        counted = getattr(document, "segment_count", None)
        return document.segments.count() if counted is None else counted


def assignment_pseudonym(assignment):
    return annotator_pseudonym(assignment.study_id, assignment.worker_id)


class AssignmentResource(ExportResource):
    study = fields.Field(attribute="study__slug", column_name="study")
    document = fields.Field(attribute="document__external_id", column_name="document")
    annotator = fields.Field(column_name="annotator")

    class Meta:
        model = Assignment
        fields = ["id", "study", "document", "annotator", "kind", "block", "status", "current_segment",
                  "started_at", "submitted_at", "active_seconds", "worker_feedback"]  # fmt: skip
        export_order = fields

    def dehydrate_annotator(self, assignment):
        return assignment_pseudonym(assignment)
