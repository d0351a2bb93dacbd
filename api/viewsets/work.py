"""Assignments (and generating them) and error annotations."""

from drf_spectacular.utils import OpenApiExample, extend_schema, extend_schema_view
from rest_framework import serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.settings import api_settings

from annotations.services import AssignmentPlanError, assignments_generate
from api.filters import AssignmentFilter
from api.permissions import IsStudyResearcher
from api.selectors import assignments_for_api
from api.serializers import (
    AssignmentGenerateSerializer,
    AssignmentPlanSerializer,
    AssignmentSerializer,
)

from .base import ID_PARAMETER, StudyScopedMixin, errors


@extend_schema_view(
    list=extend_schema(
        summary="Assignments of your studies",
        description="Annotators appear under pseudonymous ids. The study's researchers also get "
        "worker_platform, worker_external_id and platform_ids. Task tokens and completion codes are never "
        "shown.",
        responses={200: AssignmentSerializer(many=True), **errors(400, 401)},
    ),
    retrieve=extend_schema(
        parameters=[ID_PARAMETER],
        summary="An assignment",
        responses={200: AssignmentSerializer, **errors(401, 404)},
    ),
)
class AssignmentViewSet(StudyScopedMixin, viewsets.ReadOnlyModelViewSet):
    serializer_class = AssignmentSerializer
    filterset_class = AssignmentFilter

    def get_queryset(self):
        return assignments_for_api(self.request.user)

    def get_serializer_context(self):
        # Task links (secrets) only in what generate answers; the schema documents them.
        task_links = self.action == "generate" or getattr(self, "swagger_fake_view", False)
        return {**super().get_serializer_context(), "task_links": task_links}

    @extend_schema(
        summary="Assign the study's documents to workers",
        description="Gives every main document of the study K annotators from `worker_ids` (the `assign` "
        "command): existing assignments count, so a second call only fills gaps. Answers the new "
        "assignments with their task links (secrets: send each to its worker only). The study's "
        "researchers and superusers only.",
        request=AssignmentGenerateSerializer,
        examples=[
            OpenApiExample(
                "Three Prolific workers per document",
                value={
                    "study": 1,
                    "worker_ids": ["5f0c9a1e", "61a2b3c4", "62d4e5f6"],
                    "per_document": 3,
                    "platform": "prolific",
                },
                request_only=True,
            )
        ],
        responses={201: AssignmentPlanSerializer, **errors(400, 401, 403)},
    )
    @action(
        detail=False, methods=["post"], permission_classes=[IsAuthenticated, IsStudyResearcher],
        serializer_class=AssignmentGenerateSerializer, filter_backends=[], pagination_class=None,
    )  # fmt: skip
    def generate(self, request, **kwargs):  # kwargs: the router's format suffix
        study = self.study_named_in_body()
        serializer = self.get_serializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        try:
            plan = assignments_generate(
                study=study, worker_ids=data["worker_ids"], per_document=data.get("per_document"),
                platform=data["platform"],
            )  # fmt: skip
        except AssignmentPlanError as error:
            raise serializers.ValidationError({api_settings.NON_FIELD_ERRORS_KEY: [str(error)]}) from None
        answer = AssignmentPlanSerializer(plan, context=self.get_serializer_context())
        return Response(answer.data, status=status.HTTP_201_CREATED)
