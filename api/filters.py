"""Query-string filters of the list endpoints. A value of the wrong type is a 400."""

from django import forms
from django_filters import rest_framework as filters
from drf_spectacular.utils import extend_schema_field

from annotations.models import Assignment
from api.selectors import annotator_condition
from api.serializers.fields import MAX_ID
from reports.models import Report
from studies import protocols
from studies.models import Document, Study


@extend_schema_field({"type": "integer", "minimum": 1, "maximum": MAX_ID})
class IdFilter(filters.NumberFilter):
    """An id: a whole number (django-filter's NumberFilter would take 1.5 for 1)."""

    field_class = forms.IntegerField

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("min_value", 1)
        kwargs.setdefault("max_value", MAX_ID)
        super().__init__(*args, **kwargs)


class AnnotatorFilter(filters.CharFilter):
    """Rows of one annotator, named by the pseudonymous id the API shows."""

    def __init__(self, *, assignment_path="", **kwargs):
        self.assignment_path = assignment_path
        kwargs.setdefault("help_text", 'Pseudonymous annotator id, e.g. "A3f9c2e01b7".')
        super().__init__(**kwargs)

    def filter(self, queryset, value):
        if not value:
            return queryset
        study_id = self.parent.form.cleaned_data.get("study")
        condition = annotator_condition(
            self.parent.request.user, value, study_id=study_id, assignment_path=self.assignment_path
        )
        return queryset.filter(condition)


class DocumentFilter(filters.FilterSet):
    study = IdFilter(field_name="study_id", help_text="Study id.")
    kind = filters.ChoiceFilter(choices=Document.Kind.choices)
    external_id = filters.CharFilter(help_text="The document's id in its bundle.")

    class Meta:
        model = Document
        fields = ["study", "kind", "external_id"]


class AssignmentFilter(filters.FilterSet):
    study = IdFilter(field_name="study_id", help_text="Study id.")
    document = filters.CharFilter(field_name="document__external_id", help_text="Document external id.")
    status = filters.ChoiceFilter(choices=Assignment.Status.choices)
    kind = filters.ChoiceFilter(choices=Assignment.Kind.choices)
    annotator = AnnotatorFilter()

    class Meta:
        model = Assignment
        fields = ["study", "document", "status", "kind", "annotator"]


class ReportFilter(filters.FilterSet):
    study = IdFilter(field_name="study_id", help_text="Study id.")
    status = filters.ChoiceFilter(choices=Report.Status.choices)

    class Meta:
        model = Report
        fields = ["study", "status"]


class StudyFilter(filters.FilterSet):
    status = filters.ChoiceFilter(choices=Study.Status.choices)
    protocol = filters.ChoiceFilter(choices=protocols.choices)
    slug = filters.CharFilter()

    class Meta:
        model = Study
        fields = ["status", "protocol", "slug"]
