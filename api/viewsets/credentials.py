"""Study keys: the study's researchers store, replace and delete them; nobody reads one back."""

from drf_spectacular.utils import OpenApiExample, extend_schema, extend_schema_view
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response

from accounts import policy
from api.permissions import IsStudyResearcher
from api.serializers import StudyReferenceSerializer
from outbound.credentials import MAX_KEY_LENGTH
from outbound.models import StudyCredential, name_validator
from outbound.services import KeyRefused, study_credential_delete, study_credential_store

from .base import ID_PARAMETER, ApiPagination, StudyScopedMixin, errors


class StudyCredentialSerializer(serializers.ModelSerializer):
    """A stored key as the API shows it: its name and dates, never the key."""

    class Meta:
        model = StudyCredential
        fields = ["id", "study", "name", "created_at", "updated_at"]
        read_only_fields = fields


class StudyCredentialStoreSerializer(StudyReferenceSerializer):
    """What `POST study-credentials/` takes."""

    name = serializers.CharField(
        max_length=64, validators=[name_validator], help_text="What evaluators name it by ('credential')."
    )
    key = serializers.CharField(
        max_length=MAX_KEY_LENGTH, write_only=True, help_text="The key; stored encrypted, never returned."
    )


class StudyCredentialReplaceSerializer(serializers.Serializer):
    """What `PUT study-credentials/{id}/` takes: a new key under the same name (rotation)."""

    key = serializers.CharField(max_length=MAX_KEY_LENGTH, write_only=True)


@extend_schema_view(
    list=extend_schema(
        summary="Stored keys of the studies you run",
        description="Names and dates only: a key is never shown again after it is stored.",
        responses={200: StudyCredentialSerializer(many=True), **errors(401)},
    ),
    retrieve=extend_schema(
        parameters=[ID_PARAMETER],
        summary="A stored key's name and dates",
        responses={200: StudyCredentialSerializer, **errors(401, 404)},
    ),
    create=extend_schema(
        summary="Store a key for a study",
        description="The study's researchers only. The key is encrypted at rest and never returned; name it "
        "as an evaluator's `credential`. 400 when the study already has a key of that name (replace it "
        "with PUT), or when the server cannot store keys (no CREDENTIALS_KEYS).",
        request=StudyCredentialStoreSerializer,
        examples=[
            OpenApiExample(
                "Store a key", value={"study": 1, "name": "openai", "key": "sk-..."}, request_only=True
            )
        ],
        responses={201: StudyCredentialSerializer, **errors(400, 401, 403)},
    ),
    update=extend_schema(
        parameters=[ID_PARAMETER],
        summary="Replace a stored key (rotate it)",
        request=StudyCredentialReplaceSerializer,
        responses={200: StudyCredentialSerializer, **errors(400, 401, 403, 404)},
    ),
    destroy=extend_schema(
        parameters=[ID_PARAMETER],
        summary="Delete a stored key",
        responses={204: None, **errors(401, 403, 404)},
    ),
)
class StudyCredentialViewSet(
    StudyScopedMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.DestroyModelMixin,
    viewsets.GenericViewSet,
):
    serializer_class = StudyCredentialSerializer
    pagination_class = ApiPagination
    http_method_names = ["get", "post", "put", "delete", "head", "options"]

    def get_queryset(self):
        # Who only reads a study (an analyst) does not even see which keys it has (the policy's rule).
        rows = StudyCredential.objects.select_related("study").order_by("study_id", "name")
        return policy.readable_rows(rows, self.request.user)

    def get_permissions(self):
        if self.action in ("create", "update", "destroy"):
            return [IsAuthenticated(), IsStudyResearcher()]
        return super().get_permissions()

    def create(self, request, **kwargs):
        body = StudyCredentialStoreSerializer(data=request.data, context=self.get_serializer_context())
        body.is_valid(raise_exception=True)
        study = self.study_named_in_body()
        name = body.validated_data["name"]
        if StudyCredential.objects.filter(study=study, name=name).exists():
            return Response(
                {
                    "name": [
                        "The study already has a key of this name: replace it with PUT study-credentials/{id}/."
                    ]
                },
                status=status.HTTP_400_BAD_REQUEST,
            )
        return self._store(study, name, body.validated_data["key"], status.HTTP_201_CREATED)

    def update(self, request, pk=None, **kwargs):
        credential = self.get_object()
        body = StudyCredentialReplaceSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        return self._store(credential.study, credential.name, body.validated_data["key"], status.HTTP_200_OK)

    def _store(self, study, name, key, answer_status):
        try:
            credential, _ = study_credential_store(study=study, name=name, secret=key, user=self.request.user)
        except KeyRefused as refused:
            return Response({"key": [str(refused)]}, status=status.HTTP_400_BAD_REQUEST)
        return Response(StudyCredentialSerializer(credential).data, status=answer_status)

    def perform_destroy(self, instance):
        study_credential_delete(credential=instance)
