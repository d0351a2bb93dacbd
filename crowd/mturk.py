"""Mechanical Turk through boto3's `mturk` client: HITs, their assignments, pay and messages.

Every write is a ledger row planned here with `request` = the keyword
arguments of the boto3 call, and sent by perform(). create_hit and
send_bonus carry a UniqueRequestToken made from the row's key, so a resend
after a lost answer cannot make a second HIT or pay twice (Mechanical Turk
remembers a bonus token for 24 hours; the ledger's key guards the rest).
The sandbox is the default: the live marketplace only where a caller asks.
"""

import hashlib
from datetime import date, datetime
from decimal import Decimal

import boto3
from botocore.exceptions import BotoCoreError, ClientError
from django.db import transaction

from accounts.models import Worker
from annotations.models import Assignment
from outbound.policy import OutboundRefused, checked_addresses, url_host_port
from qualification.models import Qualification, QualificationResult

from . import ledger
from .models import LedgerEntry, Listing, Platform
from .mturk_hit import check_mturk, hit_request, mturk_options, qualification_name, usd
from .platforms import PlatformClient, Submission, approvable

__all__ = ["MTurkClient", "check_mturk", "client_from_env", "request_token"]

ENDPOINTS = {
    True: "https://mturk-requester-sandbox.us-east-1.amazonaws.com",
    False: "https://mturk-requester.us-east-1.amazonaws.com",
}
ALL_STATUSES = ["Submitted", "Approved", "Rejected"]
MAX_NOTIFY = 100  # WorkerIds per notify_workers call
Action = LedgerEntry.Action


def client_from_env(sandbox=True):
    """An MTurkClient; boto3 reads the AWS_* credentials from the environment itself."""
    boto = boto3.client("mturk", region_name="us-east-1", endpoint_url=ENDPOINTS[bool(sandbox)])
    boto.meta.events.register("before-send.mturk", _outbound_checked)
    return MTurkClient(boto, sandbox=sandbox)


class OutboundRefusedError(BotoCoreError):
    fmt = "{reason}"


def _outbound_checked(request, **kwargs):
    """Every request's host through the outbound policy before botocore sends it (boto3's own HTTP
    stack resolves the name again: the endpoints are fixed Amazon names, not a researcher's)."""
    try:
        checked_addresses(*url_host_port(request.url))
    except (OutboundRefused, ValueError) as refused:
        raise OutboundRefusedError(reason=str(refused)) from None
    except OSError:
        pass  # not resolvable: botocore's own connection fails and says so


def request_token(key):
    """UniqueRequestToken of a ledger key: Mechanical Turk takes at most 64 characters."""
    return hashlib.sha256(key.encode()).hexdigest()


def _json(value):
    """boto3's answer as JSON the ledger can store: datetimes as ISO strings."""
    if isinstance(value, dict):
        return {k: _json(v) for k, v in value.items() if k != "ResponseMetadata"}
    if isinstance(value, list):
        return [_json(v) for v in value]
    if isinstance(value, datetime | date):
        return value.isoformat()
    return str(value) if isinstance(value, Decimal) else value


