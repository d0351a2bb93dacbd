"""Mechanical Turk through boto3, answered by botocore's Stubber: no call leaves the machine.

The Stubber checks every call's name and arguments against what the test
expects and raises on any call it was not told of.
"""

from datetime import UTC, datetime
from decimal import Decimal

import boto3
import pytest
from botocore.stub import Stubber
from django.core.exceptions import PermissionDenied
from django.utils import timezone

from accounts.models import StudyMembership, Worker
from annotations.models import Assignment
from annotations.services.stopping import study_stop
from crowd import ledger, platforms
from crowd.models import LedgerEntry, Listing
from crowd.mturk import ENDPOINTS, MTurkClient, client_from_env, request_token
from qualification.models import Qualification, QualificationResult
from studies.config import config_problems
from tests.factories import AssignmentFactory, WorkerFactory, make_span_study

pytestmark = pytest.mark.django_db

TANG = {"min_approval_pct": 98, "min_approved_hits": 500, "locales": ["AU", "CA", "NZ", "GB", "US"],
        "keywords": ["summaries", "annotation"], "lifetime_days": 5, "auto_approve_days": 2}  # fmt: skip
HIT_ID = "3HITSNACBOOKS"


@pytest.fixture(autouse=True)
def aws_env(monkeypatch, tmp_path, settings):
    for name, value in {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing",
                        "AWS_CONFIG_FILE": str(tmp_path / "none"),
                        "AWS_SHARED_CREDENTIALS_FILE": str(tmp_path / "none")}.items():  # fmt: skip
        monkeypatch.setenv(name, value)
    settings.SITE_URL = "https://annotate.example.org/a&b/"


@pytest.fixture
def stub():
    boto = boto3.client("mturk", region_name="us-east-1", endpoint_url=ENDPOINTS[True])
    with Stubber(boto) as stubber:
        yield stubber
        stubber.assert_no_pending_responses()


@pytest.fixture
def mturk(stub):
    return MTurkClient(stub.client, sandbox=True)


@pytest.fixture
def study(researcher):
    config = {"pay": {"reward": 3, "currency": "USD"}, "mturk": TANG}
    return make_span_study(documents=2, researcher=researcher, config=config, title="Coherence of book summaries",
                           instructions="Mark every error in the summary.\n\nMore below.")  # fmt: skip


@pytest.fixture
def listing(study, researcher):
    return Listing.objects.create(study=study, platform="mturk", sandbox=True, external_id=HIT_ID, places=3,
                                  reward=Decimal("3.00"), currency="USD", created_by=researcher)  # fmt: skip


def send(entries, user, client):
    return ledger.send(entries, user=user, client_for=lambda entry: client)


def submitted(study, worker_id, assignment_id, document=0):
    worker, _ = Worker.objects.get_or_create(platform="mturk", external_id=worker_id)
    return AssignmentFactory(study=study, document=study.documents.all()[document], worker=worker,
                             status=Assignment.Status.SUBMITTED, submitted_at=timezone.now(),
                             platform_ids={"assignmentId": assignment_id, "hitId": HIT_ID})  # fmt: skip


def mturk_assignment(assignment_id, worker_id, status="Submitted"):
    return {"AssignmentId": assignment_id, "WorkerId": worker_id, "HITId": HIT_ID, "AssignmentStatus": status,
            "SubmitTime": datetime(2025, 5, 1, tzinfo=UTC)}  # fmt: skip


def expect_assignments(stub, *pages):
    """Stub list_assignments_for_hit answering `pages` in turn, linked by NextToken."""
    for number, page in enumerate(pages):
        params = {
            "HITId": HIT_ID,
            "MaxResults": 100,
            "AssignmentStatuses": ["Submitted", "Approved", "Rejected"],
        }
        if number:
            params["NextToken"] = f"page-{number}"
        answer = {"Assignments": page, "NumResults": len(page)}
        if number < len(pages) - 1:
            answer["NextToken"] = f"page-{number + 1}"
        stub.add_response("list_assignments_for_hit", answer, params)


