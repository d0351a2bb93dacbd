"""The Prolific client over real HTTP against a local server that speaks Prolific's documented API."""

import logging
from decimal import Decimal

import pytest
from django.core.exceptions import PermissionDenied
from django.utils import timezone

from accounts.models import StudyMembership, Worker
from annotations.models import Assignment
from annotations.services.stopping import study_stop
from crowd import bonuses, ledger, platforms, prolific
from crowd.models import LedgerEntry, Listing
from qualification.models import Qualification, QualificationResult
from tests.crowd.prolific_server import ProlificServer
from tests.factories import make_span_study

pytestmark = pytest.mark.django_db
TOKEN = "prolific-test-token-4f1c"
LONG_REASON = (
    "Your answers marked every sentence of both texts with the same error, and the attention check "
    "was missed: the instructions ask for errors only where a reader would notice one."
)


@pytest.fixture
def server():
    with ProlificServer(token=TOKEN) as running:
        yield running


@pytest.fixture
def client(server):
    return prolific.ProlificClient(base_url=server.url, token=TOKEN)


@pytest.fixture
def study(researcher):
    return make_span_study(
        documents=2, researcher=researcher, slug="snac-main", title="Coherence of summaries",
        config={"pay": {"reward": 5.0, "currency": "GBP", "target_hourly": 12.0,
                        "bonuses": {"qualification_passed": 2.5}}},
    )  # fmt: skip


def send(entries, user, client):
    return ledger.send(entries, user=user, client_for=lambda entry: client)


def submitted(study, pid, **fields):
    worker, _ = Worker.objects.get_or_create(platform="prolific", external_id=pid)
    return Assignment.objects.create(
        study=study, document=study.documents.first(), worker=worker, status=Assignment.Status.SUBMITTED,
        submitted_at=timezone.now(), active_seconds=600, **fields,
    )  # fmt: skip


def made_listing(study, researcher, client, places=10):
    entry, _ = client.plan_listing(study, user=researcher, name="main", places=places, reward=Decimal("5.00"),
                                   minutes=25)  # fmt: skip
    send([entry], researcher, client)
    entry.refresh_from_db()
    return entry, entry.listing


def test_a_listing_is_a_draft_study_with_the_join_link_reward_and_lists(
    study, researcher, other_researcher, client, server
):
    # Approved in the qualification the study requires: the allow-list; a pilot the researcher
    # runs: the block-list; another team's study of the same slug excludes no one.
    round_study = make_span_study(documents=1, researcher=researcher, slug="snac-qual")
    qualification = Qualification.objects.create(slug="snac", title="SNaC", study=round_study)
    qualification.required_by.add(study)
    for pid, status in (("PID-OK", "approved"), ("PID-NO", "rejected")):
        QualificationResult.objects.create(
            qualification=qualification, worker=Worker.objects.create(platform="prolific", external_id=pid),
            status=status,
        )  # fmt: skip
    pilot = make_span_study(documents=1, researcher=researcher, slug="pilot-2024")
    submitted(pilot, "PID-PILOT")
    foreign = make_span_study(documents=1, researcher=other_researcher, slug="their-study")
    submitted(foreign, "PID-THEIRS")
    study.config["workers"] = {"exclude_studies": ["pilot-2024", "their-study"]}
    study.save()

    entry, created = client.plan_listing(study, user=researcher, name="main", places=30, reward=Decimal("5.00"),
                                         minutes=25)  # fmt: skip
    assert created and entry.status == LedgerEntry.Status.PLANNED
    assert server.requests == []  # planning sends nothing: the preview is the row
    body = entry.request["json"]
    assert entry.request["method"] == "POST" and entry.request["path"] == "/api/v1/studies/"
    assert body["external_study_url"] == (
        f"http://127.0.0.1:8000/join/{study.join_key}/"
        "?PROLIFIC_PID={{%PROLIFIC_PID%}}&STUDY_ID={{%STUDY_ID%}}&SESSION_ID={{%SESSION_ID%}}"
    )
    assert body["reward"] == 500 and body["estimated_completion_time"] == 25
    assert body["total_available_places"] == 30
    assert body["filters"] == [
        {"filter_id": "custom_allowlist", "selected_values": ["PID-OK"]},
        {"filter_id": "custom_blocklist", "selected_values": ["PID-PILOT"]},
    ]

    assert send([entry], researcher, client)["sent"] == 1
    assert send([entry], researcher, client)["skipped"] == 1
    assert len(server.calls("POST", "/api/v1/studies/")) == 1
    listing = Listing.objects.get()
    prolific_study = server.studies[listing.external_id]
    assert listing.study == study and listing.status == "UNPUBLISHED" and listing.currency == "GBP"
    assert listing.reward == Decimal("5.00") and listing.places == 30
    study.refresh_from_db()
    code = prolific_study["completion_codes"][0]["code"]
    assert (
        study.config["prolific_completion_url"] == f"https://app.prolific.com/submissions/complete?cc={code}"
    )


