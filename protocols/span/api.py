"""The span protocol's part of the REST API: /api/annotations/, the error annotations."""

from django_filters import rest_framework as filters
from drf_spectacular.utils import extend_schema, extend_schema_view
from rest_framework import serializers, viewsets

from accounts.policy import in_readable_studies
from annotations.models import Assignment
from api.filters import AnnotatorFilter, IdFilter
from api.selectors import STUDY_TEXTS
from api.serializers.fields import AnnotatorField
from api.viewsets.base import ID_PARAMETER, StudyScopedMixin, errors

from .models import ErrorAnnotation


def annotations_for_api(user):
    """Error annotations in reading order within each assignment, with what the rows show."""
    return (
        in_readable_studies(ErrorAnnotation.objects.all(), user, "assignment__study")
        .select_related("assignment__study", "assignment__document", "segment", "paired_segment", "category")
        .defer(
            *(f"assignment__study__{name}" for name in STUDY_TEXTS),
            "assignment__document__source",
            "assignment__document__meta",
            "segment__text",
            "segment__sentences",
            "paired_segment__text",
            "paired_segment__sentences",
        )
        .order_by("assignment_id", "segment__index", "start", "id")
    )


class ErrorAnnotationFilter(filters.FilterSet):
    study = IdFilter(field_name="assignment__study_id", help_text="Study id.")
    document = filters.CharFilter(
        field_name="assignment__document__external_id", help_text="Document external id."
    )
    annotator = AnnotatorFilter(assignment_path="assignment__")
    category = filters.CharFilter(field_name="category__key", help_text="Category key, e.g. CharE.")
    kind = filters.ChoiceFilter(
        field_name="assignment__kind", choices=Assignment.Kind.choices, help_text="The assignment's kind."
    )

    class Meta:
        model = ErrorAnnotation
        fields = ["study", "document", "annotator", "category", "kind"]


class ErrorAnnotationSerializer(serializers.ModelSerializer):
    study = serializers.IntegerField(source="assignment.study_id", read_only=True)
    document = serializers.CharField(source="assignment.document.external_id", read_only=True)
    segment = serializers.IntegerField(source="segment.index", read_only=True, help_text="Segment index.")
    category = serializers.CharField(source="category.key", read_only=True)
    paired_segment = serializers.IntegerField(
        source="paired_segment.index", read_only=True, allow_null=True,
        help_text="Index of the earlier segment of a paired category's second span.",
    )  # fmt: skip
    annotator = AnnotatorField(source="assignment")
    kind = serializers.CharField(source="assignment.kind", read_only=True, help_text="The assignment's kind.")

    class Meta:
        model = ErrorAnnotation
        fields = [
            "id", "study", "document", "segment", "start", "end", "text", "category",
            "paired_segment", "paired_start", "paired_end", "paired_text", "comment",
            "annotator", "assignment", "kind", "created_at",
        ]  # fmt: skip
        read_only_fields = fields


@extend_schema_view(
    list=extend_schema(
        summary="Error annotations of your studies",
        description="Ordered by assignment, then segment and start offset. Offsets are Unicode code "
        "points, end exclusive.",
        responses={200: ErrorAnnotationSerializer(many=True), **errors(400, 401)},
    ),
    retrieve=extend_schema(
        parameters=[ID_PARAMETER],
        summary="An error annotation",
        responses={200: ErrorAnnotationSerializer, **errors(401, 404)},
    ),
)
class ErrorAnnotationViewSet(StudyScopedMixin, viewsets.ReadOnlyModelViewSet):
    serializer_class = ErrorAnnotationSerializer
    filterset_class = ErrorAnnotationFilter

    def get_queryset(self):
        return annotations_for_api(self.request.user)
