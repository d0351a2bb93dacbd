"""Assignments and error annotations, with annotators under pseudonyms."""

from django.conf import settings
from rest_framework import serializers

from accounts.models import Worker
from annotations.models import Assignment
from api.permissions import manages_study

from .fields import AnnotatorField, StudyReferenceField

# Shown only to the study's researchers and superusers: they identify the worker
# on the crowd platform (e.g. a PROLIFIC_PID). Never the task token or the
# completion code: those are the worker's secrets.
RESEARCHER_ONLY_FIELDS = ("worker_platform", "worker_external_id", "platform_ids")
# Only in the answer of `POST assignments/generate/` (context "task_links").
TASK_LINK_FIELDS = ("task_path", "task_url")


class TaskUrlField(serializers.CharField):
    """A task path on the site's public address (SITE_URL)."""

    def to_representation(self, task_path):
        return settings.SITE_URL.rstrip("/") + task_path


class AssignmentSerializer(serializers.ModelSerializer):
    document = serializers.CharField(source="document.external_id", read_only=True)
    annotator = AnnotatorField(source="*")
    # Not read-only so that the schema marks them optional: analysts do not get them.
    worker_platform = serializers.CharField(
        source="worker.platform", required=False, help_text="Researchers only."
    )
    worker_external_id = serializers.CharField(
        source="worker.external_id", required=False, help_text="Researchers only (e.g. the PROLIFIC_PID)."
    )
    platform_ids = serializers.JSONField(
        required=False, help_text="Researchers only: STUDY_ID, SESSION_ID, assignmentId, hitId..."
    )
    task_path = serializers.CharField(
        required=False, help_text="Only when generated: the worker's task link, a secret."
    )
    task_url = TaskUrlField(
        source="task_path", required=False, help_text="Only when generated: the full link."
    )

    class Meta:
        model = Assignment
        fields = [
            "id", "study", "document", "annotator", "kind", "block", "arm", "status", "current_segment",
            "started_at", "submitted_at", "active_seconds", "worker_feedback", *RESEARCHER_ONLY_FIELDS,
            *TASK_LINK_FIELDS,
        ]  # fmt: skip
        read_only_fields = [name for name in fields if name not in RESEARCHER_ONLY_FIELDS + TASK_LINK_FIELDS]

    def get_fields(self):
        fields = super().get_fields()
        if not self.context.get("task_links"):
            for name in TASK_LINK_FIELDS:
                del fields[name]
        return fields

    def to_representation(self, assignment):
        data = super().to_representation(assignment)
        request = self.context.get("request")
        if request is None or not manages_study(request, assignment.study_id):
            for name in RESEARCHER_ONLY_FIELDS:
                del data[name]
        return data


class AssignmentGenerateSerializer(serializers.Serializer):
    """What `POST assignments/generate/` takes (the `assign` command's options)."""

    study = StudyReferenceField()
    worker_ids = serializers.ListField(
        child=serializers.CharField(max_length=255),
        allow_empty=False,
        max_length=10_000,
        help_text="Platform ids or chosen names of the workers; missing workers are created.",
    )
    per_document = serializers.IntegerField(
        required=False, allow_null=True, min_value=1, max_value=1_000,
        help_text="Annotators per document (default: the study's annotators_per_document).",
    )  # fmt: skip
    platform = serializers.ChoiceField(choices=Worker.Platform.choices, default=Worker.Platform.LINK)


class AssignmentPlanSerializer(serializers.Serializer):
    created = AssignmentSerializer(many=True, help_text="The assignments made now, with their task links.")
    short = serializers.DictField(
        child=serializers.IntegerField(),
        help_text="Document external id -> annotators still missing (workers at their limit).",
    )
    empty = serializers.ListField(
        child=serializers.CharField(),
        help_text="External ids of main documents without text (no segment with text): never assigned.",
    )