class MTurkClient(PlatformClient):
    platform = Platform.MTURK

    def __init__(self, boto, *, sandbox=True):
        self.boto, self.sandbox = boto, bool(sandbox)

    def _key(self, *parts):
        return ":".join(["mturk", "sandbox" if self.sandbox else "live", *map(str, parts)])

    def _plan(self, study, action, key, user, **fields):
        return ledger.plan(study=study, action=action, key=key, user=user, platform=self.platform,
                           sandbox=self.sandbox, **fields)  # fmt: skip

    def _same_marketplace(self, sandbox):
        if bool(sandbox) != self.sandbox:
            raise ValueError(
                "This client talks to the " + ("sandbox" if self.sandbox else "live marketplace")
            )

    # --- planning ---

    def plan_listing(self, study, *, user, name, places, reward, minutes, sandbox=None):
        """Plan create_hit; the HIT is live (in its marketplace) as soon as the row is sent."""
        self._same_marketplace(self.sandbox if sandbox is None else sandbox)
        ledger.require_manager(user, study)
        options, key = mturk_options(study), self._key("create", study.pk, name)
        custom_type = self._required_type(study) if options["require_qualification"] else None
        request = hit_request(study, places=places, reward=reward, minutes=minutes, custom_type=custom_type,
                              token=request_token(key))  # fmt: skip
        reward = Decimal(request["Reward"])
        # The amount is what the HIT commits (rewards, before Amazon's fee): the preview shows it.
        return self._plan(
            study, Action.CREATE, key, user, amount=reward * places, currency="USD", request=request
        )

    def _required_type(self, study):
        """The custom type granted on a HIT of a qualification round the study requires, or one of its name."""
        rounds = Qualification.objects.filter(required_by=study).values_list("study_id", flat=True)
        granted = self._granted().filter(study_id__in=rounds).first()
        found = granted.qualification_type if granted else self._type_named(qualification_name(study))
        if not found:
            raise ValueError(
                "mturk.require_qualification: no worker has been granted the qualification yet; "
                "send the grants of the qualification round's HIT first."
            )
        return found

    def _granted(self):
        return Listing.objects.filter(platform=self.platform, sandbox=self.sandbox).exclude(
            qualification_type=""
        )

    def _type_named(self, name):
        """Type names are unique per requester: another HIT of the same round may have made it already."""
        listings = self._granted().select_related("study")
        return next((x.qualification_type for x in listings if qualification_name(x.study) == name), "")

    def plan_publish(self, listing, *, user):
        raise ValueError(
            "A Mechanical Turk HIT is live as soon as it is created: there is nothing to publish."
        )

    def plan_stop(self, listing, *, user):
        """Expire the HIT now (UpdateExpirationForHIT at the epoch): no new worker can accept it;
        who has accepted it may still submit."""
        key = self._key("stop", listing.external_id)
        request = {"HITId": listing.external_id, "ExpireAt": 0}
        return self._plan(listing.study, Action.STOP, key, user, listing=listing, request=request)

    def plan_approvals(self, listing, *, user):
        ledger.require_manager(user, listing.study)  # before reading the platform on their behalf
        matched, unmatched = approvable(self.submissions(listing), platform=self.platform)
        planned = []
        for submission in matched:
            planned.append(self._plan(
                listing.study, Action.APPROVE, self._key("approve", submission.id), user, listing=listing,
                worker=submission.assignment.worker, assignment=submission.assignment, target=submission.id,
                request={"AssignmentId": submission.id},
            ))  # fmt: skip
        return planned, unmatched

    def plan_rejection(self, listing, submission, *, user, reason):
        """Reject one submission; Mechanical Turk shows `reason` to the worker and it counts against them."""
        ledger.require_manager(user, listing.study)
        reason = (reason or "").strip()
        if not reason:
            raise ValueError("A rejection needs a reason: the worker reads it.")
        if not submission.awaiting_review:
            raise ValueError(f"Assignment {submission.id} is {submission.status}, not awaiting review.")
        approval = LedgerEntry.objects.filter(key=self._key("approve", submission.id))
        if approval.exclude(status=LedgerEntry.Status.CANCELLED).exists():
            raise ValueError(f"An approval of {submission.id} is planned or sent; cancel it first.")
        worker = Worker.objects.filter(
            platform=Worker.Platform.MTURK, external_id=submission.worker_id
        ).first()
        return self._plan(
            listing.study, Action.REJECT, self._key("reject", submission.id), user, listing=listing,
            worker=worker, assignment=submission.assignment, target=submission.id, reason=reason,
            request={"AssignmentId": submission.id, "RequesterFeedback": reason[:1024]},
        )  # fmt: skip

    def plan_bonus(self, listing, worker, *, user, amount, reason, rule):
        """One bonus per rule, worker and listing, paid against the worker's latest submitted assignment."""
        ledger.require_manager(user, listing.study)
        if listing.currency and listing.currency != "USD":
            raise ValueError(f"Mechanical Turk pays in USD, not {listing.currency}.")
        amount = usd(amount, "A bonus")
        if not (reason or "").strip():
            raise ValueError("Mechanical Turk requires a reason with every bonus.")
        mine = Assignment.objects.filter(study=listing.study, worker=worker, status=Assignment.Status.SUBMITTED,
                                         platform_ids__has_key="assignmentId").order_by("-submitted_at", "-pk")  # fmt: skip
        assignment = next((a for a in mine if a.platform_ids.get("hitId") == listing.external_id), None)
        assignment = assignment or mine.first()
        if assignment is None:
            raise ValueError("The worker has no submitted Mechanical Turk assignment here to pay a bonus on.")
        key = self._key("bonus", listing.external_id, rule, worker.external_id)
        request = {"WorkerId": worker.external_id, "BonusAmount": f"{amount:.2f}",
                   "AssignmentId": assignment.platform_ids["assignmentId"], "Reason": reason,
                   "UniqueRequestToken": request_token(key)}  # fmt: skip
        return self._plan(listing.study, Action.BONUS, key, user, listing=listing, worker=worker,
                          assignment=assignment, target=request["AssignmentId"], amount=amount,
                          currency="USD", reason=reason, request=request)  # fmt: skip

    def plan_grant(self, listing, worker, *, user):
        """Grant our custom qualification to a worker the researcher approved in this qualification round."""
        ledger.require_manager(user, listing.study)
        passed = QualificationResult.objects.filter(
            qualification__study=listing.study, worker=worker, status=QualificationResult.Status.APPROVED
        )
        if worker.platform != Worker.Platform.MTURK or not passed.exists():
            raise ValueError("The worker has not passed this study's qualification on Mechanical Turk.")
        request = {
            # Made on the first grant of the listing, its id then stored on the listing.
            "qualification_type": {"Name": qualification_name(listing.study), "QualificationTypeStatus": "Active",
                                   "Description": f"Passed the qualification round of {listing.study.title}."[:2000]},
            "WorkerId": worker.external_id, "IntegerValue": 1, "SendNotification": True,
        }  # fmt: skip
        key = self._key("grant", listing.external_id, worker.external_id)
        return self._plan(listing.study, Action.GRANT, key, user, listing=listing, worker=worker,
                          target=worker.external_id, request=request)  # fmt: skip

    def plan_notify(self, listing, workers, *, user, subject, message):
        """[(entry, created)]: one row per 100 workers, Mechanical Turk's limit per message."""
        ledger.require_manager(user, listing.study)
        subject, message = (subject or "").strip(), (message or "").strip()
        if not subject or not message or len(subject) > 200 or len(message) > 4096:
            raise ValueError("A message needs a subject (at most 200 characters) and a text (at most 4,096).")
        ids = sorted({w.external_id for w in workers if w.platform == Worker.Platform.MTURK})
        rows = []
        for start in range(0, len(ids), MAX_NOTIFY):
            chunk = ids[start : start + MAX_NOTIFY]
            digest = hashlib.sha256("\n".join([subject, message, *chunk]).encode()).hexdigest()[:32]
            request = {"Subject": subject, "MessageText": message, "WorkerIds": chunk}
            rows.append(self._plan(listing.study, Action.NOTIFY, self._key("notify", listing.external_id, digest),
                                   user, listing=listing, reason=message, request=request))  # fmt: skip
        return rows

    # --- reading ---

    def submissions(self, listing):
        found, token = [], None
        while True:
            page = self._call("list_assignments_for_hit", HITId=listing.external_id, MaxResults=100,
                              AssignmentStatuses=ALL_STATUSES, **({"NextToken": token} if token else {}))  # fmt: skip
            found += page.get("Assignments", [])
            token = page.get("NextToken")
            if not token or not page.get("Assignments"):
                break
        ours = {}
        for assignment in Assignment.objects.filter(
            study=listing.study, status=Assignment.Status.SUBMITTED, worker__platform=Worker.Platform.MTURK,
            worker__external_id__in={item["WorkerId"] for item in found},
        ).select_related("worker").order_by("-submitted_at", "-pk"):  # fmt: skip
            ours.setdefault(assignment.worker.external_id, []).append(assignment)
        submissions = []
        for item in found:
            mine = ours.get(item["WorkerId"], [])
            same = [a for a in mine if a.platform_ids.get("assignmentId") == item["AssignmentId"]]
            match = (same or mine or [None])[0]
            submissions.append(Submission(
                id=item["AssignmentId"], worker_id=item["WorkerId"], status=item["AssignmentStatus"],
                awaiting_review=item["AssignmentStatus"] == "Submitted", assignment=match,
                completion_code=match.completion_code if match else "",
            ))  # fmt: skip
        return submissions

    # --- sending ---

    def perform(self, entry):
        if entry.platform != self.platform or entry.sandbox != self.sandbox:
            raise ledger.PlatformError("This row is for another platform or marketplace than this client's.")
        request = dict(entry.request)
        if entry.action == Action.CREATE:
            return self._create(entry, request)
        if entry.action == Action.GRANT:
            return self._grant(entry, request)
        method = {Action.APPROVE: "approve_assignment", Action.REJECT: "reject_assignment",
                  Action.BONUS: "send_bonus", Action.NOTIFY: "notify_workers",
                  Action.STOP: "update_expiration_for_hit"}.get(entry.action)  # fmt: skip
        if method is None:
            raise ledger.PlatformError(f"Mechanical Turk has no '{entry.action}'.")
        return self._call(method, **request)

    def _call(self, method, **arguments):
        try:
            return _json(getattr(self.boto, method)(**arguments))
        except ClientError as error:
            answer = _json(error.response)
            raise ledger.PlatformError(str(error), answer=answer) from error
        except BotoCoreError as error:  # no connection, no credentials, a timeout: nothing was answered
            raise ledger.PlatformError(f"{method}: {error}") from error

    def _create(self, entry, request):
        answer = self._call("create_hit", **request)
        hit = answer["HIT"]
        listing, _ = Listing.objects.get_or_create(
            platform=self.platform, sandbox=self.sandbox, external_id=hit["HITId"],
            defaults={"study": entry.study, "title": hit.get("Title", request["Title"]),
                      "places": hit.get("MaxAssignments", request["MaxAssignments"]),
                      "reward": Decimal(hit.get("Reward", request["Reward"])), "currency": "USD",
                      "status": hit.get("HITStatus", ""), "created_by": entry.sent_by or entry.planned_by},
        )  # fmt: skip
        # ledger.send() saves only the outcome fields: the link to the new listing is stored here.
        LedgerEntry.objects.filter(pk=entry.pk).update(listing=listing)
        entry.listing = listing
        return answer

    def _grant(self, entry, request):
        kind = request.pop("qualification_type")
        with transaction.atomic():  # two grants sent at once make one type
            listing = Listing.objects.select_for_update().get(pk=entry.listing_id)
            if not listing.qualification_type:
                listing.qualification_type = self._type_named(kind["Name"])
            if not listing.qualification_type:
                made = self._call("create_qualification_type", **kind)
                listing.qualification_type = made["QualificationType"]["QualificationTypeId"]
                listing.save(update_fields=["qualification_type"])
        return self._call("associate_qualification_with_worker",
                          QualificationTypeId=listing.qualification_type, **request)  # fmt: skip
