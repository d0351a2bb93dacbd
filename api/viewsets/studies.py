"""Studies, taxonomies and documents."""

from drf_spectacular.utils import OpenApiExample, extend_schema, extend_schema_view
from rest_framework import mixins, viewsets
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response

from api.filters import DocumentFilter, StudyFilter
from api.permissions import IsStudyResearcher
from api.selectors import documents_for_api, studies_for_api, taxonomies_for_api
from api.serializers import DocumentSerializer, StudySerializer, TaxonomySerializer

from .base import ID_PARAMETER, ApiPagination, StudyScopedMixin, errors


@extend_schema_view(
    list=extend_schema(
        summary="Your studies", responses={200: StudySerializer(many=True), **errors(400, 401)}
    ),
    retrieve=extend_schema(
        parameters=[ID_PARAMETER], summary="A study", responses={200: StudySerializer, **errors(401, 404)}
    ),
    partial_update=extend_schema(
        parameters=[ID_PARAMETER],
        summary="Open, close or reopen a study",
        description="Changes `status` only (draft, open, closed); any other field is a 400. "
        "The study's researchers and superusers only.",
        responses={200: StudySerializer, **errors(400, 401, 403, 404)},
        examples=[OpenApiExample("Close a study", value={"status": "closed"}, request_only=True)],
    ),
)
class StudyViewSet(
    StudyScopedMixin, mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet
):
    serializer_class = StudySerializer
    filterset_class = StudyFilter

    def get_queryset(self):
        return studies_for_api(self.request.user)

    def get_permissions(self):
        if self.action == "partial_update":
            return [IsAuthenticated(), IsStudyResearcher()]
        return super().get_permissions()

    def partial_update(self, request, pk=None, **kwargs):  # kwargs: the router's format suffix
        study = self.get_object()
        serializer = self.get_serializer(study, data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        if "status" in serializer.validated_data:
            study.status = serializer.validated_data["status"]
            study.save(update_fields=["status"])  # only the status: not what the admin changed meanwhile
        # Read it again with its counts (the annotations of the queryset).
        return Response(self.get_serializer(self.get_queryset().get(pk=study.pk)).data)


@extend_schema_view(
    list=extend_schema(
        summary="Taxonomies of your studies",
        responses={200: TaxonomySerializer(many=True), **errors(401)},
    ),
    retrieve=extend_schema(
        parameters=[ID_PARAMETER],
        summary="A taxonomy and its categories",
        responses={200: TaxonomySerializer, **errors(401, 404)},
    ),
)
class TaxonomyViewSet(viewsets.ReadOnlyModelViewSet):
    # A taxonomy may serve several studies: the scope is Taxonomy.objects.for_user.
    serializer_class = TaxonomySerializer
    permission_classes = [IsAuthenticated]
    pagination_class = ApiPagination
    filter_backends = []

    def get_queryset(self):
        return taxonomies_for_api(self.request.user)


@extend_schema_view(
    list=extend_schema(
        summary="Documents of your studies",
        description="Without their segments (see the detail).",
        responses={200: DocumentSerializer(many=True), **errors(400, 401)},
    ),
    retrieve=extend_schema(
        parameters=[ID_PARAMETER],
        summary="A document with its segments",
        responses={200: DocumentSerializer, **errors(401, 404)},
    ),
)
class DocumentViewSet(StudyScopedMixin, viewsets.ReadOnlyModelViewSet):
    serializer_class = DocumentSerializer
    filterset_class = DocumentFilter

    def get_queryset(self):
        return documents_for_api(self.request.user, with_segments=self.action == "retrieve")
