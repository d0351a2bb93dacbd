"""Studies, their taxonomies and documents, as the API shows them."""

from collections.abc import Mapping

from rest_framework import serializers

from accounts import policy
from api.permissions import study_role
from studies.models import Category, Document, Segment, Study, Taxonomy

from .fields import DetailFieldsMixin


class AssignmentCountsSerializer(serializers.Serializer):
    """Assignments of the study by status (annotated by api.selectors.studies_for_api)."""

    assigned = serializers.IntegerField(source="assigned_count")
    in_progress = serializers.IntegerField(source="in_progress_count")
    submitted = serializers.IntegerField(source="submitted_count")
    released = serializers.IntegerField(source="released_count")


class StudyCountsSerializer(serializers.Serializer):
    documents = serializers.IntegerField(source="document_count")
    assignments = AssignmentCountsSerializer(source="*")


class StudySerializer(serializers.ModelSerializer):
    """A study. Only `status` can be changed (PATCH, the study's researchers)."""

    counts = StudyCountsSerializer(source="*", read_only=True)
    your_role = serializers.SerializerMethodField(
        help_text="researcher, analyst or expert (your membership), or superuser."
    )

    class Meta:
        model = Study
        fields = [
            "id", "slug", "title", "protocol", "status", "annotators_per_document",
            "max_documents_per_worker", "taxonomy", "config", "created_at", "counts", "your_role",
        ]  # fmt: skip
        read_only_fields = [name for name in fields if name != "status"]

    def get_your_role(self, study) -> str:
        return study_role(self.context["request"], study.pk)

    def to_representation(self, study):
        data = super().to_representation(study)
        data["config"] = policy.readable_config(self.context["request"].user, study)
        return data

    def to_internal_value(self, data):
        # A read-only field in a body would be ignored silently: say it was not changed.
        if isinstance(data, Mapping):
            others = sorted(name for name in data if name != "status")
            if others:
                raise serializers.ValidationError(
                    {name: ["Only a study's status can be changed through the API."] for name in others}
                )
        return super().to_internal_value(data)


class CategorySerializer(serializers.ModelSerializer):
    class Meta:
        model = Category
        fields = [
            "key",
            "label",
            "description",
            "kind",
            "group",
            "color",
            "shortcut",
            "whole_sentence",
            "snap_to_words",
            "order",
        ]


class TaxonomySerializer(serializers.ModelSerializer):
    categories = CategorySerializer(many=True, read_only=True)

    class Meta:
        model = Taxonomy
        fields = ["id", "slug", "name", "version", "description", "categories"]


class SegmentSerializer(serializers.ModelSerializer):
    sentences = serializers.ListField(
        child=serializers.ListField(child=serializers.IntegerField(), min_length=2, max_length=2),
        help_text="[start, end) code-point offsets of each sentence in the text.",
    )

    class Meta:
        model = Segment
        fields = ["index", "text", "sentences"]


class DocumentSerializer(DetailFieldsMixin, serializers.ModelSerializer):
    # required=False: the schema marks them optional, as lists leave them out.
    source = serializers.CharField(required=False, help_text="Detail only: the input the text came from.")
    segments = SegmentSerializer(many=True, required=False, help_text="Detail only, in reading order.")

    class Meta:
        model = Document
        fields = [
            "id",
            "study",
            "external_id",
            "input_id",
            "system",
            "kind",
            "position",
            "meta",
            "source",
            "segments",
        ]
        read_only_fields = [name for name in fields if name not in ("source", "segments")]
        detail_fields = ["source", "segments"]
