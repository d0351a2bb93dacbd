"""The ledger: planned once per key, previewed, sent once, the platform's answer kept; researchers only."""

import threading
from decimal import Decimal

import pytest
from django.core.exceptions import PermissionDenied
from django.db import connections

from accounts.models import StudyMembership
from crowd import ledger
from crowd.models import LedgerEntry
from tests.factories import WorkerFactory, make_span_study

pytestmark = pytest.mark.django_db


class RecordingClient:
    """Stands in for a platform: records every entry it is asked to send."""

    def __init__(self, fail_with=None):
        self.sent = []
        self.fail_with = fail_with
        self.lock = threading.Lock()

    def perform(self, entry):
        with self.lock:
            self.sent.append(entry.key)
        if self.fail_with:
            raise ledger.PlatformError(self.fail_with, answer={"error": self.fail_with})
        return {"id": f"answer-{entry.key}"}


def bonus(study, user, key="bonus-1", amount="3.50"):
    worker = WorkerFactory(platform="prolific")
    return ledger.plan(
        study=study, action=LedgerEntry.Action.BONUS, key=key, user=user, platform="prolific",
        worker=worker, amount=Decimal(amount), currency="GBP", reason="Thanks",
    )  # fmt: skip


@pytest.fixture
def study(researcher):
    return make_span_study(documents=1, researcher=researcher)


def test_planning_twice_makes_one_row_and_preview_sends_nothing(study, researcher):
    first, created = bonus(study, researcher)
    again, created_again = bonus(study, researcher)
    assert created and not created_again and first.pk == again.pk
    assert LedgerEntry.objects.count() == 1
    summary = ledger.preview(LedgerEntry.objects.all())
    assert summary == {"counts": {"Bonus": 1}, "money": {"GBP": Decimal("3.50")}}
    assert LedgerEntry.objects.get().status == LedgerEntry.Status.PLANNED


def test_send_sends_once_and_keeps_the_answer(study, researcher):
    entry, _ = bonus(study, researcher)
    client = RecordingClient()
    assert ledger.send([entry], user=researcher, client_for=lambda e: client) == {
        "sent": 1,
        "failed": 0,
        "skipped": 0,
    }
    assert ledger.send([entry], user=researcher, client_for=lambda e: client)["skipped"] == 1
    entry.refresh_from_db()
    assert client.sent == ["bonus-1"]
    assert entry.status == LedgerEntry.Status.SENT and entry.response == {"id": "answer-bonus-1"}
    assert entry.sent_by == researcher and entry.attempts == 1


def test_a_refusal_is_kept_and_the_row_can_be_sent_again(study, researcher):
    entry, _ = bonus(study, researcher)
    outcome = ledger.send(
        [entry], user=researcher, client_for=lambda e: RecordingClient(fail_with="insufficient funds")
    )
    entry.refresh_from_db()
    assert outcome["failed"] == 1
    assert entry.status == LedgerEntry.Status.FAILED and entry.error == "insufficient funds"
    assert entry.response == {"error": "insufficient funds"}
    client = RecordingClient()
    ledger.send([entry], user=researcher, client_for=lambda e: client)
    entry.refresh_from_db()
    assert entry.status == LedgerEntry.Status.SENT and entry.attempts == 2 and client.sent == ["bonus-1"]


def test_a_row_left_sending_is_not_sent_again_until_marked(study, researcher):
    entry, _ = bonus(study, researcher)
    LedgerEntry.objects.filter(pk=entry.pk).update(status=LedgerEntry.Status.SENDING)
    client = RecordingClient()
    assert ledger.send([entry], user=researcher, client_for=lambda e: client)["skipped"] == 1
    assert client.sent == []
    assert ledger.mark_failed([entry], user=researcher) == 1
    ledger.send([entry], user=researcher, client_for=lambda e: client)
    assert client.sent == ["bonus-1"]


def test_cancelled_rows_are_not_sent_and_can_be_planned_again(study, researcher):
    entry, _ = bonus(study, researcher)
    assert ledger.cancel([entry], user=researcher) == 1
    client = RecordingClient()
    assert ledger.send([entry], user=researcher, client_for=lambda e: client)["skipped"] == 1
    again, created = bonus(study, researcher, amount="4.00")
    assert created and again.pk == entry.pk and again.amount == Decimal("4.00")
    assert again.status == LedgerEntry.Status.PLANNED


@pytest.mark.django_db(transaction=True)
def test_two_researchers_sending_at_once_send_once(researcher):
    study = make_span_study(documents=1, researcher=researcher)
    entry, _ = bonus(study, researcher)
    client = RecordingClient()
    barrier = threading.Barrier(4)

    def press_send():
        try:
            barrier.wait()
            ledger.send([LedgerEntry.objects.get(pk=entry.pk)], user=researcher, client_for=lambda e: client)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=press_send) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert client.sent == ["bonus-1"]


def test_analysts_and_other_researchers_may_not_plan_or_send(study, researcher, other_researcher):
    entry, _ = bonus(study, researcher)
    analyst = other_researcher
    StudyMembership.objects.create(study=study, user=analyst, role=StudyMembership.Role.ANALYST)
    with pytest.raises(PermissionDenied):
        bonus(study, analyst, key="bonus-2")
    client = RecordingClient()
    with pytest.raises(PermissionDenied):
        ledger.send([entry], user=analyst, client_for=lambda e: client)
    with pytest.raises(PermissionDenied):
        ledger.cancel([entry], user=analyst)
    assert client.sent == [] and LedgerEntry.objects.get().status == LedgerEntry.Status.PLANNED
