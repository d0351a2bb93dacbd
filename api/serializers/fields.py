"""Fields shared by the API's serializers."""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from accounts.pseudonyms import annotator_pseudonym
from studies.models import Study

MAX_ID = 2**63 - 1  # ids are 64-bit: a larger number is refused, not sent to the database


@extend_schema_field(OpenApiTypes.INT)
class StudyReferenceField(serializers.PrimaryKeyRelatedField):
    """A study id in a request body, looked up among the studies the user may read.

    Another study's id gives the same answer as an id that does not exist (400),
    so a body cannot probe for studies the user is not a member of.
    """

    default_error_messages = {
        "does_not_exist": "No study with id {pk_value} among your studies.",
        "incorrect_type": "A study id is an integer, not {data_type}.",
    }

    def get_queryset(self):
        return Study.objects.for_user(self.context["request"].user)

    def to_internal_value(self, data):
        # Only whole numbers: Django would read 1.5 or "1.5" as study 1.
        if isinstance(data, bool) or not isinstance(data, int | str):
            self.fail("incorrect_type", data_type=type(data).__name__)
        if isinstance(data, str) and not (data.isascii() and data.isdigit()):
            self.fail("incorrect_type", data_type=type(data).__name__)
        if int(data) > MAX_ID:
            self.fail("does_not_exist", pk_value=data)
        return super().to_internal_value(int(data))


class DetailFieldsMixin:
    """Fields named in `Meta.detail_fields` are left out of lists (long texts, results).

    One serializer, so one schema component per resource, in which those
    fields are optional; the view says when it lists (context "list_view").
    """

    def get_fields(self):
        fields = super().get_fields()
        if self.context.get("list_view"):
            for name in self.Meta.detail_fields:
                fields.pop(name)
        return fields


@extend_schema_field({"type": "string", "example": "A3f9c2e01b7"})
class AnnotatorField(serializers.Field):
    """The annotator's pseudonymous id in the study ("A" + 10 hex digits), read from an assignment.

    Stable within a study and unlinkable across studies; the same id the
    exports use. Platform ids (e.g. PROLIFIC_PID) never leave through it.
    """

    def __init__(self, **kwargs):
        kwargs["read_only"] = True
        super().__init__(**kwargs)

    def to_representation(self, assignment):
        return annotator_pseudonym(assignment.study_id, assignment.worker_id)


class StudyReferenceSerializer(serializers.Serializer):
    """A body that names a study, e.g. `POST reports/`."""

    study = StudyReferenceField(help_text="Id of a study you run.")


class ErrorSerializer(serializers.Serializer):
    """The body of a 401, 403, 404 or 405 answer."""

    detail = serializers.CharField()
