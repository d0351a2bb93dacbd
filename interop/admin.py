"""Admin's upload of another tool's annotation file as a new study, beside the bundle import.

The same checks as the bundle import: the add permission, the web's size
limit, every problem listed, nothing written on a problem.
"""

import tempfile
from pathlib import Path, PurePath

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.shortcuts import redirect
from django.template.response import TemplateResponse

from bundles import BundleInvalid
from studies.admin.scoping import forget_managed_studies
from studies.admin.study_views import (
    UPLOAD_TEMPLATE,
    TooLargeForTheWeb,
    _context,
    _problems_context,
    _refused_page,
    _warning_messages,
    refuse_large_body,
    refuse_large_file,
)

from .formats.registry import FormatUnavailable
from .forms import AnnotationsUploadForm
from .services import study_import_annotations

REMEDY = (
    "Import it on the server with `python manage.py import_annotations FILE --format FORMAT --slug SLUG` "
    "(docs/interop.md)."
)


def _saved(upload, directory, name):
    path = Path(directory) / name
    with open(path, "wb") as handle:
        for chunk in upload.chunks():
            handle.write(chunk)
    return path


def import_annotations(model_admin, request):
    if not model_admin.has_add_permission(request):
        raise PermissionDenied
    page = {
        "title": "Import annotations from another tool",
        "submit_label": "Import",
        "nothing_written": "Nothing was imported.",
    }
    try:
        refuse_large_body(request, REMEDY)
    except TooLargeForTheWeb as refused:
        return _refused_page(model_admin, request, AnnotationsUploadForm, refused, **page)
    form = AnnotationsUploadForm(request.POST or None, request.FILES or None)
    extra = {}
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        with tempfile.TemporaryDirectory(prefix="annotations-upload-") as directory:
            try:
                refuse_large_file(data["file"], "This file", REMEDY)
                if data["taxonomy"] is not None:
                    refuse_large_file(data["taxonomy"], "This study.yaml", REMEDY)
                name = PurePath(data["file"].name).name or "upload"
                settings_name = PurePath(data["taxonomy"].name).name if data["taxonomy"] else None
                done = study_import_annotations(
                    path=_saved(data["file"], directory, "upload"), name=name, fmt=data["format"],
                    slug=data["slug"], settings_name=settings_name,
                    settings_path=_saved(data["taxonomy"], directory, "study.yaml") if data["taxonomy"] else None,
                    sentences_per_segment=data["sentences_per_segment"],
                    options=data["options"], user=request.user, into=data["into"],
                )  # fmt: skip
            except (TooLargeForTheWeb, FormatUnavailable) as refused:
                form.add_error(None, str(refused))
            except BundleInvalid as invalid:
                extra = _problems_context(invalid)
            else:
                forget_managed_studies(request)
                messages.success(request, f"Imported the annotations: {done.describe()}.")
                for note in done.notes[:100]:
                    messages.info(request, note)
                _warning_messages(request, done.result.warnings)
                return redirect("admin:studies_study_change", done.result.study.pk)
    context = _context(model_admin, request, form=form, **page, **extra)
    return TemplateResponse(request, UPLOAD_TEMPLATE, context)
