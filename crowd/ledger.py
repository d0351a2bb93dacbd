"""Plan, preview and send ledger entries: each at most once, only by who manages the study.

plan() makes a row in status *planned* or finds the row of the same key: the
same approval or bonus planned twice is one row. send() claims each row with
a conditional update (planned or failed -> sending), so two researchers
pressing Send at once, or a double click, send it once; the platform's
answer is stored on the row. A row left *sending* (the process died while
the platform was answering) is never sent again by itself: its outcome is
unknown until someone looks on the platform and marks it (mark_failed lets
it be sent again; Mechanical Turk bonuses carry the key as UniqueRequestToken,
so even a resend cannot pay twice there).
"""

import logging
from collections import defaultdict
from decimal import Decimal

from django.core.exceptions import PermissionDenied
from django.db.models import F
from django.utils import timezone

from accounts.policy import may_manage_study

from .models import LedgerEntry

log = logging.getLogger(__name__)
SENDABLE = (LedgerEntry.Status.PLANNED, LedgerEntry.Status.FAILED)
# Money already committed: sent, or possibly sent.
SPENT = (LedgerEntry.Status.SENT, LedgerEntry.Status.SENDING)


class PlatformError(Exception):
    """The platform refused or could not be reached; `answer` is what it said, if anything."""

    def __init__(self, message, answer=None):
        self.answer = answer
        super().__init__(message)


def require_manager(user, study):
    if not may_manage_study(user, study.pk):
        raise PermissionDenied(
            "Only the study's researchers may pay, approve, reject or message its workers."
        )


def plan(*, study, action, key, user, platform, listing=None, sandbox=False, **fields):
    """(entry, created): the row of `key`, made now in status planned if it did not exist.

    A cancelled row of the same key is planned again with the new figures; a
    planned, sending, sent or failed one is returned as it is. Only a stop may be planned
    without a user: by the study's own stopping rule, which its researchers set.
    """
    if not (user is None and action == LedgerEntry.Action.STOP):
        require_manager(user, study)
    defaults = {
        "study": study, "action": action, "platform": platform, "listing": listing,
        "sandbox": sandbox, "planned_by": user, **fields,
    }  # fmt: skip
    entry, created = LedgerEntry.objects.get_or_create(key=key, defaults=defaults)
    if not created and entry.status == LedgerEntry.Status.CANCELLED:
        revived = LedgerEntry.objects.filter(pk=entry.pk, status=LedgerEntry.Status.CANCELLED).update(
            status=LedgerEntry.Status.PLANNED, **defaults
        )
        entry.refresh_from_db()
        return entry, bool(revived)
    return entry, created


def preview(entries):
    """What Send would do: counts per action and money per currency of the rows still to send."""
    counts, money = defaultdict(int), defaultdict(Decimal)
    for entry in entries:
        if entry.status not in SENDABLE:
            continue
        counts[entry.get_action_display()] += 1
        if entry.amount is not None:
            money[entry.currency] += entry.amount
    return {"counts": dict(counts), "money": dict(money)}


def send(entries, *, user, client_for):
    """Send every sendable entry once. client_for(entry) -> an object with perform(entry) -> answer.

    Returns {"sent": n, "failed": n, "skipped": n}; skipped rows were sent,
    cancelled or being sent by someone else.
    """
    outcome = {"sent": 0, "failed": 0, "skipped": 0}
    for entry in entries:
        require_manager(user, entry.study)
        _send_one(entry, client_for, outcome, claim={"sent_by": user}, failures=(PlatformError,))
    return outcome


def send_stops(entries, *, client_for):
    """Send the stops a study's stopping rule planned (no user: the rule acts for the researchers
    who set it). Each row is claimed as send() claims it, so it goes at most once; a row that
    fails stays in the ledger for a researcher to send again."""
    outcome = {"sent": 0, "failed": 0, "skipped": 0}
    for entry in entries:
        if entry.action != LedgerEntry.Action.STOP or entry.planned_by_id is not None:
            raise PermissionDenied("Only a stop planned by the study's own rule is sent without a user.")
        # LookupError, ValueError: no client configured in this process; the row stays to send later.
        _send_one(entry, client_for, outcome, claim={}, failures=(PlatformError, LookupError, ValueError))
    return outcome


def _send_one(entry, client_for, outcome, *, claim, failures):
    """Claim `entry` (SENDABLE -> SENDING, with the `claim` fields), perform it, record the answer
    or the failure, and count it in `outcome`. A row someone else claimed first is skipped."""
    claimed = LedgerEntry.objects.filter(pk=entry.pk, status__in=SENDABLE).update(
        status=LedgerEntry.Status.SENDING, attempts=F("attempts") + 1, error="", **claim
    )
    if not claimed:
        outcome["skipped"] += 1
        return
    entry.refresh_from_db()
    try:
        answer = client_for(entry).perform(entry)
    except failures as error:
        entry.status, entry.error = LedgerEntry.Status.FAILED, str(error)
        entry.response = getattr(error, "answer", None)
        outcome["failed"] += 1
    else:
        entry.status, entry.response, entry.sent_at = LedgerEntry.Status.SENT, answer, timezone.now()
        outcome["sent"] += 1
    entry.save(update_fields=["status", "error", "response", "sent_at"])
    # The key and the answer, never a token: secrets stay in the environment.
    log.info("ledger %s %s: %s", entry.key, entry.status, entry.error or "ok")


def cancel(entries, *, user):
    """Cancel planned rows (nothing was sent); returns how many."""
    done = 0
    for entry in entries:
        require_manager(user, entry.study)
        done += LedgerEntry.objects.filter(pk=entry.pk, status=LedgerEntry.Status.PLANNED).update(
            status=LedgerEntry.Status.CANCELLED
        )
    return done


def mark_failed(entries, *, user):
    """After checking on the platform that a row left *sending* did not go through: allow a resend."""
    done = 0
    for entry in entries:
        require_manager(user, entry.study)
        done += LedgerEntry.objects.filter(pk=entry.pk, status=LedgerEntry.Status.SENDING).update(
            status=LedgerEntry.Status.FAILED, error="marked as not sent after a check on the platform"
        )
    return done


def paid_per_worker(study):
    """{worker pk: Decimal} of bonuses sent (or possibly sent) in `study`, per currency-agnostic sum."""
    paid = defaultdict(Decimal)
    for worker_id, amount in LedgerEntry.objects.filter(
        study=study, action=LedgerEntry.Action.BONUS, status__in=SPENT, worker__isnull=False
    ).values_list("worker_id", "amount"):
        paid[worker_id] += amount or 0
    return dict(paid)
