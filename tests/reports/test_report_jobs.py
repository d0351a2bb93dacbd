"""Requesting and computing reports, the way researchers do it."""

import json
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from bundles.services import study_import_bundle
from reports.models import Report
from reports.services import report_request, reports_requeue_stale
from tests.reports.span_bundle import write_span_bundle

# These tests run the job in-process; tests/reports/test_worker.py uses a real worker.
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("eager_celery")]


@pytest.fixture
def study(tmp_path, researcher):
    result = study_import_bundle(directory=write_span_bundle(tmp_path, slug="jobs"), user=researcher)
    return result.study


def test_a_requested_report_is_computed_after_commit(study, researcher, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        report, created = report_request(study=study, user=researcher)
        assert Report.objects.get(pk=report.pk).status == Report.Status.QUEUED
    assert created and len(callbacks) == 1
    report.refresh_from_db()
    assert report.status == Report.Status.DONE, report.error
    assert report.progress == 1.0 and report.attempts == 1 and report.requested_by == researcher
    assert report.result["study"] == "jobs" and report.result["protocol"] == "span"
    assert set(report.result["categories"]) == {"CharE", "RepE", "GramE"}
    assert set(report.result["groups"]) == {"coherence", "language"}
    assert report.result["annotators_per_document"] == 3


def test_a_second_request_while_one_runs_returns_the_running_one(study, clock):
    running = Report.objects.create(study=study, status=Report.Status.RUNNING, heartbeat_at=timezone.now())
    again, created = report_request(study=study)
    assert (again, created) == (running, False)
    assert Report.objects.count() == 1


def test_a_failure_is_recorded_with_its_message(study, monkeypatch, django_capture_on_commit_callbacks):
    def broken(study, progress=None):
        raise ValueError("the segments table is unreadable")

    monkeypatch.setattr("reports.services.study_report_data", broken)
    with django_capture_on_commit_callbacks(execute=True):
        report, _ = report_request(study=study)
    report.refresh_from_db()
    assert report.status == Report.Status.FAILED
    assert report.error == "ValueError: the segments table is unreadable"
    # A failed report does not block the next request.
    assert report_request(study=study)[1] is True


def test_a_report_left_running_by_a_dead_worker_is_sent_again(
    study, django_capture_on_commit_callbacks, clock
):
    stuck = Report.objects.create(study=study, status=Report.Status.RUNNING, attempts=1,
                                  heartbeat_at=timezone.now() - timedelta(minutes=10))  # fmt: skip
    alive = Report.objects.create(study=study, kind="agreement-copy", status=Report.Status.RUNNING,
                                  heartbeat_at=timezone.now())  # fmt: skip
    with django_capture_on_commit_callbacks(execute=True):
        assert reports_requeue_stale() == [stuck.pk]
    stuck.refresh_from_db()
    assert stuck.status == Report.Status.DONE and stuck.attempts == 2
    alive.refresh_from_db()
    assert alive.status == Report.Status.RUNNING


def test_study_report_command_writes_the_same_json_as_the_job(
    study, tmp_path, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        report, _ = report_request(study=study)
    report.refresh_from_db()
    call_command("study_report", "jobs", "--output", str(tmp_path / "report.json"))
    assert json.loads((tmp_path / "report.json").read_text()) == report.result


def test_researcher_requests_from_the_study_page_and_reads_the_report(
    client, study, researcher, other_researcher, django_capture_on_commit_callbacks
):
    client.force_login(researcher)
    study_page = client.get(reverse("admin:studies_study_change", args=[study.pk])).content.decode()
    assert "Compute agreement report" in study_page
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(reverse("admin:reports_report_request", args=[study.pk]))
    report = Report.objects.get()
    assert response["Location"] == reverse("admin:reports_report_change", args=[report.pk])
    page = client.get(response["Location"]).content.decode()
    for table in ["categories-table", "groups-table", "distribution-table", "annotators-table"]:
        assert f'id="{table}"' in page
    assert page.count("<svg") >= 3 and "cdn" not in page.lower()
    download = client.get(reverse("admin:reports_report_json", args=[report.pk]))
    assert json.loads(download.content) == report.result
    assert "attachment" in download["Content-Disposition"]

    client.force_login(other_researcher)
    assert client.get(reverse("admin:reports_report_change", args=[report.pk])).status_code == 404
    assert client.get(reverse("admin:reports_report_json", args=[report.pk])).status_code == 404
    assert client.post(reverse("admin:reports_report_request", args=[study.pk])).status_code == 404
