"""A researcher in admin: create a Prolific listing (dry run, then Send), read its submissions,
reject one, message the workers; analysts and other teams reach none of it."""

from decimal import Decimal

import pytest
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.urls import reverse
from django.utils import timezone

from accounts.models import StudyMembership, Worker
from annotations.models import Assignment
from crowd import platforms, prolific
from crowd.models import LedgerEntry, Listing, Platform
from tests.crowd.prolific_server import ProlificServer
from tests.crowd.test_prolific import LONG_REASON, TOKEN
from tests.factories import make_span_study

pytestmark = pytest.mark.django_db


@pytest.fixture
def server(monkeypatch):
    with ProlificServer(token=TOKEN) as running:
        monkeypatch.setitem(
            platforms._factories, Platform.PROLIFIC,
            lambda sandbox: prolific.ProlificClient(base_url=running.url, token=TOKEN),
        )  # fmt: skip
        yield running


@pytest.fixture
def study(researcher):
    study = make_span_study(
        documents=3, researcher=researcher, title="Summaries <i>pilot</i>", annotators_per_document=3,
        config={"pay": {"reward": 1.0, "currency": "GBP", "target_hourly": 12.0}},
    )  # fmt: skip
    for n, seconds in enumerate((1200, 1500, 1800)):  # a pilot: median 25 minutes
        Assignment.objects.create(
            study=study, document=study.documents.first(), status=Assignment.Status.SUBMITTED,
            worker=Worker.objects.create(platform="prolific", external_id=f"PID-{n}"),
            active_seconds=seconds, submitted_at=timezone.now(),
        )  # fmt: skip
    return study


def logged_in(client, user):
    client.force_login(user)
    return client


def send_all(client, study):
    url = reverse("admin:crowd_ledgerentry_changelist")
    ids = [str(pk) for pk in LedgerEntry.objects.filter(study=study).values_list("pk", flat=True)]
    preview = client.post(url, {"action": "send_entries", ACTION_CHECKBOX_NAME: ids})
    assert "Dry run: nothing has been sent yet" in preview.content.decode()
    return client.post(url, {"action": "send_entries", ACTION_CHECKBOX_NAME: ids, "confirm": "send"})


def test_create_a_listing_from_the_pilot_then_send_it(client, researcher, study, server):
    client = logged_in(client, researcher)
    url = reverse("admin:crowd_listing_create")
    page = client.get(url, {"study": study.pk}).content.decode()
    assert "median active time of 3 submitted tasks" in page
    assert 'name="minutes" value="25"' in page  # the pilot's median, rounded up
    assert 'name="reward" value="5.00"' in page  # 12.00 an hour for 25 minutes
    assert 'name="places" value="9"' in page  # 3 documents x 3 annotators
    assert "<i>pilot</i>" not in page

    response = client.post(url, {"study": study.pk, "platform": "prolific", "name": "main", "places": 9,
                                 "reward": "5.00", "minutes": 25})  # fmt: skip
    assert response.status_code == 302 and server.requests == []
    entry = LedgerEntry.objects.get(action="create")
    assert entry.status == "planned" and entry.request["json"]["reward"] == 500

    send_all(client, study)
    listing = Listing.objects.get()
    assert listing.external_id in server.studies and listing.reward == Decimal("5.00")
    assert client.get(reverse("admin:crowd_listing_changelist")).status_code == 200


def test_prolific_has_no_sandbox_and_problems_are_shown_on_the_form(client, researcher, study, server):
    client = logged_in(client, researcher)
    url = reverse("admin:crowd_listing_create")
    page = client.post(url, {"study": study.pk, "platform": "prolific", "sandbox": "on", "name": "main",
                             "places": 9, "reward": "5.00", "minutes": 25}).content.decode()  # fmt: skip
    assert "Prolific has no sandbox: untick it" in page and LedgerEntry.objects.count() == 0
    study.config["pay"].pop("reward")
    study.config["pay"].pop("currency")
    study.config["pay"].pop("target_hourly")
    study.save()
    page = client.post(url, {"study": study.pk, "platform": "prolific", "name": "main", "places": 9,
                             "reward": "5.00", "minutes": 25}).content.decode()  # fmt: skip
    assert "set the study&#x27;s pay.currency" in page and LedgerEntry.objects.count() == 0


def test_submissions_page_and_a_rejection_planned_from_it(client, researcher, study, server):
    client = logged_in(client, researcher)
    client.post(reverse("admin:crowd_listing_create"), {"study": study.pk, "platform": "prolific",
                "name": "main", "places": 9, "reward": "5.00", "minutes": 25})  # fmt: skip
    send_all(client, study)
    listing = Listing.objects.get()
    submission_id = server.add_submission(listing.external_id, "PID-1")
    server.add_submission(listing.external_id, "PID-STRANGER")
    url = reverse("admin:crowd_listing_submissions", args=[listing.pk])
    page = client.get(url).content.decode()
    assert "2 submissions on the platform, 1 matched to work submitted here" in page
    assert "none found" in page

    short = client.post(url, {"submission": submission_id, "reason": "No.", "category": "OTHER"})
    assert "at least 100 characters" in short.content.decode()
    response = client.post(
        url, {"submission": submission_id, "reason": LONG_REASON, "category": "LOW_EFFORT"}
    )
    assert response.status_code == 302
    entry = LedgerEntry.objects.get(action="reject")
    assert entry.status == "planned" and entry.request["json"]["rejection_category"] == "LOW_EFFORT"
    assert server.submissions[submission_id]["status"] == "AWAITING REVIEW"  # planned, not sent


def test_messages_are_planned_for_the_studys_workers(client, researcher, study, server):
    client = logged_in(client, researcher)
    listing = Listing.objects.create(study=study, platform="prolific", external_id="abc123", currency="GBP")
    url = reverse("admin:crowd_listing_changelist")
    form = client.post(url, {"action": "notify_workers", ACTION_CHECKBOX_NAME: [listing.pk]})
    assert "Plan the messages" in form.content.decode()
    client.post(url, {"action": "notify_workers", ACTION_CHECKBOX_NAME: [listing.pk], "subject": "Retest",
                      "message": "Part two is open."})  # fmt: skip
    assert sorted(LedgerEntry.objects.filter(action="notify").values_list("target", flat=True)) == [
        "PID-0", "PID-1", "PID-2"
    ]  # fmt: skip
    assert server.messages == []


def test_analysts_and_other_teams_reach_no_listing_page(client, researcher, other_researcher, study, server):
    listing = Listing.objects.create(study=study, platform="prolific", external_id="abc123", currency="GBP")
    analyst = other_researcher
    StudyMembership.objects.create(study=study, user=analyst, role=StudyMembership.Role.ANALYST)
    client = logged_in(client, analyst)
    assert client.get(reverse("admin:crowd_listing_create")).status_code == 403
    response = client.post(reverse("admin:crowd_listing_create"), {"study": study.pk, "platform": "prolific",
                           "name": "main", "places": 9, "reward": "5.00", "minutes": 25})  # fmt: skip
    assert response.status_code == 403
    assert client.get(reverse("admin:crowd_listing_submissions", args=[listing.pk])).status_code == 404
    assert LedgerEntry.objects.count() == 0 and server.requests == []