def test_the_hit_is_built_from_the_config_and_sending_it_makes_the_listing(study, researcher, mturk, stub):
    entry, created = mturk.plan_listing(study, user=researcher, name="main", places=3, reward=Decimal("2.5"),
                                        minutes=20)  # fmt: skip
    request = entry.request
    assert (
        created and entry.action == LedgerEntry.Action.CREATE and entry.status == LedgerEntry.Status.PLANNED
    )
    assert request["Reward"] == "2.50" and entry.amount == Decimal("7.50") and entry.currency == "USD"
    assert request["MaxAssignments"] == 3 and request["Title"] == "Coherence of book summaries"
    assert request["Description"] == "Mark every error in the summary."
    assert request["Keywords"] == "summaries, annotation"
    assert request["LifetimeInSeconds"] == 5 * 86400 and request["AutoApprovalDelayInSeconds"] == 2 * 86400
    assert request["AssignmentDurationInSeconds"] == 3600
    link = f"https://annotate.example.org/a&amp;b/join/{study.join_key}/"
    assert request["Question"] == (
        '<ExternalQuestion xmlns="http://mechanicalturk.amazonaws.com/AWSMechanicalTurkDataSchemas/2006-07-14/'
        f'ExternalQuestion.xsd"><ExternalURL>{link}</ExternalURL><FrameHeight>0</FrameHeight></ExternalQuestion>'
    )
    guarded = {"ActionsGuarded": "DiscoverPreviewAndAccept"}
    assert request["QualificationRequirements"] == [
        {"QualificationTypeId": "000000000000000000L0", "Comparator": "GreaterThanOrEqualTo",
         "IntegerValues": [98], **guarded},
        {"QualificationTypeId": "00000000000000000040", "Comparator": "GreaterThanOrEqualTo",
         "IntegerValues": [500], **guarded},
        {"QualificationTypeId": "00000000000000000071", "Comparator": "In",
         "LocaleValues": [{"Country": c} for c in ["AU", "CA", "NZ", "GB", "US"]], **guarded},
    ]  # fmt: skip
    assert (
        request["UniqueRequestToken"] == request_token(entry.key) and len(request["UniqueRequestToken"]) <= 64
    )

    hit = {"HITId": HIT_ID, "Title": request["Title"], "MaxAssignments": 3, "Reward": "2.50",
           "HITStatus": "Assignable", "CreationTime": datetime(2025, 5, 1, 9, tzinfo=UTC)}  # fmt: skip
    stub.add_response("create_hit", {"HIT": hit}, request)
    assert send([entry], researcher, mturk)["sent"] == 1
    assert send([entry], researcher, mturk)["skipped"] == 1  # the Stubber would raise on a second create_hit
    entry.refresh_from_db()
    made = Listing.objects.get()
    assert entry.listing == made and entry.response["HIT"]["CreationTime"] == "2025-05-01T09:00:00+00:00"
    assert (made.external_id, made.sandbox, made.status, made.places) == (HIT_ID, True, "Assignable", 3)
    assert (made.reward, made.currency, made.created_by, made.study) == (
        Decimal("2.50"),
        "USD",
        researcher,
        study,
    )

    stub.add_response("create_hit", {"HIT": hit}, request)  # the same HIT answered again: no second listing
    mturk.perform(entry)
    assert Listing.objects.count() == 1


def test_a_hit_is_refused_in_another_currency_or_on_a_plain_http_site(study, researcher, mturk, settings):
    study.config["pay"]["currency"] = "GBP"
    study.save()
    with pytest.raises(ValueError, match="USD"):
        mturk.plan_listing(study, user=researcher, name="main", places=3, reward=2, minutes=20)
    study.config["pay"]["currency"] = "USD"
    study.save()
    settings.SITE_URL = "http://annotate.example.org"
    with pytest.raises(ValueError, match="https"):
        mturk.plan_listing(study, user=researcher, name="main", places=3, reward=2, minutes=20)
    with pytest.raises(ValueError, match="live"):
        mturk.plan_publish(None, user=researcher)
    assert not LedgerEntry.objects.exists()


