"""A real `celery -A falte_site worker` against Redis and PostgreSQL (CI's PostgreSQL run).

The report is requested through the researcher's admin button, the worker
process picks the job from Redis, and a second test kills the worker
mid-job and shows the report still completes.
"""

import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest
from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connection, connections
from django.urls import reverse

from bundles.services import study_import_bundle
from falte_site.celery import app as celery_app
from protocols.span.models import ErrorAnnotation
from reports.models import Report, ReportPart
from reports.study_report import study_report_data
from tests.reports.span_bundle import write_span_bundle

pytestmark = pytest.mark.django_db(transaction=True)
ROOT = Path(settings.BASE_DIR)


@pytest.fixture
def broker_queue():
    """A fresh queue on the real broker; refuses to run eagerly or without PostgreSQL."""
    if connection.vendor != "postgresql" or not settings.CELERY_BROKER_URL:
        if os.environ.get("EXPECT_BROKER") == "redis":
            pytest.fail("CI's PostgreSQL run must have DATABASE_URL on PostgreSQL and the broker on Redis")
        pytest.skip(
            "needs DATABASE_URL=postgres://... and CELERY_BROKER_URL=redis://... (CI's PostgreSQL run)"
        )
    queue = f"test-reports-{uuid.uuid4().hex[:8]}"
    before = (celery_app.conf.task_always_eager, celery_app.conf.task_default_queue)
    celery_app.conf.task_always_eager = False
    celery_app.conf.task_default_queue = queue
    yield queue
    celery_app.conf.task_always_eager, celery_app.conf.task_default_queue = before


