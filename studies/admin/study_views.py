"""The researchers' tools on a study: import a bundle, add documents, generate assignments.

Thin views: they check the scope, unpack the upload into a temporary
directory, and call the services, which validate everything before writing.
"""

import tempfile
from pathlib import Path, PurePath

from django.conf import settings
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.shortcuts import redirect
from django.template.response import TemplateResponse

from annotations.services import AssignmentPlanError, assignments_generate
from studies.bundle import BundleInvalid
from studies.forms import AssignmentsGenerateForm, BundleUploadForm, DocumentsUploadForm
from studies.services import study_add_documents, study_import_bundle

from .archive import UnsafeArchive, extract_bundle
from .scoping import forget_managed_studies

PROBLEMS_SHOWN = 1000
UPLOAD_TEMPLATE = "admin/studies/study/upload.html"


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


def _managed_study(model_admin, request, object_id):
    study = model_admin.get_object(request, object_id)  # 404 outside the user's studies
    if not model_admin.has_change_permission(request, study):
        raise PermissionDenied
    return study


def import_bundle(model_admin, request):
    if not model_admin.has_add_permission(request):
        raise PermissionDenied
    form = BundleUploadForm(request.POST or None, request.FILES or None)
    extra = {}
    if request.method == "POST" and form.is_valid():
        with tempfile.TemporaryDirectory(prefix="bundle-upload-") as directory:
            try:
                root = extract_bundle(form.cleaned_data["bundle"], directory)
                result = study_import_bundle(
                    directory=root, locate=form.cleaned_data["locate"], user=request.user
                )
            except UnsafeArchive as error:
                form.add_error("bundle", str(error))
            except BundleInvalid as invalid:
                extra = _problems_context(invalid)
            else:
                forget_managed_studies(request)
                messages.success(request, f"Imported the study bundle: {result.describe()}.")
                return redirect("admin:studies_study_change", result.study.pk)
    context = _context(
        model_admin,
        request,
        title="Import a study bundle",
        form=form,
        submit_label="Import",
        nothing_written="Nothing was imported.",
        **extra,
    )
    return TemplateResponse(request, UPLOAD_TEMPLATE, context)


def add_documents(model_admin, request, object_id):
    study = _managed_study(model_admin, request, object_id)
    form = DocumentsUploadForm(request.POST or None, request.FILES or None)
    extra = {}
    if request.method == "POST" and form.is_valid():
        upload = form.cleaned_data["documents"]
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
                return redirect("admin:studies_study_change", study.pk)
    context = _context(
        model_admin,
        request,
        title=f"Add documents to {study.title}",
        study=study,
        form=form,
        submit_label="Add documents",
        nothing_written="No document was added.",
        **extra,
    )
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
    )
    return TemplateResponse(request, "admin/studies/study/generate_assignments.html", context)