def test_require_qualification_adds_our_type_once_a_round_has_granted_it(study, researcher, mturk):
    round_study = make_span_study(documents=1, researcher=researcher)
    Qualification.objects.create(slug="snac-q", title="SNaC", study=round_study).required_by.add(study)
    study.config["mturk"] = {"require_qualification": True}
    study.save()
    with pytest.raises(ValueError, match="granted"):
        mturk.plan_listing(study, user=researcher, name="main", places=3, reward=2, minutes=20)
    Listing.objects.create(study=round_study, platform="mturk", sandbox=True, external_id="3QUALHIT",
                           qualification_type="3QTYPE")  # fmt: skip
    entry, _ = mturk.plan_listing(study, user=researcher, name="main", places=3, reward=2, minutes=20)
    assert entry.request["QualificationRequirements"] == [
        {
            "QualificationTypeId": "3QTYPE",
            "Comparator": "Exists",
            "ActionsGuarded": "DiscoverPreviewAndAccept",
        }
    ]


def test_submissions_are_read_page_by_page_and_matched_to_our_work(study, listing, mturk, stub):
    alice = submitted(study, "A1ALICE", "3ASGALICE", document=0)
    submitted(study, "A1ALICE", "3ASGLATER", document=1)  # her later work, in another HIT
    bob = submitted(study, "A2BOB", "3ASGBOB")
    expect_assignments(
        stub,
        [mturk_assignment("3ASGALICE", "A1ALICE"), mturk_assignment("3ASGBOB", "A2BOB", "Approved")],
        [mturk_assignment("3ASGEVE", "A3EVE")],
    )
    found = {s.id: s for s in mturk.submissions(listing)}
    assert set(found) == {"3ASGALICE", "3ASGBOB", "3ASGEVE"}
    assert found["3ASGALICE"].assignment == alice and found["3ASGALICE"].awaiting_review
    assert found["3ASGBOB"].assignment == bob and not found["3ASGBOB"].awaiting_review
    assert found["3ASGEVE"].assignment is None and found["3ASGEVE"].worker_id == "A3EVE"


def test_only_matched_work_awaiting_review_is_approved(study, listing, researcher, mturk, stub):
    alice = submitted(study, "A1ALICE", "3ASGALICE")
    submitted(study, "A2BOB", "3ASGBOB", document=1)
    page = [mturk_assignment("3ASGALICE", "A1ALICE"), mturk_assignment("3ASGBOB", "A2BOB", "Approved"),
            mturk_assignment("3ASGEVE", "A3EVE")]  # fmt: skip
    expect_assignments(stub, page)
    planned, unmatched = mturk.plan_approvals(listing, user=researcher)
    assert [s.id for s in unmatched] == ["3ASGEVE"]
    [(entry, created)] = planned
    assert created and entry.assignment == alice and entry.request == {"AssignmentId": "3ASGALICE"}
    assert entry.key == "mturk:sandbox:approve:3ASGALICE"
    expect_assignments(stub, page)
    assert mturk.plan_approvals(listing, user=researcher)[0] == [(entry, False)]
    stub.add_response("approve_assignment", {}, {"AssignmentId": "3ASGALICE"})
    assert send([entry], researcher, mturk)["sent"] == 1


def test_a_rejection_needs_a_reason_and_sends_it(study, listing, researcher, mturk, stub):
    expect_assignments(stub, [mturk_assignment("3ASGEVE", "A3EVE")])
    [eve] = mturk.submissions(listing)
    with pytest.raises(ValueError, match="reason"):
        mturk.plan_rejection(listing, eve, user=researcher, reason="  ")
    entry, _ = mturk.plan_rejection(listing, eve, user=researcher, reason="No work was submitted here.")
    assert entry.request == {"AssignmentId": "3ASGEVE", "RequesterFeedback": "No work was submitted here."}
    stub.add_response("reject_assignment", {}, entry.request)
    assert send([entry], researcher, mturk)["sent"] == 1


