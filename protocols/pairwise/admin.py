"""The pairwise protocol's admin: choices, read-only, scoped to the user's studies."""

from django.contrib import admin

from studies.admin.scoping import StudyListFilter, StudyScopedAdmin

from .models import PairwiseChoice


@admin.register(PairwiseChoice)
class PairwiseChoiceAdmin(StudyScopedAdmin):
    study_path = "assignment__study"
    list_display = [
        "study",
        "block",
        "position",
        "left_output",
        "right_output",
        "choice",
        "strength",
        "annotator",
    ]
    list_select_related = ["assignment__study", "assignment__worker", "left", "right"]
    list_filter = [StudyListFilter, "choice"]
    search_fields = ["left__external_id", "right__external_id", "assignment__block"]
    identity_search_fields = ("assignment__worker__external_id",)
    identity_columns = {"annotator": ("assignment__worker", "annotator")}

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False

    @admin.display(description="study", ordering="assignment__study__title")
    def study(self, choice):
        return choice.assignment.study

    @admin.display(description="block", ordering="assignment__block")
    def block(self, choice):
        return choice.assignment.block

    @admin.display(description="A (left)", ordering="left__external_id")
    def left_output(self, choice):
        return f"{choice.left.external_id} ({choice.left.system})"

    @admin.display(description="B (right)", ordering="right__external_id")
    def right_output(self, choice):
        return f"{choice.right.external_id} ({choice.right.system})"
