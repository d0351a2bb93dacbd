"""The admin side of the access policy (accounts/policy.py), shared by every model admin.

Reads start from the studies the user may read; changes, list_editable
saves, actions and custom views need a study the user manages; identity
fields and columns are shown only on rows of studies the user manages (an
analyst sees annotators by pseudonym). Another study's object is a 404, as
everywhere else on the site (STYLE.md), whether it exists or not.
"""

import re

from django.contrib import admin
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.core.exceptions import PermissionDenied
from django.http import Http404

from accounts import policy
from accounts.pseudonyms import annotator_pseudonym
from studies.models import Study


def forget_managed_studies(request):
    """Call after a membership changes within the request (e.g. a study was just created)."""
    policy.forget_roles(request.user)


def manages_study(request, study_id):
    return policy.may_manage_study(request.user, study_id)


def manages_any_study(request):
    return request.user.is_superuser or bool(policy.managed_study_ids(request.user))


def managed_study_ids(request):
    """Ids of the studies the request's user manages (superusers: see manages_study)."""
    return policy.managed_study_ids(request.user)


def request_field(request, name, render):
    """A read-only admin field shown as `render(obj, request.user)`, for what the policy
    lets that user see. One function per request and name: a form's fields and its
    read-only fields must name the same object."""
    fields = request.__dict__.setdefault("_policy_fields", {})
    if name not in fields:

        def field(obj):
            return render(obj, request.user)

        field.short_description = name
        field.__name__ = name
        fields[name] = field
    return fields[name]


def _path_value(obj, path):
    for name in path.split("__"):
        obj = getattr(obj, name)
    return obj


_FORM_ID = re.compile(r"^form-\d+-id$")


