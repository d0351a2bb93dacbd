"""Qualification in admin: the dashboard of candidates, decisions, expert gold links."""

from django.conf import settings
from django.contrib import admin, messages
from django.db.models import Q
from django.shortcuts import get_object_or_404, redirect
from django.urls import path, reverse
from django.utils.html import format_html, format_html_join
from django.views.decorators.http import require_POST

from accounts import policy
from accounts.pseudonyms import annotator_pseudonym
from annotations.models import Assignment
from studies.admin.scoping import StudyScopedAdmin, request_field
from studies.models import Study

from .models import Qualification, QualificationResult
from .services import expert_assignments_generate, qualification_decide


def _f1_summary(result):
    parts = []
    # Sorted: PostgreSQL's jsonb does not keep the order the keys were written in.
    for key, values in sorted((result.scores.get("categories") or {}).items()):
        f1 = values.get("f1")
        parts.append(f"{key} {f1:.2f}" if f1 is not None else f"{key} –")
    return ", ".join(parts)


def qualification_dashboard(qualification, user):
    """Candidates x F1 per category, and failed attention checks, as the policy lets `user` see them."""
    if qualification.pk is None:
        return "Save first."

    def who(worker, study_id):
        if policy.sees_identities(user, study_id):
            return worker.external_id
        return annotator_pseudonym(study_id, worker.pk)

    def feedback(result):
        if not policy.sees_identities(
            user, qualification.study_id
        ):  # the link is the candidate's own key to their feedback page
            return "–"
        return format_html(
            "<a href='{}'>feedback</a>", reverse("qualification-feedback", args=[result.feedback_token])
        )

    results = qualification.results.select_related("worker").order_by("pk")
    rows = format_html_join(
        "",
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>",
        (
            (who(r.worker, qualification.study_id), r.get_status_display(), r.suggested or "–", _f1_summary(r),
             r.documents, r.active_seconds, feedback(r))
            for r in results
        ),
    )  # fmt: skip
    flagged = policy.in_readable_studies(
        Assignment.objects.filter(
            Q(study__in=qualification.required_by.all()) | Q(study=qualification.study), flagged=True
        ),
        user,
    ).select_related("worker", "document", "study")
    flagged_rows = format_html_join(
        "",
        "<li>{} on {} ({})</li>",
        (
            (who(a.worker, a.study_id), a.document.external_id, a.study.slug)
            for a in flagged
        ),
    )  # fmt: skip
    decide = (
        reverse("admin:qualification_qualificationresult_changelist")
        + f"?qualification__id__exact={qualification.pk}"
    )
    return format_html(
        '<table id="qualification-dashboard"><thead><tr><th>annotator</th><th>status</th><th>suggested</th>'
        "<th>F1 per category</th><th>documents</th><th>seconds</th><th></th></tr></thead><tbody>{}</tbody></table>"
        '<p><a href="{}">Approve or reject candidates, and write their messages</a></p>'
        "<h3>Failed attention checks</h3><ul id='flagged'>{}</ul>",
        rows, decide, flagged_rows or format_html("<li>{}</li>", "None."),
    )  # fmt: skip


