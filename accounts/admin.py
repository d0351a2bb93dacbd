"""Workers and study memberships, scoped to the user's studies."""

from django.contrib import admin
from django.db.models import Count, IntegerField, OuterRef, Subquery, Value
from django.db.models.functions import Coalesce
from django.http import Http404

from accounts import policy
from annotations.models import Assignment
from studies.admin.scoping import StudyListFilter, StudyScopedAdmin
from studies.forms import MembershipForm

from .models import StudyMembership, Worker


@admin.register(Worker)
class WorkerAdmin(admin.ModelAdmin):
    """Workers who hold assignments in the user's studies.

    A worker identity is shared by every study it works in, so only a
    superuser may create, change or delete one; researchers read the workers
    of the studies they manage. Analysts see none (accounts/policy.py): they
    know annotators by their pseudonym in each study.
    """

    list_display = ["external_id", "platform", "user", "assignment_count"]
    list_select_related = ["user"]
    list_filter = ["platform"]
    search_fields = ["external_id"]

    def get_queryset(self, request):
        queryset = super().get_queryset(request)
        assignments = Assignment.objects.filter(worker=OuterRef("pk"))
        if not request.user.is_superuser:
            studies = list(policy.managed_study_ids(request.user))
            assignments = assignments.filter(study__in=studies)
            queryset = queryset.filter(
                pk__in=Assignment.objects.filter(study__in=studies).values("worker_id")
            )
        count = assignments.order_by().values("worker").annotate(n=Count("pk")).values("n")
        return queryset.annotate(
            assignment_count=Coalesce(Subquery(count, output_field=IntegerField()), Value(0))
        )

    def get_object(self, request, object_id, from_field=None):
        obj = super().get_object(request, object_id, from_field)
        if obj is None:
            raise Http404("No worker with this id in your studies.")
        return obj

    @admin.display(description="assignments", ordering="assignment_count")
    def assignment_count(self, worker):
        return worker.assignment_count

    def has_view_permission(self, request, obj=None):
        return super().has_view_permission(request, obj) and (
            request.user.is_superuser or bool(policy.managed_study_ids(request.user))
        )

    def has_add_permission(self, request):
        return request.user.is_superuser

    def has_change_permission(self, request, obj=None):
        return request.user.is_superuser

    def has_delete_permission(self, request, obj=None):
        return request.user.is_superuser


@admin.register(StudyMembership)
class StudyMembershipAdmin(StudyScopedAdmin):
    list_display = ["user", "study", "role"]
    list_select_related = ["user", "study"]
    list_filter = [StudyListFilter, "role"]
    search_fields = ["user__username", "study__title"]
    form = MembershipForm  # a username to type, not a list of every login of the site
