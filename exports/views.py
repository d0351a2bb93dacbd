"""Downloads for analysts and researchers: annotation tables, study bundles, export jobs.

Token (scripts) or session (browser) authentication, like the REST API. A
study outside the user's memberships is a 404; platform ids (e.g.
PROLIFIC_PID) are included only for the study's researchers.
"""

import tempfile
import zipfile
from pathlib import Path

from django.conf import settings
from django.http import FileResponse, Http404, StreamingHttpResponse
from django.shortcuts import get_object_or_404
from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    inline_serializer,
)
from rest_framework import serializers
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import policy
from bundles.services import study_export_bundle

from .models import Export
from .rows import row_count
from .services import WRITERS, export_request

CONTENT_TYPES = {
    "csv": "text/csv; charset=utf-8",
    "jsonl": "application/x-ndjson; charset=utf-8",
    "parquet": "application/vnd.apache.parquet",
}


def export_data(export):
    return {
        "id": export.pk, "study": export.study_id, "format": export.format, "status": export.status,
        "rows": export.rows, "error": export.error,
        "download": reverse("export-download", args=[export.pk]) if export.status == Export.Status.DONE else None,
        "created_at": export.created_at, "finished_at": export.finished_at,
    }  # fmt: skip


EXPORT_JOB = inline_serializer(
    "ExportJob",
    {
        "id": serializers.IntegerField(),
        "study": serializers.IntegerField(),
        "format": serializers.ChoiceField(choices=Export.Format.choices),
        "status": serializers.ChoiceField(choices=Export.Status.choices),
        "rows": serializers.IntegerField(),
        "error": serializers.CharField(),
        "download": serializers.CharField(allow_null=True),
        "created_at": serializers.DateTimeField(),
        "finished_at": serializers.DateTimeField(allow_null=True),
    },
)


# Path parameters with an example id (docs, and schemathesis's examples phase; its
# seed data has a study and an export job with id 1).
STUDY_ID = OpenApiParameter(
    "study_id", OpenApiTypes.INT, OpenApiParameter.PATH, examples=[OpenApiExample("study", value=1)]
)
EXPORT_ID = OpenApiParameter(
    "export_id", OpenApiTypes.INT, OpenApiParameter.PATH, examples=[OpenApiExample("export", value=1)]
)
FILE_FORMAT = OpenApiParameter(
    "file_format", OpenApiTypes.STR, OpenApiParameter.PATH, enum=["csv", "jsonl", "parquet"]
)
BACKGROUND = OpenApiParameter(
    "background", OpenApiTypes.STR, OpenApiParameter.QUERY, enum=["1"],
    description="1: write the file in a background job (202) whatever the table's size",
)  # fmt: skip


class StudyDownload(APIView):
    permission_classes = [IsAuthenticated]

    def study(self, request, study_id):
        return get_object_or_404(policy.readable_studies(request.user), pk=study_id)


class AnnotationTable(StudyDownload):
    """GET /api/exports/studies/<id>/annotations.<csv|jsonl|parquet>: streamed, or a job when large."""

    @extend_schema(
        operation_id="export_annotations",
        parameters=[STUDY_ID, FILE_FORMAT, BACKGROUND],
        responses={
            (200, "text/csv"): OpenApiResponse(OpenApiTypes.STR, description="the table, streamed"),
            (200, "application/x-ndjson"): OpenApiResponse(OpenApiTypes.STR),
            (200, "application/vnd.apache.parquet"): OpenApiResponse(OpenApiTypes.BINARY),
            202: OpenApiResponse(EXPORT_JOB, description="too large to stream: a background job"),
            404: OpenApiResponse(description="not a study of yours"),
        },
    )
    def get(self, request, study_id, file_format):
        study, format = self.study(request, int(study_id)), file_format
        with_ids = policy.sees_identities(request.user, study.pk)
        if (
            row_count(study) > settings.EXPORT_STREAM_MAX_ROWS
            or request.query_params.get("background") == "1"
        ):
            export = export_request(study=study, user=request.user, format=format, with_platform_ids=with_ids)
            return Response(export_data(export), status=202)
        response = StreamingHttpResponse(
            WRITERS[format](study, with_platform_ids=with_ids), content_type=CONTENT_TYPES[format]
        )
        response["Content-Disposition"] = f'attachment; filename="{study.slug}-annotations.{format}"'
        return response


class StudyBundle(StudyDownload):
    """GET /api/exports/studies/<id>/bundle.zip: the study bundle (DESIGN.md), zipped."""

    @extend_schema(
        operation_id="export_bundle",
        parameters=[STUDY_ID],
        responses={(200, "application/zip"): OpenApiTypes.BINARY},
    )
    def get(self, request, study_id):
        study = self.study(request, study_id)
        # The zip goes to a temporary file and is streamed from there: memory holds a read
        # buffer, not the archive (deleted when the response closes it).
        archive_file = tempfile.TemporaryFile(prefix="bundle-export-", suffix=".zip")  # noqa: SIM115
        try:
            with tempfile.TemporaryDirectory(prefix="bundle-export-") as directory:
                study_export_bundle(
                    study=study,
                    directory=directory,
                    identities=policy.sees_identities(request.user, study.pk),
                )
                with zipfile.ZipFile(archive_file, "w", zipfile.ZIP_DEFLATED) as archive:
                    for path in sorted(Path(directory).iterdir()):
                        archive.write(path, f"{study.slug}/{path.name}")
            archive_file.seek(0)
        except BaseException:
            archive_file.close()
            raise
        return FileResponse(
            archive_file,
            as_attachment=True,
            filename=f"{study.slug}-bundle.zip",
            content_type="application/zip",
        )


class ExportJob(APIView):
    """GET /api/exports/jobs/<id>/: a background export's status (the requester's own)."""

    permission_classes = [IsAuthenticated]

    @extend_schema(operation_id="export_job", parameters=[EXPORT_ID], responses={200: EXPORT_JOB})
    def get(self, request, export_id):
        return Response(export_data(get_object_or_404(Export.objects.for_user(request.user), pk=export_id)))


class ExportDownload(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="export_download",
        parameters=[EXPORT_ID],
        responses={
            (200, "text/csv"): OpenApiTypes.BINARY,
            (200, "application/x-ndjson"): OpenApiTypes.BINARY,
            (200, "application/vnd.apache.parquet"): OpenApiTypes.BINARY,
        },
    )
    def get(self, request, export_id):
        export = get_object_or_404(Export.objects.for_user(request.user), pk=export_id)
        if export.status != Export.Status.DONE:
            raise Http404("This export is not ready.")
        path = Path(settings.MEDIA_ROOT) / export.file
        return FileResponse(open(path, "rb"), as_attachment=True, filename=path.name,  # noqa: SIM115
                            content_type=CONTENT_TYPES[export.format])  # fmt: skip