def test_the_token_is_sent_as_prolific_asks_and_a_wrong_one_is_a_failed_row(study, researcher, server):
    wrong = prolific.ProlificClient(base_url=server.url, token="not-the-token")
    entry, _ = wrong.plan_listing(
        study, user=researcher, name="main", places=5, reward=Decimal(5), minutes=20
    )
    assert send([entry], researcher, wrong)["failed"] == 1
    entry.refresh_from_db()
    assert entry.status == LedgerEntry.Status.FAILED
    assert entry.error == "Prolific answered 401: Authentication failed Invalid token."
    assert "not-the-token" not in str(entry.request) + str(entry.response) + entry.error
    assert Listing.objects.count() == 0


def test_publish_transitions_the_draft(study, researcher, client, server):
    _, listing = made_listing(study, researcher, client)
    entry, _ = client.plan_publish(listing, user=researcher)
    send([entry], researcher, client)
    listing.refresh_from_db()
    assert server.studies[listing.external_id]["status"] == "ACTIVE" and listing.status == "ACTIVE"


def test_approvals_only_for_work_submitted_here_over_several_pages(
    study, researcher, client, server, monkeypatch
):
    monkeypatch.setattr(prolific, "PAGE_SIZE", 2)
    _, listing = made_listing(study, researcher, client)
    done = submitted(study, "PID-A")
    submitted(study, "PID-B")
    Assignment.objects.create(  # PID-C started here and is still at it
        study=study, document=study.documents.last(), worker=Worker.objects.create(platform="prolific",
        external_id="PID-C"), status=Assignment.Status.IN_PROGRESS,
    )  # fmt: skip
    ids = {
        pid: server.add_submission(listing.external_id, pid) for pid in ("PID-A", "PID-B", "PID-C", "PID-X")
    }
    server.add_submission(listing.external_id, "PID-OLD", status="APPROVED")

    planned, unmatched = client.plan_approvals(listing, user=researcher)
    assert len(server.calls("GET", "/api/v1/submissions/")) == 3  # 5 submissions, 2 a page
    assert sorted(entry.target for entry, _ in planned) == sorted([ids["PID-A"], ids["PID-B"]])
    assert sorted(s.worker_id for s in unmatched) == ["PID-C", "PID-X"]
    assert next(entry for entry, _ in planned if entry.target == ids["PID-A"]).assignment == done

    again, _ = client.plan_approvals(listing, user=researcher)
    assert {e.pk for e, _ in again} == {e.pk for e, _ in planned} and LedgerEntry.objects.filter(
        action="approve"
    ).count() == 2
    send([entry for entry, _ in planned], researcher, client)
    assert server.submissions[ids["PID-A"]]["status"] == "APPROVED"
    assert server.submissions[ids["PID-X"]]["status"] == "AWAITING REVIEW"


def test_a_rejection_needs_prolifics_long_message_and_a_category(study, researcher, client, server):
    _, listing = made_listing(study, researcher, client)
    submitted(study, "PID-R")
    server.add_submission(listing.external_id, "PID-R")
    [submission] = client.submissions(listing)
    with pytest.raises(ValueError, match="at least 100 characters"):
        client.plan_rejection(listing, submission, user=researcher, reason="Too fast.")
    with pytest.raises(ValueError, match="category"):
        client.plan_rejection(listing, submission, user=researcher, reason=LONG_REASON, category="RUDE")
    entry, _ = client.plan_rejection(listing, submission, user=researcher, reason=LONG_REASON,
                                     category="FAILED_CHECK")  # fmt: skip
    send([entry], researcher, client)
    assert server.submissions[submission.id]["status"] == "REJECTED"
    assert server.calls("POST", f"/api/v1/submissions/{submission.id}/")[-1][2] == {
        "action": "REJECT", "message": LONG_REASON, "rejection_category": "FAILED_CHECK",
    }  # fmt: skip


