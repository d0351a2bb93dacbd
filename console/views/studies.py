"""The console's home (the researcher's studies and what each needs next) and a study's page,
its work in five tabs: Design, Pilot, Run, Analyse, Publish."""

from django.conf import settings
from django.contrib import messages
from django.db.models import Count
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from accounts import policy
from annotations.models import Assignment
from annotations.services.stopping import allocation_status
from exports.publish import csv_archive, latex_document
from reports.models import Report
from reports.page import report_page_context
from reports.services import ReportNotSent, report_request
from studies import protocols
from studies.allocation import allocation_settings, offers_allocation
from studies.models import Document

from .. import services
from ..access import console_view, managed_study, readable_study
from ..allocation import AllocationForm, allocation_warning, study_set_allocation
from ..workflow import TABS, people_assignments, setup_steps, summaries, tool_links

SHORT_SHOWN = 10
TASK_LINKS_SHOWN = 50


@console_view
@require_GET
def home(request):
    studies = summaries(request.user)
    by_stage = {
        stage: [s for s in studies if s.stage == stage]
        for stage in ("draft", "piloting", "running", "finished")
    }
    may_add = request.user.is_superuser or request.user.has_perm("studies.add_study")
    return render(
        request, "console/home.html", {"studies": studies, "by_stage": by_stage, "may_add": may_add}
    )


@console_view
@require_GET
def study(request, study_id):
    study = readable_study(request, study_id)
    (summary,) = summaries(request.user, [study])
    tab = request.GET.get("tab") or _default_tab(summary.stage)
    if tab not in dict(TABS):
        tab = "design"
    manages = policy.may_manage_study(request.user, study.pk)
    context = _page_context(study, summary, tab, manages)
    context.update(_TAB_CONTEXT[tab](request, study, manages))
    return render(request, "console/study.html", context)


def _page_context(study, summary, tab, manages):
    """What the study page shows around its tab."""
    return {
        "study": study, "summary": summary, "tab": tab, "tabs": TABS, "manages": manages,
        "steps": setup_steps(study), "tools": tool_links(study, tab), "protocol": protocols.of(study),
    }  # fmt: skip


def _default_tab(stage):
    return {"draft": "design", "piloting": "pilot", "running": "run", "finished": "analyse"}[stage]


def _design(request, study, manages, allocation_form=None, quality_check_form=None):
    categories = list(study.taxonomy.categories.order_by("order", "key")) if study.taxonomy_id else []
    offered = offers_allocation(study)
    protocol = protocols.of(study)
    if quality_check_form is None and manages:
        quality_check_form = protocol.quality_check_form(study)
    return {
        "categories": categories, "document_count": study.documents.count(),
        "design_facts": protocol.design_facts(study),
        "allocation": allocation_settings(study) if offered else None,
        "allocation_form": (allocation_form or AllocationForm(study)) if offered and manages else None,
        "quality_check_form": quality_check_form,
    }  # fmt: skip


def _design_refused(request, study, **forms):
    """The Design tab again, with a form that was refused and its errors (400)."""
    (summary,) = summaries(request.user, [study])
    context = _page_context(study, summary, "design", manages=True)
    context.update(_design(request, study, True, **forms))
    return render(request, "console/study.html", context, status=400)


def _task_links(study, manages):
    if not manages:  # task links are worker secrets: only who runs the study sees them
        return []
    rows = (
        people_assignments()
        .filter(study=study)
        .exclude(status=Assignment.Status.RELEASED)
        .select_related("worker", "document")
        .order_by("worker__external_id", "pk")[:TASK_LINKS_SHOWN]
    )
    base = settings.SITE_URL.rstrip("/")
    return [(a.worker.external_id, a.document.external_id if a.document else a.block, a.get_status_display(),
             f"{base}{a.task_path}") for a in rows]  # fmt: skip


def _pilot(request, study, manages):
    return {"task_links": _task_links(study, manages)}


def _run(request, study, manages):
    counts = dict(
        people_assignments()
        .filter(study=study)
        .values("status")
        .annotate(n=Count("pk"))
        .values_list("status", "n")
    )
    by_status = [(label, counts.get(status, 0)) for status, label in Assignment.Status.choices]
    active = people_assignments().filter(study=study).exclude(status=Assignment.Status.RELEASED)
    per_document = dict(active.values("document").annotate(n=Count("pk")).values_list("document", "n"))
    main = study.documents.filter(kind=Document.Kind.MAIN).order_by("position", "pk")
    short = [(d.external_id, per_document.get(d.pk, 0)) for d in main.only("pk", "external_id")
             if per_document.get(d.pk, 0) < study.annotators_per_document]  # fmt: skip
    return {
        "by_status": by_status, "short": short[:SHORT_SHOWN], "short_count": len(short),
        "join_url": f"{settings.SITE_URL.rstrip('/')}/join/{study.join_key}/" if manages else "",
        "task_links": _task_links(study, manages),
        "allocation_status": allocation_status(study),
    }  # fmt: skip