def start_worker(queue, concurrency=1, **extra_env):
    db = connection.settings_dict
    url = f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"
    env = dict(os.environ, DATABASE_URL=url, CELERY_TASK_DEFAULT_QUEUE=queue,
               DJANGO_SETTINGS_MODULE="falte_site.test_settings", **extra_env)  # fmt: skip
    return subprocess.Popen(
        [str(Path(sys.executable).parent / "celery"), "-A", "falte_site", "worker", "--loglevel", "INFO",
         "--concurrency", str(concurrency), "--queues", queue, "--without-gossip", "--without-mingle", "--without-heartbeat"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
    )  # fmt: skip


def stop(worker, sig=signal.SIGTERM):
    if worker.poll() is None:
        os.killpg(worker.pid, sig)
        worker.wait(timeout=30)


class Held:
    """A lock taken in a transaction of a connection of its own and kept until `release()`: a worker
    that needs what it locks waits there, so a test can kill it at a known point however fast it is."""

    def __init__(self, sql, params=()):
        self.connection = connections.create_connection(DEFAULT_DB_ALIAS)
        self.connection.set_autocommit(False)
        with self.connection.cursor() as cursor:
            cursor.execute(sql, params)

    def release(self):
        if self.connection is not None:
            self.connection.rollback()
            self.connection.close()
            self.connection = None


def spans_held():
    """The span table locked against reads too: a report job stops at its first read of the spans."""
    return Held(f"LOCK TABLE {ErrorAnnotation._meta.db_table} IN ACCESS EXCLUSIVE MODE")


def wait_for(predicate, timeout, step=0.05):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(step)
    return False


def request_report(client, study):
    response = client.post(reverse("admin:reports_report_request", args=[study.pk]))
    assert response.status_code == 302
    return Report.objects.get(study=study)


def finish_on_a_second_worker(client, report, queue, **extra_env):
    """Start a new worker and keep the report page open, as the researcher would: the page revives
    the job once the dead worker's heartbeat is older than REPORT_STALE_SECONDS; wait until done."""
    second = start_worker(queue, REPORT_STALE_SECONDS="3", **extra_env)
    try:

        def finished():
            client.get(reverse("admin:reports_report_change", args=[report.pk]))
            return Report.objects.get(pk=report.pk).status == Report.Status.DONE

        assert wait_for(finished, timeout=120, step=0.5)
    finally:
        stop(second)


def test_a_worker_process_computes_a_requested_report(client, researcher, tmp_path, broker_queue):
    study = study_import_bundle(directory=write_span_bundle(tmp_path, slug="worker"), user=researcher).study
    client.force_login(researcher)
    worker = start_worker(broker_queue)
    try:
        report = request_report(client, study)
        assert wait_for(
            lambda: Report.objects.get(pk=report.pk).status == Report.Status.DONE, timeout=90, step=0.2
        )
    finally:
        stop(worker)
    report.refresh_from_db()
    assert report.attempts == 1 and report.result["study"] == "worker"
    page = client.get(reverse("admin:reports_report_change", args=[report.pk])).content.decode()
    assert 'id="categories-table"' in page


def test_a_worker_killed_mid_job_does_not_leave_the_report_stuck(
    client, researcher, tmp_path, broker_queue, settings
):
    settings.REPORT_STALE_SECONDS = 3
    bundle = write_span_bundle(tmp_path, slug="killed", documents=300, segments=20, spans=12)
    study = study_import_bundle(directory=bundle, user=researcher).study
    client.force_login(researcher)
    spans = spans_held()  # the job starts, then waits at the spans: killed mid-job, however fast it is
    first = start_worker(broker_queue)
    try:
        report = request_report(client, study)
        assert wait_for(lambda: Report.objects.get(pk=report.pk).status == Report.Status.RUNNING, timeout=90)
    finally:
        stop(first, signal.SIGKILL)  # the whole worker, main process and child, mid-job
        spans.release()
    assert Report.objects.get(pk=report.pk).status == Report.Status.RUNNING

    finish_on_a_second_worker(client, report, broker_queue)
    report.refresh_from_db()
    assert report.attempts == 2, "the job must have been started twice: killed once, then finished"
    assert report.result["study"] == "killed"


def test_two_worker_processes_compute_a_report_in_parts_equal_to_one_pass(
    client, researcher, tmp_path, broker_queue, settings
):
    settings.REPORT_PART_DOCUMENTS = 10**9
    bundle = write_span_bundle(tmp_path, slug="parted", documents=40, segments=6, spans=5)
    study = study_import_bundle(directory=bundle, user=researcher).study
    expected = study_report_data(study)
    client.force_login(researcher)
    worker = start_worker(broker_queue, concurrency=2, REPORT_PART_DOCUMENTS="6")
    try:
        report = request_report(client, study)
        assert wait_for(
            lambda: Report.objects.get(pk=report.pk).status == Report.Status.DONE, timeout=90, step=0.2
        ), Report.objects.get(pk=report.pk).error
    finally:
        stop(worker)
    report.refresh_from_db()
    assert report.attempts == 1 and report.result == expected
    assert not ReportPart.objects.filter(report=report).exists()


def test_a_worker_killed_among_the_parts_does_not_leave_the_report_stuck(
    client, researcher, tmp_path, broker_queue, settings
):
    settings.REPORT_STALE_SECONDS = 3
    settings.REPORT_PART_DOCUMENTS = 10**9
    bundle = write_span_bundle(tmp_path, slug="killed-parts", documents=120, segments=10, spans=8)
    study = study_import_bundle(directory=bundle, user=researcher).study
    expected = study_report_data(study)
    client.force_login(researcher)
    # Killed once every part but the last is stored: the parts wait at the spans until the last
    # part's row is locked too, then run in order until the last waits to store its statistics.
    spans, last_part = spans_held(), None
    first = start_worker(broker_queue, REPORT_PART_DOCUMENTS="4")
    try:
        report = request_report(client, study)
        assert wait_for(lambda: ReportPart.objects.filter(report=report).exists(), timeout=90)
        parts = ReportPart.objects.filter(report=report)
        last = parts.order_by("number").last()
        last_part = Held("SELECT 1 FROM reports_reportpart WHERE id = %s FOR UPDATE", [last.pk])
        spans.release()
        assert wait_for(lambda: parts.filter(tallies__isnull=False).count() == parts.count() - 1, timeout=90)
    finally:
        stop(first, signal.SIGKILL)
        spans.release()
        if last_part is not None:
            last_part.release()
    assert Report.objects.get(pk=report.pk).status == Report.Status.RUNNING
    assert not ReportPart.objects.get(pk=last.pk).tallies

    finish_on_a_second_worker(client, report, broker_queue, REPORT_PART_DOCUMENTS="4")
    report.refresh_from_db()
    assert report.attempts == 2, "fanned out again as a second attempt once the first went stale"
    assert report.result == expected
