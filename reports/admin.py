"""Reports in admin: the list, the report page with tables and charts, JSON download."""

import json

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html
from django.views.decorators.http import require_POST

from accounts import policy
from reports.models import Report
from reports.page import report_page_context
from reports.services import ReportNotSent, report_request, reports_requeue_stale
from studies.admin.scoping import StudyListFilter, StudyScopedAdmin


@admin.register(Report)
class ReportAdmin(StudyScopedAdmin):
    list_display = [
        "__str__",
        "study",
        "status",
        "progress_percent",
        "requested_by",
        "created_at",
        "finished_at",
    ]
    list_filter = [StudyListFilter, "status", "kind"]
    list_select_related = ["study", "requested_by"]
    readonly_fields = [f.name for f in Report._meta.fields]

    @admin.display(description="progress")
    def progress_percent(self, report):
        return f"{round(report.progress * 100)} %"

    def has_add_permission(self, request):
        return False  # reports are requested from the study's page

    def has_change_permission(self, request, obj=None):
        return False  # a report is a record: read it, download it, request a new one

    def get_urls(self):
        wrap = self.admin_site.admin_view
        return [
            path(
                "request/<int:study_id>/",
                wrap(require_POST(self.request_view)),
                name="reports_report_request",
            ),
            path("<int:report_id>/json/", wrap(self.json_view), name="reports_report_json"),
            *super().get_urls(),
        ]

    def _report(self, request, report_id):
        return get_object_or_404(self.get_queryset(request).select_related("study"), pk=report_id)

    def change_view(self, request, object_id, form_url="", extra_context=None):
        if not str(object_id).isdigit():
            raise Http404
        report = self._report(request, int(object_id))
        if report.is_active:
            reports_requeue_stale()  # a researcher waiting on a dead worker's or lost message's job revives it
            report.refresh_from_db()
        context = {
            **self.admin_site.each_context(request),
            "opts": self.opts,
            "title": str(report),
            "report": report,
            "json_url": reverse("admin:reports_report_json", args=[report.pk]),
            **report_page_context(report),
        }
        return TemplateResponse(request, "admin/reports/report/page.html", context)

    def json_view(self, request, report_id):
        report = self._report(request, report_id)
        if report.status != Report.Status.DONE:
            raise Http404("This report is not finished.")
        response = HttpResponse(
            json.dumps(report.result, ensure_ascii=False, indent=2, sort_keys=True),
            content_type="application/json; charset=utf-8",
        )
        response["Content-Disposition"] = (
            f'attachment; filename="{report.study.slug}-report-{report.pk}.json"'
        )
        return response

    def request_view(self, request, study_id):
        study = get_object_or_404(policy.readable_studies(request.user), pk=study_id)
        if not policy.may_manage_study(request.user, study.pk):
            raise PermissionDenied  # analysts read reports; the study's researchers request them
        try:
            report, created = report_request(study=study, user=request.user)
        except ReportNotSent as refused:
            messages.error(request, str(refused))
            return redirect("admin:studies_study_change", study.pk)
        if created:
            messages.success(request, "The report is being computed.")
        else:
            messages.info(request, format_html("A report of this study is already {}.", report.status))
        return redirect("admin:reports_report_change", report.pk)
