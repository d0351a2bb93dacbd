"""The span protocol's admin: error annotations, read-only, scoped to the user's studies."""

from django.contrib import admin

from exports.admin_export import StreamedExportMixin
from exports.resources import EXPORT_FORMATS
from studies.admin.scoping import StudyListFilter, StudyScopedAdmin

from .models import ErrorAnnotation, Suggestion, SuggestionDecision
from .resources import ErrorAnnotationResource

TEXT_SHOWN = 80


# Columns shared by the admins of spans (annotations and suggestions).
@admin.display(description="segment", ordering="segment__index")
def segment_index(_admin, span):
    return span.segment.index


@admin.display(description="text")
def span_text(_admin, span):
    # A plain string: admin escapes it.
    text = span.text
    return text if len(text) <= TEXT_SHOWN else text[: TEXT_SHOWN - 1] + "…"


@admin.register(ErrorAnnotation)
class ErrorAnnotationAdmin(StreamedExportMixin, StudyScopedAdmin):
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

    def get_export_queryset(self, request):
        # The Export button writes each paired span's segment index: joined here, not read back
        # one segment a row (the changelist joins the rest through list_select_related).
        return super().get_export_queryset(request).select_related("paired_segment")

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

    segment_index = segment_index
    span_text = span_text


@admin.register(Suggestion)
class SuggestionAdmin(StudyScopedAdmin):
    """Read-only: the policy's change="nobody" (suggestions come from a run or a bundle)."""

    study_path = "document__study"
    list_display = [
        "document",
        "position",
        "category",
        "segment_index",
        "start",
        "end",
        "span_text",
        "source",
    ]
    list_select_related = ["document", "category", "segment"]
    list_filter = [StudyListFilter, "category__key"]
    search_fields = ["document__external_id", "text"]

    segment_index = segment_index
    span_text = span_text


@admin.register(SuggestionDecision)
class SuggestionDecisionAdmin(StudyScopedAdmin):
    """Read-only: the policy's change="nobody" (decisions are made on the task page)."""

    study_path = "assignment__study"
    list_display = ["assignment", "suggestion", "action", "seconds", "decided_at"]
    list_select_related = ["assignment__document", "suggestion"]
    list_filter = [StudyListFilter, "action"]