@admin.register(Qualification)
class QualificationAdmin(StudyScopedAdmin):
    list_display = ["title", "slug", "study", "candidates"]
    fields = ["title", "slug", "study", "required_by", "thresholds", "default_message", "dashboard"]
    readonly_fields = ["dashboard"]
    filter_horizontal = ["required_by"]

    @admin.display(description="candidates")
    def candidates(self, qualification):
        return qualification.results.count()

    def formfield_for_manytomany(self, db_field, request, **kwargs):
        if db_field.name == "required_by":
            kwargs["queryset"] = Study.objects.managed_by(request.user)
        return super().formfield_for_manytomany(db_field, request, **kwargs)

    @admin.display(description="dashboard")
    def dashboard(self, qualification):
        # Without a request nobody is known to manage the study: pseudonyms, no feedback links.
        return qualification_dashboard(qualification, None)

    def get_readonly_fields(self, request, obj=None):
        return [
            request_field(request, "dashboard", qualification_dashboard) if name == "dashboard" else name
            for name in self.readonly_fields
        ]

    def get_fields(self, request, obj=None):
        return [
            request_field(request, "dashboard", qualification_dashboard) if name == "dashboard" else name
            for name in self.fields
        ]

    def get_urls(self):
        wrap = self.admin_site.admin_view
        return [
            path(
                "experts/<int:study_id>/",
                wrap(require_POST(self.experts_view)),
                name="qualification_expert_assignments",
            ),
            *super().get_urls(),
        ]

    def experts_view(self, request, study_id):
        study = get_object_or_404(Study.objects.managed_by(request.user), pk=study_id)
        created = expert_assignments_generate(study=study)
        links = format_html_join(
            "", "<li>{}: {} — {}{}</li>",
            ((a.worker.external_id, a.document.external_id, settings.SITE_URL, a.task_path) for a in created),
        )  # fmt: skip
        messages.success(
            request, format_html("{} gold assignments for experts: <ul>{}</ul>", len(created), links)
        )
        return redirect("admin:studies_study_change", study.pk)


class QualificationFilter(admin.SimpleListFilter):
    """Filter by qualification, offering only those of the user's studies."""

    title = "qualification"
    parameter_name = "qualification__id__exact"

    def lookups(self, request, model_admin):
        return [(str(q.pk), q.title) for q in Qualification.objects.for_user(request.user).order_by("title")]

    def queryset(self, request, queryset):
        value = self.value()
        return queryset.filter(qualification_id=int(value)) if value and value.isdigit() else queryset


@admin.register(QualificationResult)
class QualificationResultAdmin(StudyScopedAdmin):
    study_path = "qualification__study"
    list_display = [
        "annotator",
        "qualification",
        "status",
        "suggested",
        "f1_per_category",
        "documents",
        "active_seconds",
        "message",
    ]
    list_editable = ["message"]
    list_filter = ["status", "suggested"]
    list_select_related = ["worker", "qualification"]
    identity_columns = {"annotator": ("worker", "annotator")}
    readonly_fields = ["qualification", "worker", "scores", "suggested", "documents", "active_seconds",
                       "decided_by", "decided_at", "feedback_link"]  # fmt: skip
    fields = ["qualification", "worker", "status", "message", "suggested", "scores", "documents",
              "active_seconds", "decided_by", "decided_at", "feedback_link"]  # fmt: skip
    actions = ["approve", "reject", "follow_suggestion"]

    def has_add_permission(self, request):
        return False  # results come from scoring

    def get_list_filter(self, request):
        return [QualificationFilter, *self.list_filter]

    @admin.display(description="F1 per category")
    def f1_per_category(self, result):
        return _f1_summary(result)

    @admin.display(description="feedback page")
    def feedback_link(self, result):
        url = settings.SITE_URL + reverse("qualification-feedback", args=[result.feedback_token])
        return format_html('<a href="{}">{}</a>', url, url)

    def _decide(self, request, queryset, status):
        managed = [r for r in queryset.select_related("qualification") if self.manages(request, r)]
        count = qualification_decide(results=managed, status=status, user=request.user)
        self.message_user(request, f"{count} candidate(s) {status}.")

    @admin.action(description="Approve the selected candidates")
    def approve(self, request, queryset):
        self._decide(request, queryset, QualificationResult.Status.APPROVED)

    @admin.action(description="Reject the selected candidates")
    def reject(self, request, queryset):
        self._decide(request, queryset, QualificationResult.Status.REJECTED)

    @admin.action(description="Decide as suggested by the thresholds")
    def follow_suggestion(self, request, queryset):
        self._decide(request, queryset.filter(suggested="pass"), QualificationResult.Status.APPROVED)
        self._decide(request, queryset.filter(suggested="fail"), QualificationResult.Status.REJECTED)
