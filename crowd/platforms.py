"""What every crowd platform client gives (crowd/prolific.py, crowd/mturk.py) and how to get one.

A client is built from the environment (tokens and keys never sit in the
database or the config) and is the only code that talks to its platform.
Planning methods write ledger rows in status *planned* (crowd/ledger.py):
the row's `request` is exactly what will be sent, so the ledger's preview is
the dry run. Nothing that moves money or reaches a worker leaves the machine
until ledger.send() calls perform(). Reads (listing the submissions) go
straight to the platform.
"""

from dataclasses import dataclass

from annotations.models import Assignment

from .models import LedgerEntry, Platform


@dataclass(frozen=True)
class Submission:
    """One worker's submission as the platform reports it, matched to our work where it can be."""

    id: str  # Prolific's submission id, Mechanical Turk's AssignmentId
    worker_id: str  # PROLIFIC_PID, WorkerId
    status: str  # as the platform says it: AWAITING REVIEW, APPROVED, Submitted, ...
    awaiting_review: bool
    assignment: object = None  # our submitted Assignment of that worker in the study, or None
    completion_code: str = ""


class PlatformClient:
    platform = ""

    def plan_listing(self, study, *, user, name, places, reward, minutes, sandbox=None):
        """Plan the creation of the platform's study or HIT for `study` (action create).

        `sandbox` None means the marketplace the client was made for. `name` tells listings of one study apart ("main", "qualification") and
        is part of the idempotency key; `reward` is a Decimal in the study's
        currency per place, `minutes` the estimated completion time. The
        platform's own requirements come from the study's config.
        perform() of this row creates the Listing.
        """
        raise NotImplementedError

    def plan_publish(self, listing, *, user):
        """Plan publishing a draft (Prolific); raise ValueError where a listing is live when made."""
        raise NotImplementedError

    def submissions(self, listing):
        """[Submission] the platform holds for the listing, matched to our submitted assignments."""
        raise NotImplementedError

    def plan_approvals(self, listing, *, user):
        """([(entry, created)], [unmatched Submission]): an approval of every submission awaiting
        review that matches work submitted here; the others are returned, not approved."""
        raise NotImplementedError

    def plan_rejection(self, listing, submission, *, user, reason):
        """Plan the rejection of one submission, with the reason the worker will read."""
        raise NotImplementedError

    def plan_bonus(self, listing, worker, *, user, amount, reason, rule):
        """Plan one bonus of `amount` (the listing's currency) under bonus rule `rule`."""
        raise NotImplementedError

    def plan_grant(self, listing, worker, *, user):
        """Plan letting a worker who passed our qualification into later listings
        (Mechanical Turk: the custom qualification; Prolific: the allow-list of the next study)."""
        raise NotImplementedError

    def plan_notify(self, listing, workers, *, user, subject, message):
        """Plan one message to `workers` (e.g. a retest is open)."""
        raise NotImplementedError

    def plan_stop(self, listing, *, user):
        """Plan stopping the listing, so that no new worker starts it (the study stopped by its
        allocation rule, docs/adaptive-allocation.md); `user` None: planned by that rule."""
        raise NotImplementedError

    def perform(self, entry):
        """Send one ledger entry; return the platform's answer (a JSON-able dict) or raise PlatformError."""
        raise NotImplementedError


def approvable(submissions, *, platform):
    """(to approve, held): submissions awaiting review that match work submitted here and have no
    rejection planned (the researcher decided otherwise for those); and the ones held for the
    researcher to look at: not matched to work here, or from a worker who failed an attention
    or quality check in the study (an assignment flagged: they are approved or rejected by hand)."""
    submissions = [submission for submission in submissions if submission.awaiting_review]
    rejected = set(
        LedgerEntry.objects.filter(
            platform=platform, action=LedgerEntry.Action.REJECT, target__in=[s.id for s in submissions]
        )
        .exclude(status=LedgerEntry.Status.CANCELLED)
        .values_list("target", flat=True)
    )
    matched = [s for s in submissions if s.assignment is not None and s.id not in rejected]
    failed = set(
        Assignment.objects.filter(
            study_id__in={s.assignment.study_id for s in matched},
            worker_id__in={s.assignment.worker_id for s in matched},
            flagged=True,
        ).values_list("study_id", "worker_id")
    )
    held = [s for s in matched if (s.assignment.study_id, s.assignment.worker_id) in failed]
    return (
        [s for s in matched if s not in held],
        [s for s in submissions if s.assignment is None] + held,
    )


_factories = {}


def register(platform, factory):
    """factory(sandbox) -> PlatformClient. Tests register one that points at a local server."""
    _factories[platform] = factory


def client_for(platform, *, sandbox=False):
    if platform not in _factories:
        raise LookupError(f"no client for {platform}; known: {', '.join(Platform.values)}")
    return _factories[platform](sandbox)


def client_of_entry(entry):
    return client_for(entry.platform, sandbox=entry.sandbox)
