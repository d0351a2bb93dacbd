"""Admin rows that only who manages their study reads, and acts on."""

from django.contrib import admin
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.core.exceptions import PermissionDenied

from accounts import policy
from studies.admin.scoping import StudyScopedAdmin, manages_any_study


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
