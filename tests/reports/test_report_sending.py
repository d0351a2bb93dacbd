"""A report's job must reach the broker: refused at once when it cannot, sent again when it was lost.

The broker-down tests talk to a real unreachable Redis address (nothing
listens on port 1), so the failure is the one a dead broker gives. The last
tests need CI's PostgreSQL run with Redis: the re-sent message lands in a
real Redis queue, and a real worker picks up a report whose message was lost.
"""

import os
import uuid
from datetime import timedelta

import pytest
import redis
from django.conf import settings
from django.contrib.messages import get_messages
from django.db import connection
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from bundles.services import study_import_bundle
from falte_site.celery import app as celery_app
from reports.models import Report
from reports.services import ReportNotSent, report_request, reports_requeue_stale
from tests.reports.span_bundle import write_span_bundle
from tests.reports.test_worker import start_worker, stop, wait_for

DEAD_BROKER = "redis://127.0.0.1:1/0"


def _use_broker(url, *, eager):
    """Point the Celery app at `url`; its connection pools are keyed by URL, so drop them."""
    celery_app.conf.broker_url = celery_app.conf.broker_write_url = url
    celery_app.conf.task_always_eager = eager
    celery_app._pool = None
    celery_app.amqp._producer_pool = None


@pytest.fixture
def restore_celery():
    conf = celery_app.conf
    before = (conf.broker_url, conf.broker_write_url, conf.task_always_eager, conf.task_default_queue)
    yield
    _use_broker(before[0], eager=before[2])
    conf.broker_write_url, conf.task_default_queue = before[1], before[3]


@pytest.fixture
def broker_down(restore_celery):
    _use_broker(DEAD_BROKER, eager=False)


@pytest.fixture
def eager(restore_celery):
    """The job runs in-process as the message is sent (the embedded set-up)."""
    celery_app.conf.task_always_eager = True


@pytest.fixture
def study(tmp_path, researcher):
    return study_import_bundle(directory=write_span_bundle(tmp_path, slug="sending"), user=researcher).study


def lost_message(study, *, kind=Report.Kind.AGREEMENT, minutes=10):
    """A queued report whose message never reached a worker (sent `minutes` ago, then lost)."""
    sent = timezone.now() - timedelta(minutes=minutes)
    report = Report.objects.create(study=study, kind=kind, sent_at=sent)
    Report.objects.filter(pk=report.pk).update(created_at=sent)
    return report


@pytest.fixture
def back_off(monkeypatch):
    """The waits the broker clients (kombu's retries, redis-py's) ask for between tries, recorded
    instead of slept: how long a refusal takes by the code's own schedule, whatever the machine."""
    waits = []

    def wait(seconds):
        waits.append(seconds)
        assert sum(waits) < 60, f"still retrying after {len(waits)} waits ({sum(waits):.1f} s of back-off)"

    monkeypatch.setattr("kombu.utils.functional.sleep", wait)
    monkeypatch.setattr("redis.retry.sleep", wait)
    return waits


@pytest.mark.django_db(transaction=True)
def test_a_request_while_the_broker_is_down_is_a_503_and_stores_nothing(
    study, researcher, broker_down, back_off
):
    client = APIClient()
    client.force_authenticate(researcher)
    refused = client.post(reverse("report-list"), {"study": study.pk}, format="json")
    assert sum(back_off) < 5  # a few short tries, then the refusal
    assert refused.status_code == 503
    assert "job queue (Celery broker) is not reachable" in refused.json()["detail"]
    assert not Report.objects.exists(), "a row left behind would block every later report"

    _use_broker(settings.CELERY_BROKER_URL, eager=True)  # the broker is back
    accepted = client.post(reverse("report-list"), {"study": study.pk}, format="json")
    assert accepted.status_code == 202
    assert Report.objects.get().status == Report.Status.DONE


@pytest.mark.django_db(transaction=True)
def test_the_admin_button_says_the_broker_is_down_and_stores_nothing(client, study, researcher, broker_down):
    client.force_login(researcher)
    response = client.post(reverse("admin:reports_report_request", args=[study.pk]))
    assert response["Location"] == reverse("admin:studies_study_change", args=[study.pk])
    [message] = get_messages(response.wsgi_request)
    assert message.level_tag == "error" and "not reachable" in str(message)
    assert not Report.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_a_lost_message_resent_while_the_broker_is_down_stays_queued_for_the_next_pass(
    study, broker_down, clock
):
    report = lost_message(study)
    earlier = report.sent_at
    with pytest.raises(ReportNotSent):
        report_request(study=study)
    report.refresh_from_db()
    assert report.status == Report.Status.QUEUED and report.sent_at == earlier  # still due

    assert reports_requeue_stale() == [report.pk]  # the periodic pass logs the failure, raises nothing
    report.refresh_from_db()
    assert report.status == Report.Status.QUEUED
    assert reports_requeue_stale() == []  # tried again only REPORT_STALE_SECONDS later
    clock.advance(settings.REPORT_STALE_SECONDS + 1)
    assert reports_requeue_stale() == [report.pk]


