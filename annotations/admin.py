"""Assignments and error annotations, scoped to the user's studies.

Assignments are made by "Generate assignments" on a study or by a bundle
import (which keep study, document and worker consistent), so admin only
edits their status; annotations are the workers' own and are read-only here.
"""

from django.conf import settings
from django.contrib import admin
from django.utils.html import format_html
from import_export.admin import ExportMixin

from exports.resources import EXPORT_FORMATS, AssignmentResource, ErrorAnnotationResource
from studies.admin.scoping import StudyListFilter, StudyScopedAdmin

from .models import Assignment, ErrorAnnotation

TEXT_SHOWN = 80


@admin.register(Assignment)
class AssignmentAdmin(ExportMixin, StudyScopedAdmin):
    resource_classes = [AssignmentResource]
    formats = EXPORT_FORMATS

    list_display = [
        "annotator",
        "document",
        "study",
        "kind",
        "status",
        "submitted_at",
        "active_seconds",
        "flagged",
    ]
    list_select_related = ["study", "document", "worker"]
    list_filter = [StudyListFilter, "status", "kind", "flagged"]
    search_fields = ["document__external_id"]
    identity_search_fields = ("worker__external_id",)
    identity_columns = {"annotator": ("worker", "annotator")}
    fields = [
        "study",
        "document",
        "worker",
        "kind",
        "block",
        "status",
        "token",
        "task_url",
        "current_segment",
        "segments_visited",
        "created_at",
        "started_at",
        "last_activity_at",
        "submitted_at",
        "active_seconds",
        "completion_code",
        "platform_ids",
    ]
    readonly_fields = [
        "study",
        "document",
        "worker",
        "token",
        "task_url",
        "current_segment",
        "segments_visited",
        "created_at",
        "started_at",
        "last_activity_at",
        "submitted_at",
        "active_seconds",
        "platform_ids",
    ]

    def has_add_permission(self, request):
        return False

    @admin.display(description="task URL")
    def task_url(self, assignment):
        url = settings.SITE_URL.rstrip("/") + assignment.task_path
        return format_html('<a href="{}">{}</a>', url, url)


@admin.register(ErrorAnnotation)
class ErrorAnnotationAdmin(ExportMixin, StudyScopedAdmin):
    resource_classes = [ErrorAnnotationResource]
    formats = EXPORT_FORMATS

    study_path = "assignment__study"
    list_display = [
        "study",
        "document",
        "annotator",
        "category_key",
        "segment_index",
        "start",
        "end",
        "span_text",
    ]
    list_select_related = [
        "assignment__study",
        "assignment__document",
        "assignment__worker",
        "category",
        "segment",
    ]
    list_filter = [StudyListFilter, "category__key"]
    search_fields = ["assignment__document__external_id", "text"]
    identity_search_fields = ("assignment__worker__external_id",)
    identity_columns = {"annotator": ("assignment__worker", "annotator")}

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    @admin.display(description="study", ordering="assignment__study__title")
    def study(self, annotation):
        return annotation.assignment.study

    @admin.display(description="document", ordering="assignment__document__external_id")
    def document(self, annotation):
        return annotation.assignment.document.external_id

    @admin.display(description="category", ordering="category__key")
    def category_key(self, annotation):
        return annotation.category.key

    @admin.display(description="segment", ordering="segment__index")
    def segment_index(self, annotation):
        return annotation.segment.index

    @admin.display(description="text")
    def span_text(self, annotation):
        # A plain string: admin escapes it.
        text = annotation.text
        return text if len(text) <= TEXT_SHOWN else text[: TEXT_SHOWN - 1] + "…"
