"""The researchers' tools on a study: import a bundle, add documents, generate assignments.

Thin views: they check the scope, unpack the upload into a temporary
directory, and call the services, which validate everything before writing.
"""

import tempfile
import zipfile
from pathlib import Path, PurePath

from django.conf import settings
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.shortcuts import redirect
from django.template.response import TemplateResponse

from annotations.services import AssignmentPlanError, assignments_generate
from bundles import BundleInvalid
from bundles.services import study_add_documents, study_import_bundle
from studies.forms import AssignmentsGenerateForm, BundleUploadForm, DocumentsUploadForm

from .archive import UnsafeArchive, extract_bundle
from .scoping import forget_managed_studies

PROBLEMS_SHOWN = 1000
UPLOAD_TEMPLATE = "admin/studies/study/upload.html"
# The multipart envelope around the file (boundaries, headers, the other fields).
MULTIPART_ALLOWANCE = 64 * 1024


BUNDLE_REMEDY = (
    "Import it on the server with `python manage.py import_study DIR` (the unpacked bundle directory), or "
    "split the documents into several files of at most that size and add them with Add documents."
)


class TooLargeForTheWeb(Exception):
    """The upload would not import within the web server's request time; the message says what to do."""

    def __init__(self, size, *, what, remedy=BUNDLE_REMEDY):
        limit = settings.BUNDLE_WEB_MAX_BYTES
        super().__init__(
            f"{what} is {size:,} bytes; uploads here are limited to {limit:,} bytes (BUNDLE_WEB_MAX_BYTES) "
            f"so that they import before the web server's time limit. {remedy}"
        )


def refuse_large_body(request, remedy=BUNDLE_REMEDY):
    """Refuse from the declared Content-Length alone, before the body is read or stored."""
    try:
        declared = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return
    if request.method == "POST" and declared > settings.BUNDLE_WEB_MAX_BYTES + MULTIPART_ALLOWANCE:
        raise TooLargeForTheWeb(declared, what="This upload", remedy=remedy)


def refuse_large_file(upload, what, remedy=BUNDLE_REMEDY):
    if upload.size > settings.BUNDLE_WEB_MAX_BYTES:
        raise TooLargeForTheWeb(upload.size, what=what, remedy=remedy)


def _refuse_large_zip(upload):
    """The import's time follows the unpacked size: check what the zip says it holds."""
    try:
        with zipfile.ZipFile(upload) as archive:
            declared = sum(member.file_size for member in archive.infolist())
    except zipfile.BadZipFile:
        return  # extract_bundle says so
    finally:
        upload.seek(0)
    if declared > settings.BUNDLE_WEB_MAX_BYTES:
        raise TooLargeForTheWeb(declared, what="The unpacked bundle")


def _refuse_large_directory(directory):
    """Sizes in a zip's directory can lie: count what was written."""
    written = sum(path.stat().st_size for path in Path(directory).rglob("*") if path.is_file())
    if written > settings.BUNDLE_WEB_MAX_BYTES:
        raise TooLargeForTheWeb(written, what="The unpacked bundle")


def _refused_page(model_admin, request, form_class, refused, **context):
    """The upload page again, empty, with why the body was not read (a message: no form was bound)."""
    messages.error(request, str(refused))
    return TemplateResponse(
        request, UPLOAD_TEMPLATE, _context(model_admin, request, form=form_class(), **context)
    )


def _context(model_admin, request, *, title, study=None, **extra):
    return {
        **model_admin.admin_site.each_context(request),
        "opts": model_admin.opts,
        "title": title,
        "original": study,
        **extra,
    }


def _problems_context(invalid):
    return {
        "problems": invalid.problems[:PROBLEMS_SHOWN],
        "problems_total": len(invalid.problems),
        "problems_hidden": max(0, len(invalid.problems) - PROBLEMS_SHOWN),
        "summary": invalid.summary,
    }


def _warning_messages(request, warnings):
    """What an import noticed but did not refuse, one message a line (the first PROBLEMS_SHOWN)."""
    for warning in warnings[:PROBLEMS_SHOWN]:
        messages.warning(request, str(warning))
    if len(warnings) > PROBLEMS_SHOWN:
        messages.warning(request, f"... and {len(warnings) - PROBLEMS_SHOWN} more warnings.")


def _managed_study(model_admin, request, object_id):
    study = model_admin.get_object(request, object_id)  # 404 outside the user's studies
    if not model_admin.has_change_permission(request, study):
        raise PermissionDenied
    return study


