"""Per-study scoping shared by every admin: a researcher sees only their studies.

Reads start from `Study.objects.for_user` (members: researchers and analysts);
changes need `Study.objects.managed_by` (researchers). Another study's object
is a 404, as everywhere else on the site (STYLE.md), whether it exists or not.
"""

from django.contrib import admin
from django.http import Http404

from studies.models import Study

_MANAGED_CACHE = "_managed_study_ids"


def visible_studies(user):
    """A subquery of the ids of the studies `user` may see (no DISTINCT in the outer query)."""
    return Study.objects.for_user(user).values("pk")


def managed_study_ids(request):
    """Ids of the studies the request's user manages, read once per request."""
    if not hasattr(request, _MANAGED_CACHE):
        ids = Study.objects.managed_by(request.user).values_list("pk", flat=True)
        setattr(request, _MANAGED_CACHE, set(ids))
    return getattr(request, _MANAGED_CACHE)


def forget_managed_studies(request):
    """Call after a membership changes within the request (e.g. a study was just created)."""
    if hasattr(request, _MANAGED_CACHE):
        delattr(request, _MANAGED_CACHE)


def manages_study(request, study_id):
    return request.user.is_superuser or study_id in managed_study_ids(request)


class StudyScopedAdmin(admin.ModelAdmin):
    """A model admin whose rows belong to a study reached through `study_path`.

    Rows of studies the user is not a member of are left out of every list and
    give 404 on their pages; rows of studies the user only reads (analyst) are
    read-only. Foreign keys to Study offer only the studies the user manages.
    """

    study_path = "study"

    def study_id_of(self, obj):
        for name in self.study_path.split("__")[:-1]:
            obj = getattr(obj, name)
        return getattr(obj, self.study_path.split("__")[-1] + "_id")

    def get_queryset(self, request):
        queryset = super().get_queryset(request)
        if request.user.is_superuser:
            return queryset
        return queryset.filter(**{f"{self.study_path}__in": visible_studies(request.user)})

    def get_object(self, request, object_id, from_field=None):
        obj = super().get_object(request, object_id, from_field)
        if obj is None:
            raise Http404(f"No {self.opts.verbose_name} with this id among your studies.")
        return obj

    def manages(self, request, obj):
        return obj is None or manages_study(request, self.study_id_of(obj))

    def has_change_permission(self, request, obj=None):
        return super().has_change_permission(request, obj) and self.manages(request, obj)

    def has_delete_permission(self, request, obj=None):
        return super().has_delete_permission(request, obj) and self.manages(request, obj)

    def get_deleted_objects(self, objs, request):
        # The "delete selected" action checks only model permissions: refuse rows
        # of studies the user merely reads (an analyst membership).
        deleted, counts, perms_needed, protected = super().get_deleted_objects(objs, request)
        if not all(self.manages(request, obj) for obj in objs):
            perms_needed = set(perms_needed) | {f"{self.opts.verbose_name} of a study you do not manage"}
        return deleted, counts, perms_needed, protected

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if db_field.related_model is Study:
            kwargs["queryset"] = Study.objects.managed_by(request.user)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


class StudyListFilter(admin.SimpleListFilter):
    """Filter by study, offering only the studies the user may see."""

    title = "study"
    parameter_name = "study"

    def __init__(self, request, params, model, model_admin):
        self.study_path = model_admin.study_path
        super().__init__(request, params, model, model_admin)

    def lookups(self, request, model_admin):
        studies = Study.objects.for_user(request.user).order_by("title").values_list("pk", "title")
        return [(str(pk), title) for pk, title in studies]

    def queryset(self, request, queryset):
        value = self.value()
        if value and value.isdigit():
            return queryset.filter(**{self.study_path: int(value)})
        return queryset
