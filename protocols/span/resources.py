"""The admin Export button of error annotations (django-import-export)."""

from import_export import fields

from exports.resources import ExportResource, assignment_pseudonym

from .models import ErrorAnnotation


class ErrorAnnotationResource(ExportResource):
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
        return assignment_pseudonym(annotation.assignment)
