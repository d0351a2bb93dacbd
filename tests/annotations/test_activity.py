"""Active time: the page reports it every few seconds; the server credits no more than the clock allows."""

import json
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from annotations.models import Assignment
from annotations.services import assignment_record_activity
from annotations.services.task import ACTIVITY_SLACK_SECONDS, MAX_ACTIVITY_STEP
from tests.factories import AssignmentFactory, make_span_study

pytestmark = pytest.mark.django_db


def report(client, assignment, seconds):
    response = client.post(
        reverse("task-api-activity", args=[assignment.token]),
        json.dumps({"seconds": seconds}),
        content_type="application/json",
    )
    assert response.status_code == 200
    return response.json()["active_seconds"]


def rewind(assignment, seconds):
    """As if the last report had come `seconds` earlier (the clock moved on since)."""
    assignment.refresh_from_db()
    Assignment.objects.filter(pk=assignment.pk).update(
        activity_credited_to=assignment.activity_credited_to - timedelta(seconds=seconds),
        started_at=assignment.started_at - timedelta(seconds=seconds),
    )


def test_a_loop_of_reports_gains_seconds_not_hours(client, assignment, settings, clock):
    # 50 reports of 120 s at one instant would be 100 minutes; the clock allows the first one's share.
    first_report = settings.TASK_ACTIVITY_INTERVAL_SECONDS + ACTIVITY_SLACK_SECONDS
    for _ in range(50):
        report(client, assignment, 120)
    assignment.refresh_from_db()
    assert assignment.active_seconds == first_report

    clock.advance(2)  # 50 more reports over the next 2 s gain those 2 s
    for _ in range(50):
        report(client, assignment, 120)
    assignment.refresh_from_db()
    assert assignment.active_seconds == first_report + 2


def test_reports_every_15_seconds_are_credited_in_full(client, assignment, settings):
    settings.TASK_ACTIVITY_INTERVAL_SECONDS = 15
    assert report(client, assignment, 15) == 15  # the first, 15 s after the page opened
    for _ in range(20):
        rewind(assignment, 15)
        report(client, assignment, 15)
    assert report(client, assignment, 0) == 21 * 15


def test_early_and_late_reports_within_the_slack_are_credited_in_full():
    assignment = AssignmentFactory(document=make_span_study(documents=1, segments=1).documents.get())
    start = timezone.now()
    # Reports leave every 15 s; the network delays some by up to ACTIVITY_SLACK_SECONDS.
    arrivals = [15, 33, 45, 60, 79, 90, 105, 124, 135]
    for arrival in arrivals:
        assignment = assignment_record_activity(
            token=assignment.token, seconds=15, now=start + timedelta(seconds=arrival)
        )
    assert assignment.active_seconds == 15 * len(arrivals)


def test_after_a_pause_one_report_still_adds_at_most_the_cap(client, assignment, clock):
    report(client, assignment, 10)
    clock.advance(600)  # ten minutes without a report: a retried backlog
    assert report(client, assignment, 100000) == 10 + MAX_ACTIVITY_STEP
    # At the same instant only the slack for an early report is left.
    assert report(client, assignment, 100000) == 10 + MAX_ACTIVITY_STEP + ACTIVITY_SLACK_SECONDS


def test_the_first_report_may_cover_the_time_since_the_worker_started(client, assignment):
    Assignment.objects.filter(pk=assignment.pk).update(started_at=timezone.now() - timedelta(seconds=90))
    assert report(client, assignment, 80) == 80


def test_bad_seconds_are_400(client, assignment):
    url = reverse("task-api-activity", args=[assignment.token])
    for seconds in [-1, 1.5, "10", None]:
        response = client.post(url, json.dumps({"seconds": seconds}), content_type="application/json")
        assert response.status_code == 400
