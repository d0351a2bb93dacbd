"""Reports: read by every member, requested by the study's researchers."""

from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import status, viewsets
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response

from api.filters import ReportFilter
from api.permissions import IsStudyResearcher
from api.selectors import reports_for_api
from api.serializers import ErrorSerializer, ReportRequestSerializer, ReportSerializer
from reports.services import ReportNotSent, report_request

from .base import ID_PARAMETER, StudyScopedMixin, errors


@extend_schema_view(
    list=extend_schema(
        summary="Reports of your studies",
        description="Without their results (see the detail).",
        responses={200: ReportSerializer(many=True), **errors(400, 401)},
    ),
    retrieve=extend_schema(
        parameters=[ID_PARAMETER],
        summary="A report with its result",
        responses={200: ReportSerializer, **errors(401, 404)},
    ),
    create=extend_schema(
        summary="Request a report of a study",
        description="Queues the computation and answers 202 with the report; poll its detail until "
        "`status` is done or failed. While a report of the study is queued or running, that one is "
        "answered instead of a new one. The study's researchers and superusers only. 503 when the job "
        "queue (Celery broker) does not take the job: nothing is stored, ask again later.",
        request=ReportRequestSerializer,
        examples=[OpenApiExample("Report of study 1", value={"study": 1}, request_only=True)],
        responses={
            202: ReportSerializer,
            **errors(400, 401, 403),
            503: OpenApiResponse(ErrorSerializer, description="The job queue is not reachable."),
        },
    ),
)
class ReportViewSet(StudyScopedMixin, viewsets.ReadOnlyModelViewSet):
    serializer_class = ReportSerializer
    filterset_class = ReportFilter

    def get_queryset(self):
        return reports_for_api(self.request.user)

    def get_serializer_class(self):
        # What the browsable API's form and OPTIONS show for POST.
        return ReportRequestSerializer if self.action == "create" else ReportSerializer

    def get_permissions(self):
        if self.action == "create":
            return [IsAuthenticated(), IsStudyResearcher()]
        return super().get_permissions()

    def create(self, request, **kwargs):  # kwargs: the router's format suffix
        study = self.study_named_in_body()
        try:
            report, _ = report_request(study=study, user=request.user)
        except ReportNotSent as refused:
            return Response({"detail": str(refused)}, status=status.HTTP_503_SERVICE_UNAVAILABLE)
        # Without a broker the job ran as the request committed: show where it is now.
        report = self.get_queryset().get(pk=report.pk)
        answer = ReportSerializer(report, context=self.get_serializer_context())
        return Response(answer.data, status=status.HTTP_202_ACCEPTED)
