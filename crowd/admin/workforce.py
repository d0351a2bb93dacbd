"""The live workforce and pay dashboard (report key `workforce`, computed when the page loads) and its CSV."""

import csv

from django.http import Http404, HttpResponse
from django.template.response import TemplateResponse
from django.urls import path, reverse

from accounts import policy
from accounts.models import Worker
from exports.spreadsheet import spreadsheet_safe

from ..pay import pay_of
from ..workforce import charts_of, report_of, workforce_figures, workforce_report

CSV_COLUMNS = [
    "annotator", "submitted", "open", "released", "median_active_minutes", "active_hours", "paid", "bonuses",
    "effective_hourly", "under_target", "speeding", "attention_failures", "agreement", "agreement_pairs",
]  # fmt: skip


class WorkforceViews:
    """Mixed into the listing admin: the dashboard's URLs live under /admin/crowd/listing/workforce/."""

    def workforce_urls(self):
        wrap = self.admin_site.admin_view
        return [
            path("workforce/", wrap(self.workforce_index_view), name="crowd_workforce_index"),
            path("workforce/<int:study_id>/", wrap(self.workforce_view), name="crowd_workforce"),
            path("workforce/<int:study_id>/csv/", wrap(self.workforce_csv_view), name="crowd_workforce_csv"),
        ]

    def _readable_study(self, request, study_id):
        study = policy.readable_studies(request.user).filter(pk=study_id).first()
        if study is None:
            raise Http404("No study with this id among your studies.")
        return study

    def workforce_index_view(self, request):
        studies = list(policy.readable_studies(request.user).order_by("-created_at"))
        for study in studies:
            # Pay and time only: a study's agreement figures wait for its own page.
            paid = pay_of(study).reward is not None
            study.pay_summary = (
                (workforce_report(study, agreement=False) or {}).get("study") if paid else None
            )
        context = {**self.admin_site.each_context(request), "opts": self.opts, "title": "Workforce and pay",
                   "studies": studies}  # fmt: skip
        return TemplateResponse(request, "admin/crowd/workforce_index.html", context)

    def _lines(self, request, study):
        """The report's lines, with each worker's platform id for who manages the study."""
        summary, rows = workforce_figures(study)
        report = report_of(study, summary, rows) or {"study": {}, "workers": []}
        if policy.sees_identities(request.user, study.pk):
            external = dict(
                Worker.objects.filter(pk__in=[row.worker_pk for row in rows]).values_list("pk", "external_id")
            )
            by_annotator = {row.annotator: external.get(row.worker_pk, "") for row in rows}
            for line in report["workers"]:
                line["platform_id"] = by_annotator.get(line["annotator"], "")
        return report

    def workforce_view(self, request, study_id):
        study = self._readable_study(request, study_id)
        workforce = self._lines(request, study)
        context = {
            **self.admin_site.each_context(request), "opts": self.opts, "title": f"Workforce and pay: {study.title}",
            "study": study, "workforce": workforce, "workforce_charts": charts_of(workforce) if workforce["workers"] else [],
            "show_identities": policy.sees_identities(request.user, study.pk),
            "csv_url": reverse("admin:crowd_workforce_csv", args=[study.pk]),
        }  # fmt: skip
        return TemplateResponse(request, "admin/crowd/workforce.html", context)

    def workforce_csv_view(self, request, study_id):
        study = self._readable_study(request, study_id)
        workforce = self._lines(request, study)
        columns = CSV_COLUMNS[:1] + (
            ["platform_id"] if policy.sees_identities(request.user, study.pk) else []
        )
        columns += CSV_COLUMNS[1:]
        response = HttpResponse(content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="{study.slug}-workforce.csv"'
        writer = csv.writer(response)
        writer.writerow(columns)
        for line in workforce["workers"]:
            writer.writerow([spreadsheet_safe(line.get(column, "")) for column in columns])
        return response
