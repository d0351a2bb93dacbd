"""Studies: scoped list with progress, members, join link, and the researchers' tools."""

import json

from django.conf import settings
from django.contrib import admin, messages
from django.db.models import Count, IntegerField, OuterRef, Q, Subquery, Value
from django.db.models.functions import Coalesce
from django.http import HttpResponseRedirect
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join
from django.utils.module_loading import import_string
from django.utils.safestring import mark_safe

from accounts import policy
from accounts.models import StudyMembership
from annotations.models import Assignment
from studies import extensions
from studies.forms import LabelledInlineFormSet, MembershipForm, StudyForm
from studies.models import Document, Study, Taxonomy

from . import study_views
from .scoping import StudyScopedAdmin, forget_managed_studies, manages_study, request_field

STATUS_COLUMNS = {status: f"{status}_count" for status in Assignment.Status.values}
SHORT_DOCUMENTS_SHOWN = 20


def _count_per_study(model, **filters):
    rows = model.objects.filter(study=OuterRef("pk"), **filters).order_by().values("study")
    count = rows.annotate(n=Count("pk")).values("n")
    return Coalesce(Subquery(count, output_field=IntegerField()), Value(0))


def with_progress(queryset):
    """Annotate document_count and one <status>_count per assignment status.

    Correlated subqueries rather than a join: they run for the listed page
    only (the paginator's COUNT drops them), and each is an index lookup.
    """
    return queryset.annotate(
        document_count=_count_per_study(Document),
        **{column: _count_per_study(Assignment, status=status) for status, column in STATUS_COLUMNS.items()},
    )


def _count_column(status, label):
    column = STATUS_COLUMNS[status]

    @admin.display(description=label, ordering=column)
    def show(self, study):
        return getattr(study, column)

    return show


class MembershipInline(admin.TabularInline):
    """Who works on the study. A researcher may add colleagues as researchers or analysts."""

    model = StudyMembership
    form = MembershipForm  # a username to type, not a list of every login of the site
    formset = LabelledInlineFormSet
    extra = 0
    fields = ["user", "role"]
    verbose_name = "member"

    def _manages(self, request, study):
        return study is None or manages_study(request, study.pk)

    def has_add_permission(self, request, obj=None):
        return super().has_add_permission(request, obj) and self._manages(request, obj)

    def has_change_permission(self, request, obj=None):
        return super().has_change_permission(request, obj) and self._manages(request, obj)

    def has_delete_permission(self, request, obj=None):
        return super().has_delete_permission(request, obj) and self._manages(request, obj)


def readable_config(study, user):
    return json.dumps(policy.readable_config(user, study), indent=2, sort_keys=True)