def _latest_report(study):
    return Report.objects.filter(study=study).order_by("-created_at").first()


def _analyse(request, study, manages):
    report = _latest_report(study)
    context = {
        "report": report,
        "submitted": people_assignments().filter(study=study, status="submitted").count(),
    }
    if report is not None:
        context.update(report_page_context(report))
        context["json_url"] = reverse("admin:reports_report_json", args=[report.pk])
    return context


def _publish(request, study, manages):
    report = Report.objects.filter(study=study, status=Report.Status.DONE).order_by("-finished_at").first()
    tables = protocols.of(study).publish_tables(report.result or {}) if report else []
    return {"published": report, "tables": tables}


_TAB_CONTEXT = {"design": _design, "pilot": _pilot, "run": _run, "analyse": _analyse, "publish": _publish}


@console_view
@require_POST
def stage(request, study_id):
    study = managed_study(request, study_id)
    wanted = request.POST.get("stage", "")
    try:
        services.study_set_stage(study=study, stage=wanted)
    except services.SetupRefused as refused:
        messages.error(request, str(refused))
    else:
        messages.success(request, {"running": "The main run is open.", "finished": "The study is closed.",
                                   "piloting": "The study is open for a pilot."}[wanted])  # fmt: skip
    return redirect(f"{reverse('console:study', args=[study.pk])}?tab={request.POST.get('tab', 'run')}")


@console_view
@require_POST
def allocation(request, study_id):
    study = managed_study(request, study_id)
    if not offers_allocation(study):
        messages.error(request, "This protocol has no allocation settings.")
        return redirect(f"{reverse('console:study', args=[study.pk])}?tab=design")
    form = AllocationForm(study, request.POST)
    if not form.is_valid():
        return _design_refused(request, study, allocation_form=form)
    study = study_set_allocation(study=study, allocation=form.allocation())
    messages.success(request, "The allocation settings are saved.")
    if (warning := allocation_warning(study)) is not None:
        messages.warning(request, warning)
    return redirect(f"{reverse('console:study', args=[study.pk])}?tab=design")


@console_view
@require_POST
def quality_checks(request, study_id):
    """Make the study's quality checks (Protocol.quality_check_form), as `make_quality_checks` does."""
    study = managed_study(request, study_id)
    form = protocols.of(study).quality_check_form(study, request.POST)
    if form is None:
        messages.error(request, "This protocol has no quality checks.")
        return redirect(f"{reverse('console:study', args=[study.pk])}?tab=design")
    made = form.make() if form.is_valid() else None
    if made is None:
        return _design_refused(request, study, quality_check_form=form)
    messages.success(request, made)
    return redirect(f"{reverse('console:study', args=[study.pk])}?tab=design#quality-checks")


@console_view
@require_POST
def compute_report(request, study_id):
    study = managed_study(request, study_id)
    try:
        report, created = report_request(study=study, user=request.user)
    except ReportNotSent as refused:
        messages.error(request, str(refused))
    else:
        messages.success(
            request, "The report is being computed." if created else f"A report is already {report.status}."
        )
    return redirect(f"{reverse('console:study', args=[study.pk])}?tab=analyse")


def _published_tables(request, study_id):
    study = readable_study(request, study_id)
    report = Report.objects.filter(study=study, status=Report.Status.DONE).order_by("-finished_at").first()
    tables = protocols.of(study).publish_tables(report.result or {}) if report else []
    return study, report, tables


def _no_tables_yet():
    return HttpResponse(
        "This study has no finished report with tables yet.", status=404, content_type="text/plain"
    )


@console_view
@require_GET
def publish_latex(request, study_id):
    study, report, tables = _published_tables(request, study_id)
    if not tables:
        return _no_tables_yet()
    response = HttpResponse(
        latex_document(tables, study=study, report=report), content_type="text/x-tex; charset=utf-8"
    )
    response["Content-Disposition"] = f'attachment; filename="{study.slug}-tables.tex"'
    return response


@console_view
@require_GET
def publish_csv(request, study_id):
    study, report, tables = _published_tables(request, study_id)
    if not tables:
        return _no_tables_yet()
    response = HttpResponse(csv_archive(tables), content_type="application/zip")
    response["Content-Disposition"] = f'attachment; filename="{study.slug}-tables.zip"'
    return response