def test_a_bonus_carries_its_token_and_is_planned_once(study, listing, researcher, mturk, stub):
    alice = submitted(study, "A1ALICE", "3ASGALICE")
    reason = "A top-up to the hourly rate."
    plan = {"user": researcher, "amount": Decimal("1.5"), "reason": reason, "rule": "top_up"}
    entry, created = mturk.plan_bonus(listing, alice.worker, **plan)
    again, created_again = mturk.plan_bonus(listing, alice.worker, **{**plan, "amount": Decimal("9")})
    assert created and not created_again and again.pk == entry.pk and again.amount == Decimal("1.50")
    assert entry.key == f"mturk:sandbox:bonus:{HIT_ID}:top_up:A1ALICE"
    assert entry.request == {"WorkerId": "A1ALICE", "BonusAmount": "1.50", "AssignmentId": "3ASGALICE",
                             "Reason": "A top-up to the hourly rate.", "UniqueRequestToken": request_token(entry.key)}  # fmt: skip
    stub.add_response("send_bonus", {}, entry.request)
    assert send([entry, again], researcher, mturk) == {"sent": 1, "failed": 0, "skipped": 1}
    with pytest.raises(ValueError, match="no submitted"):
        mturk.plan_bonus(listing, WorkerFactory(platform="mturk", external_id="A9NOBODY"), **plan)


def test_a_refused_bonus_is_a_failed_row_with_the_platforms_message(study, listing, researcher, mturk, stub):
    alice = submitted(study, "A1ALICE", "3ASGALICE")
    entry, _ = mturk.plan_bonus(
        listing, alice.worker, user=researcher, amount=2, reason="Thanks", rule="extra"
    )
    stub.add_client_error("send_bonus", "RequestError", "This Requester has insufficient funds.", 400,
                          expected_params=entry.request)  # fmt: skip
    assert send([entry], researcher, mturk)["failed"] == 1
    entry.refresh_from_db()
    assert entry.status == LedgerEntry.Status.FAILED and "insufficient funds" in entry.error
    assert entry.response["Error"]["Code"] == "RequestError"


def test_the_qualification_type_is_made_once_for_two_workers(researcher, mturk, stub):
    round_study = make_span_study(documents=1, researcher=researcher, slug="snac-q")
    qualification = Qualification.objects.create(slug="snac-q", title="SNaC", study=round_study)
    hit = Listing.objects.create(study=round_study, platform="mturk", sandbox=True, external_id="3QUALHIT")
    workers = [WorkerFactory(platform="mturk", external_id=w) for w in ("A1ALICE", "A2BOB", "A3EVE")]
    for worker, status in zip(workers, ["approved", "approved", "rejected"], strict=True):
        QualificationResult.objects.create(qualification=qualification, worker=worker, status=status)
    with pytest.raises(ValueError, match="not passed"):
        mturk.plan_grant(hit, workers[2], user=researcher)
    entries = [mturk.plan_grant(hit, worker, user=researcher)[0] for worker in workers[:2]]
    kind = {"Name": "snac-q qualified", "QualificationTypeStatus": "Active",
            "Description": f"Passed the qualification round of {round_study.title}."}  # fmt: skip
    stub.add_response(
        "create_qualification_type", {"QualificationType": {"QualificationTypeId": "3QTYPE"}}, kind
    )
    for worker in ("A1ALICE", "A2BOB"):
        stub.add_response("associate_qualification_with_worker", {}, {"QualificationTypeId": "3QTYPE",
                          "WorkerId": worker, "IntegerValue": 1, "SendNotification": True})  # fmt: skip
    assert send(entries, researcher, mturk)["sent"] == 2
    hit.refresh_from_db()
    assert hit.qualification_type == "3QTYPE"


def test_a_message_to_many_workers_is_split_by_a_hundred(study, listing, researcher, mturk, stub):
    workers = [WorkerFactory(platform="mturk", external_id=f"A{n:04d}") for n in range(205)]
    rows = mturk.plan_notify(listing, workers, user=researcher, subject="Retest open", message="Come back!")
    assert [len(entry.request["WorkerIds"]) for entry, _ in rows] == [100, 100, 5]
    assert mturk.plan_notify(
        listing, workers, user=researcher, subject="Retest open", message="Come back!"
    ) == [(entry, False) for entry, _ in rows]
    for entry, _ in rows:
        stub.add_response("notify_workers", {"NotifyWorkersFailureStatuses": []}, entry.request)
    assert send([entry for entry, _ in rows], researcher, mturk)["sent"] == 3


