"""Assignments, scoped to the user's studies.

Assignments are made by "Generate assignments" on a study or by a bundle
import (which keep study, document and worker consistent), so admin only
edits their status; annotations are the workers' own and are read-only here.
"""

from django.conf import settings
from django.contrib import admin
from django.utils.html import format_html

from exports.admin_export import StreamedExportMixin
from exports.resources import EXPORT_FORMATS, AssignmentResource
from studies.admin.scoping import StudyListFilter, StudyScopedAdmin

from .models import Assignment

TEXT_SHOWN = 80


@admin.register(Assignment)
class AssignmentAdmin(StreamedExportMixin, StudyScopedAdmin):
    resource_classes = [AssignmentResource]
    formats = EXPORT_FORMATS

    list_display = [
        "annotator",
        "document",
        "study",
        "kind",
        "arm",
        "status",
        "submitted_at",
        "active_seconds",
        "flagged",
    ]
    list_select_related = ["study", "document", "worker"]
    list_filter = [StudyListFilter, "status", "kind", "arm", "flagged"]
    search_fields = ["document__external_id"]
    identity_search_fields = ("worker__external_id",)
    identity_columns = {"annotator": ("worker", "annotator")}
    fields = [
        "study",
        "document",
        "worker",
        "kind",
        "block",
        "arm",
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
        "worker_feedback",
        "completion_code",
        "platform_ids",
    ]
    readonly_fields = [
        "study",
        "document",
        "worker",
        "arm",
        "token",
        "task_url",
        "current_segment",
        "segments_visited",
        "created_at",
        "started_at",
        "last_activity_at",
        "submitted_at",
        "active_seconds",
        "worker_feedback",
        "platform_ids",
    ]

    def has_add_permission(self, request):
        return False

    @admin.display(description="task URL")
    def task_url(self, assignment):
        url = settings.SITE_URL.rstrip("/") + assignment.task_path
        return format_html('<a href="{}">{}</a>', url, url)