@admin.register(Study)
class StudyAdmin(StudyScopedAdmin):
    study_path = "pk"
    form = StudyForm
    list_display = [
        "title",
        "slug",
        "protocol",
        "status",
        "documents",
        "work",
    ]
    list_filter = ["status", "protocol"]
    search_fields = ["title", "slug"]
    prepopulated_fields = {"slug": ["title"]}
    inlines = [MembershipInline]
    actions = ["generate_assignments"]
    fieldsets = [
        (None, {"fields": ["title", "slug", "protocol", "status", "taxonomy"]}),
        (
            "Work",
            {"fields": ["annotators_per_document", "max_documents_per_worker", "instructions", "config"]},
        ),
    ]
    overview_fieldset = ("Overview", {"fields": ["join_link", "progress"]})
    readonly_fields = ["join_link", "progress"]

    assigned = _count_column(Assignment.Status.ASSIGNED, "assigned")
    in_progress = _count_column(Assignment.Status.IN_PROGRESS, "in progress")
    submitted = _count_column(Assignment.Status.SUBMITTED, "submitted")
    released = _count_column(Assignment.Status.RELEASED, "released")

    @admin.display(description="assignments")
    def work(self, study):
        """Every status in one column, so that the list fits a laptop's screen."""
        return format_html_join(
            mark_safe("<br>"), "{} {}",  # noqa: S308 (a fixed tag)
            ((getattr(study, STATUS_COLUMNS[status]), label.lower()) for status, label in Assignment.Status.choices),
        )  # fmt: skip

    @admin.display(description="documents", ordering="document_count")
    def documents(self, study):
        return study.document_count

    def study_id_of(self, obj):
        return obj.pk

    def get_queryset(self, request):
        queryset = super().get_queryset(request)
        # The counts are for the list only; other pages need not pay for the join.
        if request.resolver_match and request.resolver_match.url_name == "studies_study_changelist":
            queryset = with_progress(queryset)
        return queryset

    def get_fieldsets(self, request, obj=None):
        fieldsets = [self.overview_fieldset, *self.fieldsets] if obj is not None else self.fieldsets
        if obj is not None and not policy.sees_identities(request.user, obj.pk):
            # Readers get the config without the crowd platform's completion link.
            fieldsets = [
                (title, {**options, "fields": [request_field(request, "config", readable_config) if name == "config"
                                               else name for name in options["fields"]]})
                for title, options in fieldsets
            ]  # fmt: skip
        return self.without_hidden(request, obj, fieldsets)

    def has_add_permission(self, request):
        # Any researcher may start a study (they become its researcher); no study needs to be managed first.
        return admin.ModelAdmin.has_add_permission(self, request)

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if db_field.name == "taxonomy":
            kwargs["queryset"] = Taxonomy.objects.for_user(request.user)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)
        if not change:
            # Whoever creates a study runs it; without this they could not see it.
            StudyMembership.objects.update_or_create(
                study=form.instance,
                user=request.user,
                defaults={"role": StudyMembership.Role.RESEARCHER},
            )
            forget_managed_studies(request)

    @admin.display(description="join link")
    def join_link(self, study):
        url = f"{settings.SITE_URL.rstrip('/')}/join/{study.join_key}/"
        return format_html(
            '<a href="{}">{}</a><div class="help">Workers who open it get their own assignments.</div>',
            url,
            url,
        )

    @admin.display(description="progress")
    def progress(self, study):
        rows = study.assignments.order_by().values("status").annotate(n=Count("pk"))
        counts = {row["status"]: row["n"] for row in rows}
        by_status = format_html_join(
            ", ",
            "{}: <strong>{}</strong>",
            ((label, counts.get(status, 0)) for status, label in Assignment.Status.choices),
        )
        wanted = study.annotators_per_document
        released = Q(assignments__status=Assignment.Status.RELEASED)
        active = Q(assignments__kind=Assignment.Kind.MAIN) & ~released
        main = study.documents.filter(kind=Document.Kind.MAIN)
        short = (
            main.annotate(active=Count("assignments", filter=active))
            .filter(active__lt=wanted)
            .order_by("position", "pk")
        )
        short_count = short.count()
        shown = short[:SHORT_DOCUMENTS_SHOWN].values_list("external_id", "active")
        listing = format_html_join(
            "", "<li>{} ({} of {})</li>", ((external_id, n, wanted) for external_id, n in shown)
        )
        more = short_count - SHORT_DOCUMENTS_SHOWN
        return format_html(
            "<div>Assignments — {}</div>"
            "<div>{} of {} main documents have fewer than {} active annotators{}</div>"
            "<ul>{}</ul>{}",
            by_status,
            short_count,
            main.count(),
            wanted,
            ":" if short_count else ".",
            listing,
            format_html("<div>… and {} more.</div>", more) if more > 0 else "",
        )

    def get_urls(self):
        wrap = self.admin_site.admin_view
        return [
            path("import/", wrap(self.import_bundle_view), name="studies_study_import"),
            *(
                path(route, wrap(self._extension_view(view)), name=name)
                for extension in extensions.registered()
                for route, view, name, _ in extension.study_admin_imports
            ),
            path(
                "<path:object_id>/documents/",
                wrap(self.add_documents_view),
                name="studies_study_add_documents",
            ),
            path(
                "<path:object_id>/assignments/",
                wrap(self.generate_assignments_view),
                name="studies_study_generate_assignments",
            ),
            *super().get_urls(),
        ]

    def import_bundle_view(self, request):
        return study_views.import_bundle(self, request)

    def _extension_view(self, dotted_path):
        """An extension's import page, by dotted path (study_admin_imports): no import of theirs here."""

        def view(request):
            return import_string(dotted_path)(self, request)

        return view

    def changelist_view(self, request, extra_context=None):
        imports = [
            (f"admin:{name}", text)
            for extension in extensions.registered()
            for _, _, name, text in extension.study_admin_imports
        ]
        return super().changelist_view(request, {**(extra_context or {}), "extension_imports": imports})

    def add_documents_view(self, request, object_id):
        return study_views.add_documents(self, request, object_id)

    def generate_assignments_view(self, request, object_id):
        return study_views.generate_assignments(self, request, object_id)

    @admin.action(description="Generate assignments for the selected study")
    def generate_assignments(self, request, queryset):
        studies = list(queryset[:2])
        if len(studies) != 1:
            self.message_user(request, "Select exactly one study to generate assignments.", messages.WARNING)
            return None
        if not self.has_change_permission(request, studies[0]):
            self.message_user(request, "You do not manage this study.", messages.ERROR)
            return None
        return HttpResponseRedirect(reverse("admin:studies_study_generate_assignments", args=[studies[0].pk]))
