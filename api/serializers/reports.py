"""Reports: the list shows their state, the detail also their result."""

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from reports.models import Report

from .fields import DetailFieldsMixin, StudyReferenceSerializer


# Its own schema enum: export jobs have a status with the same values, and
# drf-spectacular cannot name one enum shared by two resources without a setting.
@extend_schema_field({"type": "string", "enum": Report.Status.values})
class ReportStatusField(serializers.ChoiceField):
    pass


class ReportSerializer(DetailFieldsMixin, serializers.ModelSerializer):
    status = ReportStatusField(choices=Report.Status.choices, read_only=True)
    requested_by = serializers.SlugRelatedField(slug_field="username", read_only=True, allow_null=True)
    # required=False: the schema marks it optional, as lists leave it out.
    result = serializers.JSONField(
        required=False, allow_null=True,
        help_text="Detail only: the report JSON once done (docs/reports.md), else null.",
    )  # fmt: skip

    class Meta:
        model = Report
        fields = [
            "id", "study", "kind", "status", "progress", "error", "requested_by",
            "created_at", "started_at", "finished_at", "result",
        ]  # fmt: skip
        read_only_fields = [name for name in fields if name != "result"]
        detail_fields = ["result"]


class ReportRequestSerializer(StudyReferenceSerializer):
    """What `POST reports/` takes."""
