"""django-import-export resources: the admin's Export button for documents,
assignments and annotations (CSV, XLSX, JSON), with the admin's filters applied.

Import through these is off: data comes in through study bundles, which
check every row first (docs/bundle-format.md). Annotators appear under their
pseudonymous id, as in every analyst-facing file.
"""

from import_export import fields, resources
from import_export.formats.base_formats import CSV, JSON, XLSX

from accounts.pseudonyms import annotator_pseudonym
from annotations.models import Assignment, ErrorAnnotation
from studies.models import Document

EXPORT_FORMATS = [CSV, XLSX, JSON]


class DocumentResource(resources.ModelResource):
    study = fields.Field(attribute="study__slug", column_name="study")
    segments = fields.Field(column_name="segments")

    class Meta:
        model = Document
        fields = ["id", "study", "external_id", "input_id", "system", "kind", "position", "segments"]
        export_order = fields

    def dehydrate_segments(self, document):
        return document.segments.count()


def _pseudonym(assignment):
    return annotator_pseudonym(assignment.study_id, assignment.study.join_key, assignment.worker_id)


class AssignmentResource(resources.ModelResource):
    study = fields.Field(attribute="study__slug", column_name="study")
    document = fields.Field(attribute="document__external_id", column_name="document")
    annotator = fields.Field(column_name="annotator")

    class Meta:
        model = Assignment
        fields = ["id", "study", "document", "annotator", "kind", "block", "status", "current_segment",
                  "started_at", "submitted_at", "active_seconds"]  # fmt: skip
        export_order = fields

    def dehydrate_annotator(self, assignment):
        return _pseudonym(assignment)


class ErrorAnnotationResource(resources.ModelResource):
    study = fields.Field(attribute="assignment__study__slug", column_name="study")
    document = fields.Field(attribute="assignment__document__external_id", column_name="document")
    segment = fields.Field(attribute="segment__index", column_name="segment")
    category = fields.Field(attribute="category__key", column_name="category")
    paired_segment = fields.Field(attribute="paired_segment__index", column_name="paired_segment")
    annotator = fields.Field(column_name="annotator")
    kind = fields.Field(attribute="assignment__kind", column_name="kind")

    class Meta:
        model = ErrorAnnotation
        fields = ["id", "study", "document", "segment", "start", "end", "text", "category", "paired_segment",
                  "paired_start", "paired_end", "paired_text", "comment", "annotator", "assignment", "kind",
                  "created_at"]  # fmt: skip
        export_order = fields

    def dehydrate_annotator(self, annotation):
        return _pseudonym(annotation.assignment)
