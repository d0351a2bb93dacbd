"""The ledger in admin: read-only rows, sent by "Send" after a dry run."""

from django.contrib import admin, messages
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.template.response import TemplateResponse

from studies.admin.scoping import StudyListFilter

from .. import ledger, platforms
from ..models import LedgerEntry
from .scoping import ManagersOnlyAdmin


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