def import_bundle(model_admin, request):
    if not model_admin.has_add_permission(request):
        raise PermissionDenied
    page = {
        "title": "Import a study bundle",
        "submit_label": "Import",
        "nothing_written": "Nothing was imported.",
    }
    try:
        refuse_large_body(request)
    except TooLargeForTheWeb as refused:
        return _refused_page(model_admin, request, BundleUploadForm, refused, **page)
    form = BundleUploadForm(request.POST or None, request.FILES or None)
    extra = {}
    if request.method == "POST" and form.is_valid():
        upload = form.cleaned_data["bundle"]
        with tempfile.TemporaryDirectory(prefix="bundle-upload-") as directory:
            try:
                refuse_large_file(upload, "This bundle")
                _refuse_large_zip(upload)
                root = extract_bundle(upload, directory)
                _refuse_large_directory(directory)
                result = study_import_bundle(
                    directory=root, locate=form.cleaned_data["locate"], user=request.user
                )
            except TooLargeForTheWeb as refused:
                form.add_error(None, str(refused))
            except UnsafeArchive as error:
                form.add_error("bundle", str(error))
            except BundleInvalid as invalid:
                extra = _problems_context(invalid)
            else:
                forget_managed_studies(request)
                messages.success(request, f"Imported the study bundle: {result.describe()}.")
                _warning_messages(request, result.warnings)
                return redirect("admin:studies_study_change", result.study.pk)
    context = _context(model_admin, request, form=form, **page, **extra)
    return TemplateResponse(request, UPLOAD_TEMPLATE, context)


def add_documents(model_admin, request, object_id):
    study = _managed_study(model_admin, request, object_id)
    page = {"title": f"Add documents to {study.title}", "study": study, "submit_label": "Add documents",
            "nothing_written": "No document was added."}  # fmt: skip
    try:
        refuse_large_body(request)
    except TooLargeForTheWeb as refused:
        return _refused_page(model_admin, request, DocumentsUploadForm, refused, **page)
    form = DocumentsUploadForm(request.POST or None, request.FILES or None)
    extra = {}
    if request.method == "POST" and form.is_valid():
        upload = form.cleaned_data["documents"]
        try:
            refuse_large_file(upload, "This documents file")
        except TooLargeForTheWeb as refused:
            form.add_error(None, str(refused))
            return TemplateResponse(
                request, UPLOAD_TEMPLATE, _context(model_admin, request, form=form, **page)
            )
        name = PurePath(upload.name).name
        # The reader picks the format by the suffix, so give it in lower case.
        suffix = ".jsonl" if name.lower().endswith(".jsonl") else ".json"
        name = name[: -len(suffix)] + suffix
        with tempfile.TemporaryDirectory(prefix="documents-upload-") as directory:
            path = Path(directory) / f"documents{suffix}"
            with open(path, "wb") as handle:
                for chunk in upload.chunks():
                    handle.write(chunk)
            try:
                result = study_add_documents(study=study, path=path, name=name)
            except BundleInvalid as invalid:
                extra = _problems_context(invalid)
            else:
                messages.success(request, f"Added {result.documents} documents ({result.segments} segments).")
                _warning_messages(request, result.warnings)
                return redirect("admin:studies_study_change", study.pk)
    context = _context(model_admin, request, form=form, **page, **extra)
    return TemplateResponse(request, UPLOAD_TEMPLATE, context)


def generate_assignments(model_admin, request, object_id):
    study = _managed_study(model_admin, request, object_id)
    initial = {"per_document": study.annotators_per_document}
    form = AssignmentsGenerateForm(request.POST or None, initial=initial)
    plan = None
    if request.method == "POST" and form.is_valid():
        try:
            plan = assignments_generate(
                study=study,
                worker_ids=form.cleaned_data["worker_ids"],
                per_document=form.cleaned_data["per_document"],
                platform=form.cleaned_data["platform"],
            )
        except AssignmentPlanError as error:
            form.add_error(None, str(error))
    rows = []
    if plan is not None:
        site = settings.SITE_URL.rstrip("/")
        rows = [
            (
                assignment.worker.external_id,
                assignment.document.external_id if assignment.document_id else f"block {assignment.block}",
                site + assignment.task_path,
            )  # fmt: skip
            for assignment in plan.created
        ]
    context = _context(
        model_admin,
        request,
        title=f"Generate assignments for {study.title}",
        study=study,
        form=form,
        plan=plan,
        rows=rows,
        rows_tsv="\n".join("\t".join(row) for row in rows),
        short=sorted(plan.short.items()) if plan else [],
        empty=plan.empty if plan else [],
    )
    return TemplateResponse(request, "admin/studies/study/generate_assignments.html", context)
