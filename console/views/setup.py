"""The new-study flow: protocol and title, documents, categories or scale, annotators, preview, launch.

Each step saves to the draft study and leads to the next, so a reload or a
second visit loses nothing and the home page shows where a draft stopped.
"""

from django.conf import settings
from django.contrib import messages
from django.db import transaction
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from accounts import policy
from annotations.services.planning import AssignmentPlanError
from bundles.problems import BundleInvalid
from studies import extensions, protocols

from .. import services
from ..access import console_view, managed_study
from ..forms import AnnotatorsForm, CategoriesForm, DocumentsForm, LaunchForm, NewStudyForm, ScaleForm
from ..taxonomies import library, written_categories
from ..workflow import setup_steps

PROBLEMS_SHOWN = 30


def _page(request, study, step, template, **context):
    return render(
        request, template,
        {"study": study, "step": step, "steps": setup_steps(study), "protocol": protocols.of(study), **context},
    )  # fmt: skip


@console_view
@require_http_methods(["GET", "POST"])
def new_study(request):
    if not (request.user.is_superuser or request.user.has_perm("studies.add_study")):
        return render(request, "console/forbidden.html", {"reason": "You may not start studies."}, status=403)
    form = NewStudyForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        study = services.study_create(
            title=form.cleaned_data["title"], protocol=form.cleaned_data["protocol"], user=request.user
        )
        policy.forget_roles(request.user)
        return redirect("console:documents", study.pk)
    protocol_notes = [(p.key, p.label, _PROTOCOL_NOTES.get(p.key, "")) for p in protocols.registered()]
    return render(request, "console/new_study.html", {"form": form, "protocol_notes": protocol_notes})


_PROTOCOL_NOTES = {
    "span": "Workers read a text segment by segment and mark error spans with a category.",
    "likert": "Workers rate each output on a scale (e.g. 1 to 5).",
    "bws": "Workers pick the best and the worst output of each tuple.",
    "review": "Workers judge error annotations that someone else (often an LLM) made.",
    "pairwise": "Workers choose the better of two outputs, or a tie.",
    "mqm": "Workers read a translation beside its source and mark its errors with an MQM category and a "
    "severity; a system's score is its errors' weights.",
    "esa": "Workers mark a translation's error spans (Minor or Major), then score each segment from 0 to 100.",
    "da": "Workers score each translated segment: a 0-100 slider (DA) or the 0-6 SQM scale.",
    "contrastive-mqm": "As MQM, with every system's translation of a source side by side, shuffled per worker.",
    "contrastive-esa": "As ESA, with every system's translation of a source side by side, shuffled per worker.",
    "contrastive-da": "As DA, with every system's translation of a source side by side, shuffled per worker.",
}


@console_view
@require_http_methods(["GET", "POST"])
def documents(request, study_id):
    study = managed_study(request, study_id)
    form = DocumentsForm(request.POST or None, request.FILES or None, protocol=protocols.of(study))
    problems = []
    if request.method == "POST" and form.is_valid():
        try:  # the uploads as Django has them (on disk past FILE_UPLOAD_MAX_MEMORY_SIZE): never read whole
            added, segments = services.study_add_document_text(
                study=study, text=form.cleaned_data.get("text", ""), uploads=form.cleaned_data["files"],
                file_format=form.cleaned_data.get("file_format", ""),
            )  # fmt: skip
        except BundleInvalid as invalid:
            problems = invalid.problems
        else:
            messages.success(request, f"Added {added} documents ({segments} segments).")
            return redirect("console:categories", study.pk)
    # Another tool's annotations make a study of their own, with texts only: not one whose documents
    # need more than a text (a translation's sources).
    imports = [] if form.own_formats else [(reverse(f"admin:{name}"), text) for e in extensions.registered()
                                           for _, _, name, text in e.study_admin_imports]  # fmt: skip
    return _page(
        request, study, "documents", "console/setup_documents.html", form=form,
        problems=problems[:PROBLEMS_SHOWN], problems_more=max(0, len(problems) - PROBLEMS_SHOWN),
        document_count=study.documents.count(), imports=imports,
    )  # fmt: skip


