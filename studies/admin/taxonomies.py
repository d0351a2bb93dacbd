"""Taxonomies and their categories, edited together."""

from django.contrib import admin
from django.http import Http404

from studies.forms import CategoryForm, LabelledInlineFormSet
from studies.models import Category, Taxonomy

from .scoping import managed_study_ids


def can_edit_taxonomy(request, taxonomy):
    """Whoever manages every study using a taxonomy may edit it; its creator too while no study does.

    Studies share taxonomies (same slug and version): editing one a colleague's
    study also uses would change their categories under them, so being its
    creator is not enough once another researcher's study uses it.
    """
    user = request.user
    if taxonomy is None or user.is_superuser:
        return True
    cache = request.__dict__.setdefault("_taxonomy_study_ids", {})
    if taxonomy.pk not in cache:
        cache[taxonomy.pk] = set(taxonomy.studies.values_list("pk", flat=True))
    study_ids = cache[taxonomy.pk]
    if study_ids:
        return study_ids <= managed_study_ids(request)
    return taxonomy.created_by_id == user.pk


class CategoryInline(admin.TabularInline):
    model = Category
    form = CategoryForm
    formset = LabelledInlineFormSet
    extra = 0

    class Media:
        css = {"all": ["studies/category_inline.css"]}

    def has_add_permission(self, request, obj=None):
        return super().has_add_permission(request, obj) and can_edit_taxonomy(request, obj)

    def has_change_permission(self, request, obj=None):
        return super().has_change_permission(request, obj) and can_edit_taxonomy(request, obj)

    def has_delete_permission(self, request, obj=None):
        return super().has_delete_permission(request, obj) and can_edit_taxonomy(request, obj)


@admin.register(Taxonomy)
class TaxonomyAdmin(admin.ModelAdmin):
    list_display = ["name", "slug", "version", "created_by"]
    list_select_related = ["created_by"]
    search_fields = ["name", "slug"]
    fields = ["slug", "name", "version", "description"]
    inlines = [CategoryInline]

    def get_queryset(self, request):
        queryset = super().get_queryset(request)
        if request.user.is_superuser:
            return queryset
        return queryset.filter(pk__in=Taxonomy.objects.for_user(request.user).values("pk"))

    def get_object(self, request, object_id, from_field=None):
        obj = super().get_object(request, object_id, from_field)
        if obj is None:
            raise Http404("No taxonomy with this id among your studies.")
        return obj

    def has_change_permission(self, request, obj=None):
        return super().has_change_permission(request, obj) and can_edit_taxonomy(request, obj)

    def has_delete_permission(self, request, obj=None):
        return super().has_delete_permission(request, obj) and can_edit_taxonomy(request, obj)

    def save_model(self, request, obj, form, change):
        if not change:
            obj.created_by = request.user
        super().save_model(request, obj, form, change)
