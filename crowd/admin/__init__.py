"""Listings, the ledger and the workforce dashboard in admin.

The ledger is read-only here: rows are planned by the listing actions and
sent by "Send", which first shows what would be sent (the dry run) and
sends only after the researcher confirms. Every action and view asks the
access policy: only who manages a study reads or sends its ledger.
"""

import csv

from django.contrib import admin, messages
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html

from accounts import policy
from accounts.models import Worker
from exports.spreadsheet import spreadsheet_safe
from studies.admin.scoping import StudyListFilter, StudyScopedAdmin, manages_any_study

from . import ledger, platforms
from .bonuses import plan_bonuses
from .models import LedgerEntry, Listing
from .workforce import charts_of, workforce_figures, workforce_report

CSV_COLUMNS = [
    "annotator", "submitted", "open", "released", "median_active_minutes", "active_hours", "paid", "bonuses",
    "effective_hourly", "under_target", "speeding", "attention_failures", "agreement", "agreement_pairs",
]  # fmt: skip


class ManagersOnlyAdmin(StudyScopedAdmin):
    """Rows only who manages their study reads (policy rule read="managers"); actions are theirs too."""

    def get_queryset(self, request):
        queryset = super().get_queryset(request)
        return queryset.filter(policy.managed_condition(request.user, self.study_path))

    def get_actions(self, request):
        # The rows are "change: nobody" (no edit form), but managers act on them through the actions.
        return admin.ModelAdmin.get_actions(self, request) if manages_any_study(request) else {}

    def response_action(self, request, queryset):
        if request.POST.getlist(ACTION_CHECKBOX_NAME) and not manages_any_study(request):
            raise PermissionDenied
        managed = queryset.filter(policy.managed_condition(request.user, self.study_path))
        return admin.ModelAdmin.response_action(self, request, managed)


@admin.register(LedgerEntry)
class LedgerEntryAdmin(ManagersOnlyAdmin):
    list_display = ["id", "study", "action", "status", "amount", "currency", "annotator", "target", "planned_at",
                    "sent_at", "attempts", "error"]  # fmt: skip
    list_filter = [StudyListFilter, "status", "action", "platform", "sandbox"]
    list_select_related = ["study", "worker"]
    identity_columns = {"annotator": ("worker", "worker")}
    search_fields = ["key", "target"]
    readonly_fields = ["study", "listing", "platform", "sandbox", "action", "key", "worker", "assignment", "target",
                       "amount", "currency", "reason", "request", "response", "error", "status", "attempts",
                       "planned_by", "planned_at", "sent_by", "sent_at"]  # fmt: skip
    actions = ["send_entries", "cancel_entries", "mark_not_sent"]

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False  # the ledger is the record of what was paid: nothing is deleted

    @admin.action(description="Send the selected entries (shows what would be sent first)")
    def send_entries(self, request, queryset):
        entries = list(queryset.select_related("study", "worker").order_by("id"))
        if request.POST.get("confirm") != "send":
            return TemplateResponse(
                request,
                "admin/crowd/ledgerentry/send_preview.html",
                {
                    **self.admin_site.each_context(request), "opts": self.opts, "title": "Send to the platform?",
                    "entries": entries, "preview": ledger.preview(entries),
                    "sendable": [entry for entry in entries if entry.status in ledger.SENDABLE],
                    "action_checkbox_name": ACTION_CHECKBOX_NAME,
                },
            )  # fmt: skip
        try:
            outcome = ledger.send(entries, user=request.user, client_for=platforms.client_of_entry)
        except LookupError as error:
            self.message_user(request, str(error), messages.ERROR)
            return None
        level = messages.ERROR if outcome["failed"] else messages.SUCCESS
        self.message_user(
            request,
            f"{outcome['sent']} sent, {outcome['failed']} failed, {outcome['skipped']} skipped "
            "(already sent, cancelled or being sent).",
            level,
        )
        return None

    @admin.action(description="Cancel the selected planned entries")
    def cancel_entries(self, request, queryset):
        self.message_user(request, f"{ledger.cancel(queryset, user=request.user)} cancelled.")

    @admin.action(description="Mark entries left 'sending' as not sent (after checking on the platform)")
    def mark_not_sent(self, request, queryset):
        self.message_user(request, f"{ledger.mark_failed(queryset, user=request.user)} may be sent again.")


@admin.register(Listing)
class ListingAdmin(ManagersOnlyAdmin):
    list_display = ["external_id", "study", "platform", "sandbox", "status", "places", "reward", "currency",
                    "created_at", "ledger_link"]  # fmt: skip
    list_filter = [StudyListFilter, "platform", "sandbox"]
    list_select_related = ["study"]
    readonly_fields = ["study", "platform", "external_id", "sandbox", "title", "places", "reward", "currency",
                       "status", "qualification_type", "created_by", "created_at"]  # fmt: skip
    actions = ["plan_approvals", "plan_bonuses_action"]

    def has_add_permission(self, request):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    @admin.display(description="ledger")
    def ledger_link(self, listing):
        url = reverse("admin:crowd_ledgerentry_changelist") + f"?study={listing.study_id}"
        return format_html('<a href="{}">ledger</a>', url)

    def _each(self, request, queryset, plan):
        for listing in queryset.select_related("study"):
            try:
                client = platforms.client_for(listing.platform, sandbox=listing.sandbox)
                planned = plan(listing, client)
            except (ledger.PlatformError, LookupError, ValueError) as error:
                self.message_user(request, f"{listing}: {error}", messages.ERROR)
                continue
            self.message_user(request, f"{listing}: {planned}")

    @admin.action(description="Plan approvals of the submitted work (preview in the ledger)")
    def plan_approvals(self, request, queryset):
        def plan(listing, client):
            planned, unmatched = client.plan_approvals(listing, user=request.user)
            return f"{len(planned)} approvals planned; {len(unmatched)} submissions not matched to work here."

        self._each(request, queryset, plan)

    @admin.action(description="Plan the bonuses of the study's pay rules (preview in the ledger)")
    def plan_bonuses_action(self, request, queryset):
        def plan(listing, client):
            rows = plan_bonuses(listing, user=request.user, client=client)
            return f"{sum(created for _, created in rows)} bonuses planned ({len(rows)} owed in all)."

        self._each(request, queryset, plan)

    # --- the workforce dashboard ---

    def get_urls(self):
        wrap = self.admin_site.admin_view
        return [
            path("workforce/", wrap(self.workforce_index_view), name="crowd_workforce_index"),
            path("workforce/<int:study_id>/", wrap(self.workforce_view), name="crowd_workforce"),
            path("workforce/<int:study_id>/csv/", wrap(self.workforce_csv_view), name="crowd_workforce_csv"),
            *super().get_urls(),
        ]

    def _readable_study(self, request, study_id):
        study = policy.readable_studies(request.user).filter(pk=study_id).first()
        if study is None:
            raise Http404("No study with this id among your studies.")
        return study

    def workforce_index_view(self, request):
        studies = policy.readable_studies(request.user).order_by("-created_at")
        context = {**self.admin_site.each_context(request), "opts": self.opts, "title": "Workforce and pay",
                   "studies": studies}  # fmt: skip
        return TemplateResponse(request, "admin/crowd/workforce_index.html", context)

    def _lines(self, request, study):
        """The report's lines, with each worker's platform id for who manages the study."""
        report = workforce_report(study) or {"study": {}, "workers": []}
        if policy.sees_identities(request.user, study.pk):
            _, rows = workforce_figures(study)
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