@console_view
@require_http_methods(["GET", "POST"])
def categories(request, study_id):
    study = managed_study(request, study_id)
    protocol = protocols.of(study)
    if not protocol.needs_taxonomy:
        return _scale(request, study, protocol)
    form = CategoriesForm(request.POST or None, protocol=protocol.key)
    settings_form = protocol.setup_form(study, request.POST if request.method == "POST" else None)
    # Both forms are checked (not one after the other), so the page shows every field's error at once.
    valid = [f.is_valid() for f in (form, settings_form) if f is not None]
    if request.method == "POST" and all(valid):
        source = form.cleaned_data["source"]
        try:
            with transaction.atomic():  # the taxonomy and the settings, or neither
                if source == "written":
                    written = written_categories(form.cleaned_data["written"])
                    services.study_set_taxonomy(study=study, user=request.user, categories=written)
                else:
                    services.study_set_taxonomy(study=study, user=request.user, library_slug=source)
                if settings_form is not None:
                    services.study_set_settings(study=study, config=settings_form.config())
        except services.SetupRefused as refused:
            form.add_error(None, str(refused))
        else:
            return redirect("console:annotators", study.pk)
    current = list(study.taxonomy.categories.order_by("order", "key")) if study.taxonomy_id else []
    return _page(
        request, study, "categories", "console/setup_categories.html", form=form, current=current,
        library=library(protocol.key), taxonomy=study.taxonomy, settings_form=settings_form,
    )  # fmt: skip


def _settings(request, study, form):
    """The protocol's own settings (Protocol.setup_form) instead of a scale."""
    if request.method == "POST" and form.is_valid():
        try:
            services.study_set_settings(study=study, config=form.config())
        except services.SetupRefused as refused:
            form.add_error(None, str(refused))
        else:
            return redirect("console:annotators", study.pk)
    return _page(request, study, "categories", "console/setup_settings.html", settings_form=form)


def _scale(request, study, protocol):
    settings_form = protocol.setup_form(study, request.POST if request.method == "POST" else None)
    if settings_form is not None:
        return _settings(request, study, settings_form)
    form = ScaleForm(request.POST if request.method == "POST" else None, protocol=protocol.key)
    if request.method == "POST" and form.is_valid():
        if protocol.key == "likert":
            config = {"scale": {"min": form.cleaned_data["low"], "max": form.cleaned_data["high"]}}
        elif protocol.key == "bws":
            config = {"tuple_size": form.cleaned_data["tuple_size"]}
        else:
            config = {}
        services.study_set_scale(study=study, config=config)
        return redirect("console:annotators", study.pk)
    return _page(request, study, "categories", "console/setup_scale.html", form=form)


@console_view
@require_http_methods(["GET", "POST"])
def annotators(request, study_id):
    study = managed_study(request, study_id)
    initial = {
        "annotators_per_document": study.annotators_per_document,
        "max_documents_per_worker": study.max_documents_per_worker,
        "instructions": study.instructions,
        "qualification": (study.config.get("setup") or {}).get("qualification", False),
    }
    form = AnnotatorsForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        services.study_set_work(study=study, **form.cleaned_data)
        return redirect("console:preview", study.pk)
    return _page(request, study, "annotators", "console/setup_annotators.html", form=form)


@console_view
@require_http_methods(["GET", "POST"])
def preview(request, study_id):
    study = managed_study(request, study_id)
    if request.method == "POST":
        try:
            assignment = services.study_preview(study=study, user=request.user)
        except services.SetupRefused as refused:
            messages.error(request, str(refused))
            return redirect("console:preview", study.pk)
        return redirect(assignment.task_path)
    return _page(
        request, study, "preview", "console/setup_preview.html", problems=services.setup_problems(study)
    )


@console_view
@require_http_methods(["GET", "POST"])
def launch(request, study_id):
    study = managed_study(request, study_id)
    form = LaunchForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            plan = services.study_launch(
                study=study, user=request.user, workers=form.worker_names(),
                pilot=form.cleaned_data["stage"] == "pilot",
            )  # fmt: skip
        except (services.SetupRefused, AssignmentPlanError) as refused:
            form.add_error(None, str(refused))
        else:
            created = len(plan.created) if plan else 0
            messages.success(
                request,
                f"The study is open. {created} task links were made; the join link is under Run."
                if created else "The study is open: share its join link (under Run).",
            )  # fmt: skip
            return redirect(f"{reverse('console:study', args=[study.pk])}?tab=run")
    return _page(
        request, study, "launch", "console/setup_launch.html", form=form, problems=services.setup_problems(study),
        join_url=f"{settings.SITE_URL.rstrip('/')}/join/{study.join_key}/",
    )  # fmt: skip
