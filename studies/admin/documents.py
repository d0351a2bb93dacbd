"""Documents: a scoped list, the text entered on the add and change pages, and a preview of each
as its segments and sentences."""

from django.contrib import admin
from django.core.exceptions import PermissionDenied
from django.db.models import Count, IntegerField, OuterRef, Subquery, Value
from django.db.models.functions import Coalesce
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html

from exports.admin_export import StreamedExportMixin
from exports.resources import EXPORT_FORMATS, DocumentResource
from studies.forms import DocumentForm
from studies.models import Document, Segment
from studies.services import document_segments_replace

from .preview import document_preview_html
from .scoping import StudyListFilter, StudyScopedAdmin


@admin.register(Document)
class DocumentAdmin(StreamedExportMixin, StudyScopedAdmin):
    resource_classes = [DocumentResource]
    formats = EXPORT_FORMATS
    form = DocumentForm

    list_display = ["external_id", "study", "kind", "system", "input_id", "segment_count", "preview_link"]
    list_select_related = ["study"]
    list_filter = [StudyListFilter, "kind", "system"]
    search_fields = ["external_id", "input_id", "system"]
    fields = [
        "study", "external_id", "input_id", "system", "kind", "position", "text", "source", "meta", "preview",
    ]  # fmt: skip
    readonly_fields = ["preview"]

    def get_queryset(self, request):
        # A subquery, not a join: the paginator's COUNT can then leave it out.
        segments = Segment.objects.filter(document=OuterRef("pk")).order_by().values("document")
        count = Subquery(segments.annotate(n=Count("pk")).values("n"), output_field=IntegerField())
        return super().get_queryset(request).annotate(segment_count=Coalesce(count, Value(0)))

    def get_readonly_fields(self, request, obj=None):
        # Moving a document to another study would strand its assignments.
        return [*self.readonly_fields, "study"] if obj is not None else self.readonly_fields

    def get_fields(self, request, obj=None):
        left_out = {"preview"} if obj is None else set()
        if obj is not None and not self.has_change_permission(request, obj):
            left_out.add("text")  # the form's own field; a reader sees the segments in the preview
        return [name for name in super().get_fields(request, obj) if name not in left_out]

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        if form.new_segments is not None:
            document_segments_replace(document=obj, segments=form.new_segments)

    @admin.display(description="segments", ordering="segment_count")
    def segment_count(self, document):
        return document.segment_count

    @admin.display(description="preview")
    def preview_link(self, document):
        return format_html(
            '<a href="{}">Preview</a>', reverse("admin:studies_document_preview", args=[document.pk])
        )

    @admin.display(description="segments and sentences")
    def preview(self, document):
        return document_preview_html(document.segments.order_by("index"))

    def get_urls(self):
        return [
            path(
                "<path:object_id>/preview/",
                self.admin_site.admin_view(self.preview_view),
                name="studies_document_preview",
            ),
            *super().get_urls(),
        ]

    def preview_view(self, request, object_id):
        document = self.get_object(request, object_id)
        if not self.has_view_or_change_permission(request, document):
            raise PermissionDenied
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": f"Preview of {document.external_id}",
            "subtitle": document.study.title,
            "original": document,
            "preview": document_preview_html(document.segments.order_by("index")),
        }
        return TemplateResponse(request, "admin/studies/document/preview.html", context)