def test_pay_rule_bonuses_are_paid_once_however_often_send_is_pressed(study, researcher, client, server):
    _, listing = made_listing(study, researcher, client)
    qualification = Qualification.objects.create(slug="q", title="Q", study=study)
    for pid in ("PID-1", "PID-2"):
        worker = Worker.objects.create(platform="prolific", external_id=pid)
        QualificationResult.objects.create(qualification=qualification, worker=worker, status="approved")
        server.add_submission(listing.external_id, pid)

    rows = bonuses.plan_bonuses(listing, user=researcher, client=client)
    assert [created for _, created in rows] == [True, True]
    assert [created for _, created in bonuses.plan_bonuses(listing, user=researcher, client=client)] == [
        False
    ] * 2
    entries = [entry for entry, _ in rows]
    assert ledger.preview(entries)["money"] == {"GBP": Decimal("5.00")}
    assert send(entries, researcher, client)["sent"] == 2
    assert send(list(LedgerEntry.objects.filter(action="bonus")), researcher, client)["skipped"] == 2
    assert sorted(server.payments) == [("PID-1", "2.50"), ("PID-2", "2.50")]
    entry = LedgerEntry.objects.filter(action="bonus").first()
    assert entry.response["setup"]["amount"] == 250 and entry.response["pay"] == {}


def test_a_top_up_that_comes_to_a_fraction_of_a_cent_is_paid_rounded_half_up_to_the_cent(
    researcher, client, server
):
    # 12.25 an hour for half an hour is 6.125, so 6.13 is fair; less the 5.00 reward: 1.13 to top up.
    study = make_span_study(
        documents=1, researcher=researcher, slug="top-up",
        config={"pay": {"reward": 5.0, "currency": "GBP", "target_hourly": 12.25,
                        "bonuses": {"top_up_to_target": True}}},
    )  # fmt: skip
    _, listing = made_listing(study, researcher, client)
    worker = Worker.objects.create(platform="prolific", external_id="PID-1")
    Assignment.objects.create(
        study=study, document=study.documents.get(), worker=worker, status=Assignment.Status.SUBMITTED,
        submitted_at=timezone.now(), active_seconds=1800,
    )  # fmt: skip
    server.add_submission(listing.external_id, "PID-1")

    [(entry, _)] = bonuses.plan_bonuses(listing, user=researcher, client=client)
    assert entry.amount == Decimal("1.13") and entry.reason == bonuses.TOP_UP_REASON
    assert send([entry], researcher, client)["sent"] == 1
    assert server.payments == [("PID-1", "1.13")]
    assert LedgerEntry.objects.get(action="bonus").amount == Decimal("1.13")


def test_a_failed_payment_keeps_prolifics_answer_and_can_be_sent_again(study, researcher, client, server):
    _, listing = made_listing(study, researcher, client)
    server.add_submission(listing.external_id, "PID-1")
    entry, _ = client.plan_bonus(listing, Worker.objects.create(platform="prolific", external_id="PID-1"),
                                 user=researcher, amount=Decimal("1.20"), reason="Thanks", rule="manual")  # fmt: skip
    server.fail_next.append(
        (503, {"error": {"status": 503, "title": "Service unavailable", "detail": "later"}})
    )
    assert send([entry], researcher, client)["failed"] == 1
    entry.refresh_from_db()
    assert entry.error == "Prolific answered 503: Service unavailable later" and server.payments == []
    assert send([entry], researcher, client)["sent"] == 1
    assert server.payments == [("PID-1", "1.20")]


def test_messages_one_row_per_worker_and_text(study, researcher, client, server):
    _, listing = made_listing(study, researcher, client)
    workers = [Worker.objects.create(platform="prolific", external_id=pid) for pid in ("PID-1", "PID-2")]
    rows = client.plan_notify(listing, workers, user=researcher, subject="Retest", message="Part 2 is open.")
    assert len(rows) == 2 and client.plan_notify(listing, workers, user=researcher, subject="Retest",
                                                 message="Part 2 is open.")[0][1] is False  # fmt: skip
    send([entry for entry, _ in rows], researcher, client)
    assert [m["recipient_id"] for m in server.messages] == ["PID-1", "PID-2"]
    assert server.messages[0]["body"] == "Retest\n\nPart 2 is open."


def test_analysts_may_not_plan_anything(study, researcher, other_researcher, client, server):
    StudyMembership.objects.create(study=study, user=other_researcher, role=StudyMembership.Role.ANALYST)
    with pytest.raises(PermissionDenied):
        client.plan_listing(
            study, user=other_researcher, name="main", places=5, reward=Decimal(5), minutes=20
        )
    assert LedgerEntry.objects.count() == 0 and server.requests == []


