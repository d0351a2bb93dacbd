"""A report computed in parts across Celery workers: fan out, compute each part, merge.

A study whose protocol splits its report (Protocol.report_parts, e.g. a span
study of more than REPORT_PART_DOCUMENTS documents) is not computed by one
job. report_compute hands it here:

1. ``fan_out``: one ReportPart row per chunk of documents for this attempt,
   and one part job each, sent as a Celery group once the rows are committed.
2. ``part_compute`` (any worker): the part's sufficient statistics (the
   protocol's, and those of each extension that computes its section in parts,
   e.g. the evaluator comparison), stored on its row under the report's row lock; the call whose row completes the set
   sends the merge job. A redelivered part job finds its row done and only
   checks again whether the set is complete.
3. ``merge`` (one worker): the report from every part's statistics, written
   only while the report is still running the same attempt.

No result backend is needed: the join is counted in the database, where
the parts' statistics also live, so a worker killed mid-part only delays
its part (acks are late: the job is delivered again), and a report whose
jobs were all lost is found stale and fanned out again as a new attempt
(reports_requeue_stale). The merged report equals a one-pass report: the
protocol's merge adds counts and computes the figures once.
"""

import logging

from celery import group
from django.conf import settings
from django.db import transaction
from django.db.models.fields.json import KeyTransform
from django.utils import timezone
from kombu.exceptions import OperationalError as BrokerError

from falte_site.celery import SEND_RETRY_POLICY, task
from reports.models import Report, ReportPart
from reports.study_report import study_report_data
from studies import extensions, protocols

log = logging.getLogger(__name__)
PART_TASK = "reports.tasks.report_part_task"
MERGE_TASK = "reports.tasks.report_merge_task"
# The share of the progress bar the parts fill; the merge fills the rest.
PARTS_SHARE = 0.9


def split(study, protocol):
    """The protocol's parts of the study's report, or None when it is computed in one pass."""
    parts = protocol.report_parts(study, settings.REPORT_PART_DOCUMENTS)
    return parts if parts and len(parts) > 1 else None


def fan_out(report, specs):
    """Store this attempt's parts and send their jobs after the commit (inside report_compute's claim)."""
    ReportPart.objects.filter(report=report).exclude(attempt=report.attempts).delete()
    ReportPart.objects.bulk_create(
        ReportPart(report=report, attempt=report.attempts, number=number, spec=spec)
        for number, spec in enumerate(specs)
    )
    signatures = [task(PART_TASK).si(report.pk, report.attempts, number) for number in range(len(specs))]

    def send():
        try:
            group(signatures).apply_async(retry_policy=SEND_RETRY_POLICY)
        except BrokerError:  # the report goes stale and is fanned out again (reports_requeue_stale)
            log.warning("report %s: the broker is not reachable; its parts are sent again later", report.pk)

    transaction.on_commit(send)


def _current(report_id, attempt, *, lock=False):
    """The report while it still runs this attempt, else None (finished, failed or superseded)."""
    reports = Report.objects.select_for_update() if lock else Report.objects
    return (
        reports.select_related("study")
        .filter(pk=report_id, status=Report.Status.RUNNING, attempts=attempt)
        .first()
    )


def part_compute(report_id, attempt, number):
    """Compute one part (a job's body); the call that completes the set sends the merge job."""
    report = _current(report_id, attempt)
    if report is None:
        return
    part = ReportPart.objects.filter(report_id=report_id, attempt=attempt, number=number).first()
    if part is None:
        return
    tallies = None
    if part.tallies is None:
        Report.objects.filter(pk=report_id).update(heartbeat_at=timezone.now())
        try:
            tallies = part_tallies(report.study, part.spec)
        except Exception as error:  # the report fails with its reason, as a one-pass report would
            log.exception("report %s part %s failed", report_id, number)
            _fail(report_id, attempt, error)
            return
    with transaction.atomic():
        if _current(report_id, attempt, lock=True) is None:
            return
        stored = 0
        if tallies is not None:
            stored = ReportPart.objects.filter(pk=part.pk, tallies__isnull=True).update(
                tallies=tallies, finished_at=timezone.now()
            )
        parts = ReportPart.objects.filter(report_id=report_id, attempt=attempt)
        done, total = parts.filter(tallies__isnull=False).count(), parts.count()
        Report.objects.filter(pk=report_id).update(
            progress=PARTS_SHARE * done / total, heartbeat_at=timezone.now()
        )
        # Exactly one call stores the last part (the lock orders them); a redelivered call of a
        # finished part stores nothing, so it sends the merge again only if none was stored before.
        if done == total and (stored or tallies is None):
            transaction.on_commit(lambda: _send_merge(report_id, attempt))