def test_an_analyst_cannot_plan(study, listing, other_researcher, mturk):
    StudyMembership.objects.create(study=study, user=other_researcher, role=StudyMembership.Role.ANALYST)
    alice = submitted(study, "A1ALICE", "3ASGALICE")
    with pytest.raises(PermissionDenied):
        mturk.plan_listing(study, user=other_researcher, name="main", places=3, reward=2, minutes=20)
    with pytest.raises(PermissionDenied):
        mturk.plan_bonus(listing, alice.worker, user=other_researcher, amount=1, reason="Thanks", rule="x")
    assert not LedgerEntry.objects.exists()


def test_a_live_row_is_not_sent_through_the_sandbox(study, listing, researcher, mturk):
    live = MTurkClient(None, sandbox=False)
    alice = submitted(study, "A1ALICE", "3ASGALICE")
    entry, _ = live.plan_bonus(listing, alice.worker, user=researcher, amount=1, reason="Thanks", rule="x")
    assert entry.key.startswith("mturk:live:") and not entry.sandbox
    assert send([entry], researcher, mturk)["failed"] == 1


def test_the_client_talks_to_the_sandbox_unless_told_otherwise():
    assert (
        client_from_env().boto.meta.endpoint_url == "https://mturk-requester-sandbox.us-east-1.amazonaws.com"
    )
    live = client_from_env(sandbox=False)
    assert (
        live.boto.meta.endpoint_url == "https://mturk-requester.us-east-1.amazonaws.com" and not live.sandbox
    )


def test_tangs_worker_rules_pass_the_config_check():
    assert config_problems({"mturk": {**TANG, "require_qualification": True, "qualification_name": "q"}},
                           protocol="span") == []  # fmt: skip


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"locales": ["UK", "US"]}, "config.mturk.locales: UK: not ISO 3166"),
        ({"locales": "US"}, "config.mturk.locales: must be a list"),
        ({"min_approval_pct": 101}, "config.mturk.min_approval_pct: must be a whole number from 0 to 100"),
        ({"min_approved_hits": -1}, "config.mturk.min_approved_hits: must be a whole number"),
        ({"require_qualification": "yes"}, "config.mturk.require_qualification: must be true or false"),
        ({"qualification_name": " "}, "config.mturk.qualification_name: must not be empty"),
        ({"auto_approve_days": 31}, "config.mturk.auto_approve_days: must be a whole number from 0 to 30"),
        ({"keywords": "a,b"}, "config.mturk.keywords: must be a list of words"),
        ({"min_approval": 98}, "config.mturk: unknown option 'min_approval'"),
        ([], "config.mturk: must be a mapping"),
    ],
)
def test_bad_mturk_options_are_named(options, message):
    found = [str(problem) for problem in config_problems({"mturk": options}, protocol="span")]
    assert any(problem.startswith(message) for problem in found), found


def test_a_stop_expires_the_hit_through_the_ledger(study, listing, mturk, stub, monkeypatch,
                                                   django_capture_on_commit_callbacks):  # fmt: skip
    monkeypatch.setitem(platforms._factories, "mturk", lambda sandbox: mturk)
    stub.add_response("update_expiration_for_hit", {}, {"HITId": HIT_ID, "ExpireAt": 0})
    with django_capture_on_commit_callbacks(execute=True):
        study_stop(study=study, rule="budget", note="Stopped after 30 ratings: the budget is spent.")
    stop = LedgerEntry.objects.get(study=study, action=LedgerEntry.Action.STOP)
    assert stop.status == LedgerEntry.Status.SENT and stop.planned_by is None
    assert stop.key == f"mturk:sandbox:stop:{HIT_ID}"
