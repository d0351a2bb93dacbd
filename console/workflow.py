"""Where a study stands in the researcher's job, and what to do next: read from the study's rows.

Stages: a *draft* is being set up; a *piloting* study is open to a few people
first (config stage "pilot"); a *running* study is open; a *finished* one is
closed. The next action is the first thing the stage still lacks.
"""

from dataclasses import dataclass, field

from django.db.models import Count, Q
from django.urls import reverse

from accounts import policy
from annotations.models import Assignment
from reports.models import Report
from studies import extensions, protocols
from studies.models import Document, Study

from .services import PREVIEW_PREFIX, setup_done

STAGES = ("draft", "piloting", "running", "finished")
TABS = (
    ("design", "Design"),
    ("pilot", "Pilot"),
    ("run", "Run"),
    ("analyse", "Analyse"),
    ("publish", "Publish"),
)
SETUP_STEPS = (
    ("documents", "Documents", "console:documents"),
    ("categories", "Categories or scale", "console:categories"),
    ("annotators", "Annotators", "console:annotators"),
    ("preview", "Preview as a worker", "console:preview"),
)


def stage_of(study):
    if study.status == Study.Status.DRAFT:
        return "draft"
    if study.status == Study.Status.CLOSED:
        return "finished"
    return "piloting" if (study.config or {}).get("stage") == "pilot" else "running"


@dataclass
class Summary:
    """One study as the console's home lists it."""

    study: Study
    stage: str
    protocol_label: str
    documents: int = 0
    wanted: int = 0  # submitted assignments the design asks for
    submitted: int = 0
    headline: dict | None = None  # the protocol's agreement figure of the latest report
    report: Report | None = None
    extras: list = field(default_factory=list)  # [(label, text)] from the extensions
    next_label: str = ""
    next_url: str = ""
    manages: bool = False

    @property
    def progress_pct(self):
        return min(100, round(100 * self.submitted / self.wanted)) if self.wanted else 0


def people_assignments():
    """Assignments of people doing the study's main work (no previews, no evaluators)."""
    return Assignment.objects.filter(kind=Assignment.Kind.MAIN).exclude(
        worker__external_id__startswith=PREVIEW_PREFIX
    )


def summaries(user, studies=None):
    """[Summary] of the studies `user` may read (or of `studies`), newest first, in a few queries."""
    studies = list(studies if studies is not None else policy.readable_studies(user).order_by("-created_at"))
    ids = [study.pk for study in studies]
    documents = {
        row["study"]: row
        for row in Document.objects.filter(study__in=ids, kind=Document.Kind.MAIN)
        .values("study")
        .annotate(n=Count("pk"), blocks=Count("block", distinct=True, filter=~Q(block="")))
    }
    submitted = dict(
        people_assignments()
        .filter(study__in=ids, status=Assignment.Status.SUBMITTED)
        .values("study")
        .annotate(n=Count("pk"))
        .values_list("study", "n")
    )
    latest = {}
    for report in Report.objects.filter(study__in=ids, status=Report.Status.DONE).order_by(
        "study_id", "-finished_at"
    ):
        latest.setdefault(report.study_id, report)
    found = []
    for study in studies:
        protocol = _protocol(study)
        counts = documents.get(study.pk, {"n": 0, "blocks": 0})
        units = counts["blocks"] if protocol is not None and protocol.works_on == "block" else counts["n"]
        report = latest.get(study.pk)
        summary = Summary(
            study=study, stage=stage_of(study), protocol_label=protocol.label if protocol else study.protocol,
            documents=counts["n"], wanted=units * study.annotators_per_document, submitted=submitted.get(study.pk, 0),
            report=report, manages=policy.may_manage_study(user, study.pk),
        )  # fmt: skip
        if report is not None and protocol is not None:
            summary.headline = protocol.report_headline(report.result or {})
        for extension in extensions.registered():
            summary.extras += extension.study_summary(study, report.result if report else None)
        summary.next_label, summary.next_url = next_action(summary)
        found.append(summary)
    return found


def _protocol(study):
    try:
        return protocols.of(study)
    except protocols.UnknownProtocol:
        return None


def setup_steps(study):
    """[(key, label, url, done)] of the new-study flow for `study`: a step is done when the flow
    recorded it, or when the study has what it gives (a study imported as a bundle has its
    documents and categories; a launched one is past every step)."""
    done = set(setup_done(study))
    if study.documents.exists():
        done.add("documents")
    protocol = _protocol(study)
    if study.taxonomy_id or (
        protocol is not None and not protocol.needs_taxonomy and study.status != Study.Status.DRAFT
    ):
        done.add("categories")
    if study.status != Study.Status.DRAFT:
        done.update(("annotators", "preview"))
    return [(key, label, reverse(name, args=[study.pk]), key in done) for key, label, name in SETUP_STEPS]


def next_action(summary):
    """(what to do next, where) for a study at its stage."""
    study = summary.study
    tab = reverse("console:study", args=[study.pk])
    if summary.stage == "draft":
        for _, label, url, done in setup_steps(study):
            if not done:
                return f"Set up: {label.lower()}", url
        return "Launch", reverse("console:launch", args=[study.pk])
    if summary.stage == "piloting":
        if summary.report is None:
            return "Read the pilot's first report", f"{tab}?tab=analyse"
        return "Start the main run", f"{tab}?tab=pilot"
    if summary.stage == "running":
        if summary.wanted and summary.submitted >= summary.wanted:
            return "All work is in: close and analyse", f"{tab}?tab=run"
        return "Follow the work and pay", f"{tab}?tab=run"
    return "Publish the tables", f"{tab}?tab=publish"


def tool_links(study, tab):
    """[(text, url)] of the extensions' tools for `study` on a workflow tab."""
    links = []
    for extension in extensions.registered():
        for on_tab, text, name, kind in extension.console_links:
            if on_tab != tab:
                continue
            url = reverse(name, args=[study.pk]) if kind == "study" else f"{reverse(name)}?study={study.pk}"
            links.append((text, url))
    return links
