"""What every API view shares: pagination, error responses, studies named in a body."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse
from rest_framework.pagination import PageNumberPagination
from rest_framework.permissions import IsAuthenticated

from api.permissions import IsStudyMember
from api.serializers import ErrorSerializer, StudyReferenceSerializer


class ApiPagination(PageNumberPagination):
    """`?page=N`, 100 rows a page by default; `?page_size=` up to 1000."""

    page_size_query_param = "page_size"
    max_page_size = 1000


ERROR_RESPONSES = {
    400: OpenApiResponse(
        OpenApiTypes.OBJECT,
        description='Bad input: {"field": ["message", ...]}, with "non_field_errors" for the request '
        "as a whole.",
    ),
    401: OpenApiResponse(ErrorSerializer, description="No credentials, or not an API token."),
    403: OpenApiResponse(
        ErrorSerializer, description="A member of the study, but not one of its researchers."
    ),
    404: OpenApiResponse(ErrorSerializer, description="No such object among your studies."),
}


# The object's id in a detail path, with an example (docs, and schemathesis's examples phase).
ID_PARAMETER = OpenApiParameter(
    "id", OpenApiTypes.INT, OpenApiParameter.PATH, examples=[OpenApiExample("id", value=1)]
)


def errors(*codes):
    return {code: ERROR_RESPONSES[code] for code in codes}


class StudyScopedMixin:
    """Members of a study read its objects; the views' writes need its researchers."""

    permission_classes = [IsAuthenticated, IsStudyMember]
    pagination_class = ApiPagination

    def get_serializer_context(self):
        # Lists leave out detail-only fields; the schema generator (a fake view) sees them all.
        listing = self.action == "list" and not getattr(self, "swagger_fake_view", False)
        return {**super().get_serializer_context(), "list_view": listing}

    def study_named_in_body(self):
        """The study a write names as `study`: 400 if it is not among the user's studies,
        403 if the user reads it but does not run it (the view's permissions decide)."""
        reference = StudyReferenceSerializer(data=self.request.data, context=self.get_serializer_context())
        reference.is_valid(raise_exception=True)
        study = reference.validated_data["study"]
        self.check_object_permissions(self.request, study)
        return study