def part_tallies(study, spec):
    """The protocol's tallies of one part, with each extension's (Extension.report_part) under
    "extensions"; what the part reads from the database is shared by both (study.report_cache)."""
    study.report_cache = {}
    try:
        tallies = protocols.of(study).report_part(study, spec)
        sections = {}
        for extension in extensions.registered():
            section = extension.report_part(study, spec) if extension.report_key else None
            if section is not None:
                sections[extension.report_key] = section
    finally:
        del study.report_cache
    if sections:
        tallies["extensions"] = sections
    return tallies


def _send_merge(report_id, attempt):
    try:
        task(MERGE_TASK).apply_async((report_id, attempt), retry_policy=SEND_RETRY_POLICY)
    except BrokerError:  # the report goes stale and is sent again (reports_requeue_stale)
        log.warning("report %s: the broker is not reachable; its merge is sent again later", report_id)


def merge(report_id, attempt):
    """The report from its parts (a job's body); nothing happens unless every part is done."""
    report = _current(report_id, attempt)
    if report is None:
        return
    parts = ReportPart.objects.filter(report_id=report_id, attempt=attempt)
    if not parts.exists() or parts.filter(tallies__isnull=True).exists():
        return

    def progress(fraction):
        Report.objects.filter(pk=report_id, status=Report.Status.RUNNING, attempts=attempt).update(
            progress=PARTS_SHARE + (1 - PARTS_SHARE) * max(0.0, min(1.0, fraction)),
            heartbeat_at=timezone.now(),
        )

    try:
        result = study_report_data(report.study, progress=progress, parts=PartTallies(report_id, attempt))
    except Exception as error:
        log.exception("report %s: merging its parts failed", report_id)
        _fail(report_id, attempt, error)
        return
    with transaction.atomic():
        finished = Report.objects.filter(pk=report_id, status=Report.Status.RUNNING, attempts=attempt).update(
            status=Report.Status.DONE, result=result, progress=1.0, error="", finished_at=timezone.now()
        )
        if finished:
            ReportPart.objects.filter(report_id=report_id).delete()


class PartTallies:
    """The tallies of an attempt's parts in part order, read from the database one part at a time.

    Every iteration reads them again, so the merge holds one part's decoded tallies at a time,
    never the whole study's: what a merge keeps across parts is its own running sums and packed
    per-document arrays (docs/benchmarks.md, "Growth with the study"). `section` reads one key
    of each part alone (the database extracts it), so a merge step decodes only what it merges.
    """

    def __init__(self, report_id, attempt):
        self.parts = ReportPart.objects.filter(report_id=report_id, attempt=attempt)

    def __iter__(self):
        return self._values("tallies")

    def section(self, *path):
        """The value at `path` (keys, e.g. "extensions", "evaluator_comparison") of the parts
        that have one, in part order."""
        return PartSection(self, path)

    def sections(self, *keys):
        """Each part's values of the top-level `keys` alone, as {key: value}, in part order."""
        for values in self._values(*(KeyTransform(key, "tallies") for key in keys)):
            yield dict(zip(keys, values, strict=True))

    def _values(self, *expressions):
        for pk in list(self.parts.order_by("number").values_list("pk", flat=True)):
            values = self.parts.filter(pk=pk).values_list(*expressions, flat=len(expressions) == 1)
            yield values.get()


class PartSection:
    """One key's value in each part (PartTallies.section), read a part at a time on each iteration."""

    def __init__(self, tallies, path):
        self.tallies, self.path = tallies, path

    def __iter__(self):
        expression = "tallies"
        for key in self.path:
            expression = KeyTransform(key, expression)
        return (value for value in self.tallies._values(expression) if value is not None)

    def in_every_part(self):
        return self._parts_with().count() == self.tallies.parts.count() > 0

    def in_any_part(self):
        return self._parts_with().exists()

    def _parts_with(self):
        *within, key = self.path
        return self.tallies.parts.filter(**{"__".join(["tallies", *within, "has_key"]): key}).exclude(
            **{"__".join(["tallies", *self.path]): None}
        )


def _fail(report_id, attempt, error):
    Report.objects.filter(pk=report_id, status=Report.Status.RUNNING, attempts=attempt).update(
        status=Report.Status.FAILED, error=f"{type(error).__name__}: {error}", finished_at=timezone.now()
    )
    ReportPart.objects.filter(report_id=report_id).delete()