def test_no_token_no_client_and_the_token_is_never_logged(
    study, researcher, server, monkeypatch, settings, caplog
):
    monkeypatch.delenv(prolific.TOKEN_ENV, raising=False)
    with pytest.raises(LookupError, match="PROLIFIC_API_TOKEN"):
        prolific.client_from_env()
    monkeypatch.setenv(prolific.TOKEN_ENV, TOKEN)
    settings.PROLIFIC_API_URL = server.url
    client = prolific.client_from_env()
    caplog.set_level(logging.DEBUG)
    entry, _ = client.plan_listing(
        study, user=researcher, name="main", places=5, reward=Decimal(5), minutes=20
    )
    send([entry], researcher, client)
    assert Listing.objects.count() == 1
    assert TOKEN not in caplog.text and TOKEN not in str(list(LedgerEntry.objects.values()))


def test_an_unreachable_prolific_is_a_failed_row(study, researcher):
    client = prolific.ProlificClient(base_url="http://127.0.0.1:9", token=TOKEN)
    entry, _ = client.plan_listing(
        study, user=researcher, name="main", places=5, reward=Decimal(5), minutes=20
    )
    assert send([entry], researcher, client)["failed"] == 1
    entry.refresh_from_db()
    assert entry.error.startswith("Prolific could not be reached")


def test_a_next_page_on_another_host_is_not_followed(study, researcher, client, server, monkeypatch):
    _, listing = made_listing(study, researcher, client)
    server.fail_next.append(
        (200, {"results": [], "_links": {"next": {"href": "https://elsewhere.example/x"}}})
    )
    with pytest.raises(ledger.PlatformError, match="another host"):
        client.submissions(listing)


def test_a_submission_with_a_rejection_planned_is_not_approved(study, researcher, client, server):
    _, listing = made_listing(study, researcher, client)
    for pid in ("PID-A", "PID-B"):
        submitted(study, pid)
        server.add_submission(listing.external_id, pid)
    rejected = next(s for s in client.submissions(listing) if s.worker_id == "PID-B")
    client.plan_rejection(listing, rejected, user=researcher, reason=LONG_REASON)
    planned, unmatched = client.plan_approvals(listing, user=researcher)
    assert [entry.worker.external_id for entry, _ in planned] == ["PID-A"] and unmatched == []


def test_a_worker_who_failed_a_check_is_held_for_the_researcher_not_approved(
    study, researcher, client, server
):
    _, listing = made_listing(study, researcher, client)
    for pid in ("PID-A", "PID-F"):
        submitted(study, pid)
        server.add_submission(listing.external_id, pid)
    # PID-F also did a quality check (an attention document) and missed its injected error.
    Assignment.objects.filter(worker__external_id="PID-F").update(flagged=True)
    planned, held = client.plan_approvals(listing, user=researcher)
    assert [entry.worker.external_id for entry, _ in planned] == ["PID-A"]
    assert [s.worker_id for s in held] == ["PID-F"] and held[0].assignment is not None


def test_a_study_stopped_by_its_rule_stops_its_listing_once(
    study, researcher, client, server, monkeypatch, django_capture_on_commit_callbacks
):
    entry, listing = made_listing(study, researcher, client)
    send([client.plan_publish(listing, user=researcher)[0]], researcher, client)
    monkeypatch.setitem(platforms._factories, "prolific", lambda sandbox: client)
    with django_capture_on_commit_callbacks(execute=True):
        study_stop(
            study=study, rule="settled", note="Stopped after 9 ratings: every pair's order is settled."
        )
    stop = LedgerEntry.objects.get(study=study, action=LedgerEntry.Action.STOP)
    assert stop.status == LedgerEntry.Status.SENT and stop.planned_by is None
    assert stop.request == {"method": "POST", "path": f"/api/v1/studies/{listing.external_id}/transition/",
                            "json": {"action": "STOP"}}  # fmt: skip
    listing.refresh_from_db()
    assert listing.status == "AWAITING REVIEW" == server.studies[listing.external_id]["status"]
    with django_capture_on_commit_callbacks(execute=True):  # stopped again: nothing more is sent
        study_stop(study=study, rule="settled", note="again")
    assert len(server.calls("POST", f"/api/v1/studies/{listing.external_id}/transition/")) == 2