class StudyScopedAdmin(admin.ModelAdmin):
    """A model admin whose rows belong to a study reached through `study_path`.

    `identity_columns` maps a list_display name to (path to the Worker, column
    title): it shows the platform id or the pseudonym per row. `identity_search_fields` are searched only among rows of studies the
    user manages (searching an analyst's rows by PROLIFIC_PID would tell them
    who is who). Fields the policy hides are left out of the change page.
    """

    study_path = "study"
    identity_columns = {}
    identity_search_fields = ()

    @property
    def rule(self):
        return policy.rule_for(self.model)

    def study_id_of(self, obj):
        return _path_value(obj, self.study_path + "_id")

    # --- reads ---

    def get_queryset(self, request):
        return policy.readable_rows(super().get_queryset(request), request.user, self.study_path)

    def get_object(self, request, object_id, from_field=None):
        obj = super().get_object(request, object_id, from_field)
        if obj is None:
            raise Http404(f"No {self.opts.verbose_name} with this id among your studies.")
        return obj

    def get_list_display(self, request):
        columns = []
        for name in super().get_list_display(request):
            if name in self.identity_columns:
                name = self._identity_column(request, name, *self.identity_columns[name])
            columns.append(name)
        return columns

    @admin.display(description="annotator")
    def annotator(self, obj):
        """The pseudonym: what an identity column shows when no request tells who is reading.

        get_list_display swaps in a column bound to the request (platform ids for managers)."""
        worker_path = self.identity_columns["annotator"][0]
        return annotator_pseudonym(self.study_id_of(obj), _path_value(obj, worker_path).pk)

    def _identity_column(self, request, name, worker_path, description):
        """The worker's platform id to who manages the row's study, the pseudonym to everyone else."""

        def column(obj):
            study_id, worker = self.study_id_of(obj), _path_value(obj, worker_path)
            if policy.sees_identities(request.user, study_id):
                return worker.external_id
            return annotator_pseudonym(study_id, worker.pk)

        column.short_description = description
        column.__name__ = name
        return column

    def hidden_fields(self, request, obj):
        if obj is None:
            return frozenset()
        return policy.hidden_fields(request.user, self.model, self.study_id_of(obj))

    def get_fields(self, request, obj=None):
        hidden = self.hidden_fields(request, obj)
        return [name for name in super().get_fields(request, obj) if name not in hidden]

    def get_fieldsets(self, request, obj=None):
        return self.without_hidden(request, obj, super().get_fieldsets(request, obj))

    def without_hidden(self, request, obj, fieldsets):
        hidden = self.hidden_fields(request, obj)
        if not hidden:
            return fieldsets
        return [
            (title, {**options, "fields": [name for name in options["fields"] if name not in hidden]})
            for title, options in fieldsets
        ]

    def get_search_results(self, request, queryset, search_term):
        results, may_have_duplicates = super().get_search_results(request, queryset, search_term)
        if search_term and self.identity_search_fields:
            managed = queryset.filter(policy.managed_condition(request.user, self.study_path))
            by_identity = managed.filter(
                **{f"{self.identity_search_fields[0]}__icontains": search_term.strip()}
            )
            for field in self.identity_search_fields[1:]:
                by_identity |= managed.filter(**{f"{field}__icontains": search_term.strip()})
            results = results | by_identity
            may_have_duplicates = True
        return results, may_have_duplicates

    # --- writes ---

    def manages(self, request, obj):
        return manages_any_study(request) if obj is None else manages_study(request, self.study_id_of(obj))

    def _may_change(self, request, obj):
        allowed = self.rule.change
        if allowed == "nobody":
            return False
        if allowed == "superusers":
            return request.user.is_superuser
        return self.manages(request, obj)

    def has_add_permission(self, request):
        return super().has_add_permission(request) and self._may_change(request, None)

    def has_change_permission(self, request, obj=None):
        return super().has_change_permission(request, obj) and self._may_change(request, obj)

    def has_delete_permission(self, request, obj=None):
        return super().has_delete_permission(request, obj) and self._may_change(request, obj)

    def get_deleted_objects(self, objs, request):
        # The "delete selected" action checks only model permissions: refuse rows
        # of studies the user merely reads (an analyst membership).
        deleted, counts, perms_needed, protected = super().get_deleted_objects(objs, request)
        if not all(self.manages(request, obj) for obj in objs):
            perms_needed = set(perms_needed) | {f"{self.opts.verbose_name} of a study you do not manage"}
        return deleted, counts, perms_needed, protected

    def get_actions(self, request):
        # Every action writes: none for who manages no study (analysts, experts).
        return super().get_actions(request) if self._may_change(request, None) else {}

    def response_action(self, request, queryset):
        # An action only ever sees the selected rows of studies the user manages.
        selected = request.POST.getlist(ACTION_CHECKBOX_NAME)
        if selected and not self._may_change(request, None):
            raise PermissionDenied
        managed = queryset.filter(policy.managed_condition(request.user, self.study_path))
        return super().response_action(request, managed)

    def get_changelist_instance(self, request):
        changelist = super().get_changelist_instance(request)
        if not self._may_change(request, None):
            changelist.list_editable = ()
        return changelist

    def changelist_view(self, request, extra_context=None):
        if request.method == "POST" and "_save" in request.POST and self.list_editable:
            # list_editable saves rows by id: every one must be a row the user may change.
            ids = {value for key, value in request.POST.items() if _FORM_ID.match(key)}
            if not self._may_change(request, None):
                raise PermissionDenied
            managed = self.get_queryset(request).filter(
                policy.managed_condition(request.user, self.study_path),
                pk__in=[i for i in ids if i.isdigit()],
            )
            if managed.count() != len(ids):
                raise PermissionDenied
        return super().changelist_view(request, extra_context)

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if db_field.related_model is Study:
            kwargs["queryset"] = policy.managed_studies(request.user)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)


class StudyListFilter(admin.SimpleListFilter):
    """Filter by study, offering only the studies the user may see."""

    title = "study"
    parameter_name = "study"

    def __init__(self, request, params, model, model_admin):
        self.study_path = model_admin.study_path
        super().__init__(request, params, model, model_admin)

    def lookups(self, request, model_admin):
        studies = policy.readable_studies(request.user).order_by("title").values_list("pk", "title")
        return [(str(pk), title) for pk, title in studies]

    def queryset(self, request, queryset):
        value = self.value()
        if value and value.isdigit():
            return queryset.filter(**{self.study_path: int(value)})
        return queryset