@pytest.mark.django_db
def test_a_queued_report_whose_message_was_lost_is_sent_again(
    study, eager, django_capture_on_commit_callbacks, clock
):
    lost = lost_message(study)
    fresh = lost_message(study, kind="agreement-copy")  # queued long ago, sent again a moment ago
    Report.objects.filter(pk=fresh.pk).update(sent_at=timezone.now())
    with django_capture_on_commit_callbacks(execute=True) as sent:
        assert reports_requeue_stale() == [lost.pk]
    assert len(sent) == 1, "a freshly queued report is not sent twice"
    lost.refresh_from_db()
    assert lost.status == Report.Status.DONE and lost.attempts == 1, lost.error
    fresh.refresh_from_db()
    assert fresh.status == Report.Status.QUEUED and fresh.attempts == 0


@pytest.mark.django_db
def test_asking_again_for_a_study_with_a_lost_report_sends_it_again(
    study, eager, django_capture_on_commit_callbacks, clock
):
    lost = lost_message(study)
    with django_capture_on_commit_callbacks(execute=True):
        report, created = report_request(study=study)
    assert (report.pk, created) == (lost.pk, False)
    lost.refresh_from_db()
    assert lost.status == Report.Status.DONE and lost.attempts == 1

    waiting = lost_message(study)  # queued long ago, sent again a moment ago
    Report.objects.filter(pk=waiting.pk).update(sent_at=timezone.now())
    with django_capture_on_commit_callbacks(execute=True) as sent:
        assert report_request(study=study) == (waiting, False)
    assert sent == []


@pytest.mark.django_db
def test_the_report_page_sends_a_lost_report_again(
    client, study, researcher, eager, django_capture_on_commit_callbacks
):
    lost = lost_message(study)
    client.force_login(researcher)
    with django_capture_on_commit_callbacks(execute=True):
        client.get(reverse("admin:reports_report_change", args=[lost.pk]))
    lost.refresh_from_db()
    assert lost.status == Report.Status.DONE and lost.attempts == 1


@pytest.fixture
def redis_queue(restore_celery):
    """A fresh queue on CI's real Redis broker and PostgreSQL."""
    if connection.vendor != "postgresql" or not settings.CELERY_BROKER_URL.startswith("redis://"):
        if os.environ.get("EXPECT_BROKER") == "redis":
            pytest.fail("CI's PostgreSQL run must have DATABASE_URL on PostgreSQL and the broker on Redis")
        pytest.skip(
            "needs DATABASE_URL=postgres://... and CELERY_BROKER_URL=redis://... (CI's PostgreSQL run)"
        )
    queue = f"test-sending-{uuid.uuid4().hex[:8]}"
    _use_broker(settings.CELERY_BROKER_URL, eager=False)
    celery_app.conf.task_default_queue = queue
    broker = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    yield queue, broker
    broker.delete(queue)


@pytest.mark.django_db(transaction=True)
def test_a_lost_message_is_put_back_on_the_redis_queue_once(study, redis_queue, clock):
    queue, broker = redis_queue
    report = lost_message(study)
    assert broker.llen(queue) == 0
    assert reports_requeue_stale() == [report.pk]
    assert broker.llen(queue) == 1
    assert reports_requeue_stale() == []  # sent a moment ago: not again
    assert broker.llen(queue) == 1


@pytest.mark.django_db(transaction=True)
def test_a_starting_worker_computes_a_report_whose_message_was_lost(study, redis_queue):
    queue, broker = redis_queue
    report = lost_message(study)
    worker = start_worker(queue)
    try:
        assert wait_for(
            lambda: Report.objects.get(pk=report.pk).status == Report.Status.DONE, timeout=90, step=0.2
        )
    finally:
        stop(worker)
    report.refresh_from_db()
    assert report.attempts == 1 and report.result["study"] == "sending"
