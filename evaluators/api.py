"""Evaluator runs in the REST API: members read them, the study's researchers start and cancel them."""

from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response

from accounts import policy
from api.permissions import IsStudyResearcher
from api.serializers import ErrorSerializer, StudyReferenceSerializer
from api.viewsets.base import ID_PARAMETER, StudyScopedMixin, errors

from .models import Evaluator, EvaluatorRun
from .services import RunNotSent, RunRefused, evaluator_run_cancel, evaluator_run_request


class EvaluatorRunSerializer(serializers.ModelSerializer):
    evaluator = serializers.SlugRelatedField(slug_field="key", read_only=True)
    study = serializers.IntegerField(source="evaluator.study_id", read_only=True)
    cost = serializers.FloatField(read_only=True)

    class Meta:
        model = EvaluatorRun
        fields = [
            "id", "study", "evaluator", "status", "documents", "total", "finished", "calls", "cached",
            "prompt_tokens", "completion_tokens", "cost", "cancel_requested", "error",
            "created_at", "started_at", "finished_at",
        ]  # fmt: skip
        read_only_fields = fields


class EvaluatorRunRequestSerializer(StudyReferenceSerializer):
    """What `POST evaluator-runs/` takes."""

    evaluator = serializers.CharField(max_length=64, help_text="The evaluator's key in the study.")
    documents = serializers.ListField(
        child=serializers.CharField(max_length=255), required=False, allow_empty=False, max_length=100_000,
        help_text="External ids of the documents to evaluate; leave out for every main document.",
    )  # fmt: skip


@extend_schema_view(
    list=extend_schema(
        summary="Evaluator runs of your studies",
        responses={200: EvaluatorRunSerializer(many=True), **errors(400, 401)},
    ),
    retrieve=extend_schema(
        parameters=[ID_PARAMETER],
        summary="An evaluator run",
        responses={200: EvaluatorRunSerializer, **errors(401, 404)},
    ),
    create=extend_schema(
        summary="Run an evaluator of a study",
        description="Queues the run and answers 202; poll its detail until `status` is done, failed or "
        "cancelled. While a run of the evaluator is queued or running, that one is answered. The study's "
        "researchers only. 400 when the evaluator cannot run (e.g. an imported one, bad options, unknown "
        "documents); 503 when the job queue is not reachable (nothing is stored).",
        request=EvaluatorRunRequestSerializer,
        examples=[
            OpenApiExample("Run repeats", value={"study": 1, "evaluator": "repeats"}, request_only=True)
        ],
        responses={
            202: EvaluatorRunSerializer,
            **errors(400, 401, 403),
            503: OpenApiResponse(ErrorSerializer, description="The job queue is not reachable."),
        },
    ),  # fmt: skip
    cancel=extend_schema(
        parameters=[ID_PARAMETER],
        request=None,
        summary="Cancel a run",
        description="A queued run stops at once; a running one after the calls in flight, which are kept.",
        responses={200: EvaluatorRunSerializer, **errors(401, 403, 404)},
    ),  # fmt: skip
)
class EvaluatorRunViewSet(StudyScopedMixin, viewsets.ReadOnlyModelViewSet):
    serializer_class = EvaluatorRunSerializer

    def get_queryset(self):
        runs = EvaluatorRun.objects.select_related("evaluator").order_by("-created_at", "-id")
        return policy.in_readable_studies(runs, self.request.user, "evaluator__study")

    def get_serializer_class(self):
        return EvaluatorRunRequestSerializer if self.action == "create" else EvaluatorRunSerializer

    def get_permissions(self):
        if self.action in ("create", "cancel"):
            return [IsAuthenticated(), IsStudyResearcher()]
        return super().get_permissions()

    def create(self, request, **kwargs):
        body = EvaluatorRunRequestSerializer(data=request.data, context=self.get_serializer_context())
        body.is_valid(raise_exception=True)
        study = self.study_named_in_body()
        evaluator = Evaluator.objects.filter(study=study, key=body.validated_data["evaluator"]).first()
        if evaluator is None:
            return Response({"evaluator": ["The study has no evaluator with this key."]}, status=400)
        try:
            run, _ = evaluator_run_request(
                evaluator=evaluator, documents=body.validated_data.get("documents"), user=request.user
            )
        except RunRefused as refused:
            return Response({"non_field_errors": [str(refused)]}, status=400)
        except RunNotSent as refused:
            return Response({"detail": str(refused)}, status=status.HTTP_503_SERVICE_UNAVAILABLE)
        run = self.get_queryset().get(pk=run.pk)
        return Response(EvaluatorRunSerializer(run).data, status=status.HTTP_202_ACCEPTED)

    @action(detail=True, methods=["post"])
    def cancel(self, request, pk=None, **kwargs):
        run = self.get_object()
        return Response(EvaluatorRunSerializer(evaluator_run_cancel(run=run)).data)
