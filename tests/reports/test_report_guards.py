"""A report job's message may be delivered twice: the second delivery must not redo or disturb the work."""

from datetime import timedelta

import pytest
from django.utils import timezone

from bundles.services import study_import_bundle
from reports.models import Report
from reports.tasks import report_compute_task
from tests.reports.span_bundle import write_span_bundle

pytestmark = pytest.mark.django_db


@pytest.fixture
def study(tmp_path, researcher):
    return study_import_bundle(directory=write_span_bundle(tmp_path, slug="guards"), user=researcher).study


def deliver(report):
    """One delivery of the report's message, run in this process as a worker would."""
    report_compute_task.apply(args=(report.pk,))
    report.refresh_from_db()
    return report


@pytest.mark.parametrize("status", [Report.Status.DONE, Report.Status.FAILED])
def test_a_finished_report_delivered_again_is_not_computed_again(study, status):
    finished_at = timezone.now() - timedelta(days=1)
    report = Report.objects.create(
        study=study, status=status, result={"kept": True}, error="kept", progress=1.0, attempts=1,
        finished_at=finished_at,
    )  # fmt: skip
    deliver(report)
    assert (report.status, report.result, report.error) == (status, {"kept": True}, "kept")
    assert (report.attempts, report.finished_at) == (1, finished_at)


def test_a_report_a_live_worker_is_computing_is_not_started_by_a_second_delivery(study, clock):
    started = timezone.now() - timedelta(minutes=5)
    report = Report.objects.create(
        study=study, status=Report.Status.RUNNING, attempts=1, progress=0.4, started_at=started,
        heartbeat_at=timezone.now() - timedelta(seconds=5),
    )  # fmt: skip
    deliver(report)
    assert report.status == Report.Status.RUNNING and report.result is None
    assert (report.attempts, report.started_at, report.progress) == (1, started, 0.4)


def test_a_report_whose_worker_went_silent_is_started_by_the_next_delivery(study, settings):
    report = Report.objects.create(
        study=study, status=Report.Status.RUNNING, attempts=1, progress=0.4,
        heartbeat_at=timezone.now() - timedelta(seconds=settings.REPORT_STALE_SECONDS + 5),
    )  # fmt: skip
    deliver(report)
    assert report.status == Report.Status.DONE, report.error
    assert report.attempts == 2 and report.result["study"] == "guards"
