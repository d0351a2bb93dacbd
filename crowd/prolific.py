"""Prolific through its REST API (https://docs.prolific.com/api-reference), with httpx.

Endpoints used, by the names Prolific's reference gives them:
- Create a study: POST /api/v1/studies/ (a draft; external_study_url with the
  {{%PROLIFIC_PID%}}, {{%STUDY_ID%}}, {{%SESSION_ID%}} placeholders, a COMPLETED
  completion code reviewed by hand, reward in pence or cents, filters
  custom_allowlist and custom_blocklist)
- Publish: POST /api/v1/studies/{id}/transition/ {"action": "PUBLISH"}
- Stop (the study stopped by its allocation rule): the same transition, {"action": "STOP"}
- List submissions: GET /api/v1/submissions/?study={id} (paged)
- Approve or reject a submission: POST /api/v1/submissions/{id}/transition/
  (a rejection needs a message of at least 100 characters and a category)
- Set up bonuses: POST /api/v1/submissions/bonus-payments/ (csv_bonuses
  "participant_id,amount"), then Pay bonuses: POST
  /api/v1/bulk-bonus-payments/{id}/pay/, which Prolific documents as not
  idempotent: the ledger sends it at most once.
- Send a message: POST /api/v1/messages/

Every planned row's `request` is the HTTP call itself ({"method", "path",
"json"}), so the ledger's preview shows exactly what will be sent. The token
comes from PROLIFIC_API_TOKEN and is sent only in the Authorization header.
"""

import hashlib
import os
import secrets
from decimal import Decimal

import httpx
from django.conf import settings

from outbound.transport import checked_client

from . import ledger, listings
from .models import LedgerEntry, Listing, Platform
from .pay import pay_of
from .platforms import PlatformClient, Submission, approvable

TOKEN_ENV = "PROLIFIC_API_TOKEN"  # noqa: S105 (the variable's name, not a token)
COMPLETE_URL = "https://app.prolific.com/submissions/complete?cc={code}"
PLACEHOLDERS = "PROLIFIC_PID={{%PROLIFIC_PID%}}&STUDY_ID={{%STUDY_ID%}}&SESSION_ID={{%SESSION_ID%}}"
AWAITING_REVIEW = "AWAITING REVIEW"
MIN_REJECTION_MESSAGE = 100
REJECTION_CATEGORIES = (
    "TOO_QUICKLY", "TOO_SLOWLY", "FAILED_INSTRUCTIONS", "INCOMP_LONGITUDINAL", "FAILED_CHECK",
    "LOW_EFFORT", "MALINGERING", "NO_CODE", "BAD_CODE", "NO_DATA", "UNSUPP_DEVICE", "OTHER",
)  # fmt: skip
PAGE_SIZE = 200
MAX_PAGES = 1000


def client_from_env(sandbox=False):
    if sandbox:
        raise ValueError("Prolific has no sandbox: test with a small study, or on Mechanical Turk's sandbox.")
    token = os.environ.get(TOKEN_ENV, "")
    if not token:
        raise LookupError(f"set {TOKEN_ENV} in the environment of the web process to use Prolific")
    return ProlificClient(base_url=settings.PROLIFIC_API_URL, token=token)


def _cents(amount):
    return int((Decimal(amount) * 100).to_integral_value())


def _digest(text):
    return hashlib.sha256(text.encode()).hexdigest()[:16]


class ProlificClient(PlatformClient):
    platform = Platform.PROLIFIC

    def __init__(self, *, base_url, token, timeout=30.0):
        # Connects only where the outbound policy allows (a PROLIFIC_API_URL on a private address
        # must be allowed in OUTBOUND_ALLOWED_HOSTS too).
        self.http = checked_client(
            base_url=base_url.rstrip("/"), timeout=timeout, headers={"Authorization": f"Token {token}"}
        )

    # --- planning: ledger rows whose request is the call itself ---

    def _plan(self, *, study, action, key, user, method, path, body=None, listing=None, **fields):
        request = {"method": method, "path": path, **({"json": body} if body is not None else {})}
        return ledger.plan(
            study=study, action=action, key=f"prolific:{key}", user=user, platform=self.platform,
            listing=listing, request=request, **fields,
        )  # fmt: skip

    def plan_listing(self, study, *, user, name, places, reward, minutes, sandbox=False):
        if sandbox:
            raise ValueError("Prolific has no sandbox.")
        pay = pay_of(study)
        if not pay.currency:
            raise ValueError(
                "set the study's pay.currency (GBP or USD) first: Prolific pays in the study's currency"
            )
        if reward is None or reward <= 0 or places < 1 or minutes < 1:
            raise ValueError("a listing needs a reward above 0, at least one place and an estimated time")
        code = self._completion_code(study)
        body = {
            "name": study.title[:120],
            "internal_name": f"{study.slug} {name}"[:255],
            "description": f"Read texts and mark what is wrong in them. Study: {study.title}"[:1000],
            "external_study_url": f"{listings.join_link(study)}?{PLACEHOLDERS}",
            "prolific_id_option": "url_parameters",
            "completion_codes": [
                {"code": code, "code_type": "COMPLETED", "actions": [{"action": "MANUALLY_REVIEW"}]}
            ],
            "estimated_completion_time": int(minutes),
            "reward": _cents(reward),
            "total_available_places": int(places),
            "device_compatibility": ["desktop"],
            "filters": self._filters(study),
        }
        return self._plan(
            study=study, action=LedgerEntry.Action.CREATE, key=f"create:{study.pk}:{name}", user=user,
            method="POST", path="/api/v1/studies/", body=body, amount=Decimal(reward), currency=pay.currency,
            target=name,
        )  # fmt: skip

    def _completion_code(self, study):
        """The code in the study's Prolific completion link, or a new one (saved when the study is made)."""
        url = (study.config or {}).get("prolific_completion_url") or ""
        if "cc=" in url:
            return url.rsplit("cc=", 1)[1].split("&")[0]
        return secrets.token_hex(4).upper()

    def _filters(self, study):
        filters = []
        allowed = listings.allowed_platform_ids(study, self.platform)
        if allowed is not None:
            if not allowed:
                raise ValueError(
                    "the allow-list is empty: no one approved in the qualification, no workers.allow"
                )
            filters.append({"filter_id": "custom_allowlist", "selected_values": allowed})
        blocked = listings.excluded_platform_ids(study, self.platform)
        if blocked:
            filters.append({"filter_id": "custom_blocklist", "selected_values": blocked})
        return filters

    def plan_publish(self, listing, *, user):
        return self._plan(
            study=listing.study, action=LedgerEntry.Action.PUBLISH, key=f"publish:{listing.external_id}",
            user=user, method="POST", path=f"/api/v1/studies/{listing.external_id}/transition/",
            body={"action": "PUBLISH"}, listing=listing,
        )  # fmt: skip

    def plan_stop(self, listing, *, user):
        return self._plan(
            study=listing.study, action=LedgerEntry.Action.STOP, key=f"stop:{listing.external_id}",
            user=user, method="POST", path=f"/api/v1/studies/{listing.external_id}/transition/",
            body={"action": "STOP"}, listing=listing,
        )  # fmt: skip

    def submissions(self, listing):
        work = listings.submitted_work(listing.study, self.platform)
        found = []
        for item in self._pages(f"/api/v1/submissions/?study={listing.external_id}&page_size={PAGE_SIZE}"):
            worker_id = item.get("participant_id") or item.get("participant") or ""
            status = item.get("status", "")
            found.append(
                Submission(
                    id=item["id"], worker_id=worker_id, status=status,
                    awaiting_review=status == AWAITING_REVIEW, assignment=work.get(worker_id),
                    completion_code=item.get("study_code") or item.get("entered_code") or "",
                )
            )  # fmt: skip
        return found

    def _pages(self, path):
        for _ in range(MAX_PAGES):
            page = self._send("GET", path)
            yield from page.get("results", [])
            path = self._same_origin(((page.get("_links") or {}).get("next") or {}).get("href"))
            if not path:
                return
        raise ledger.PlatformError(f"more than {MAX_PAGES} pages of submissions")

    def _same_origin(self, href):
        """A next-page link as a path on the API's own host: the token is never sent anywhere else."""
        if not href:
            return None
        url = httpx.URL(href)
        if url.is_relative_url:
            return href
        if (url.scheme, url.host, url.port) != (
            self.http.base_url.scheme,
            self.http.base_url.host,
            self.http.base_url.port,
        ):
            raise ledger.PlatformError("Prolific's next-page link points at another host; not followed")
        return url.raw_path.decode()

    def plan_approvals(self, listing, *, user):
        ledger.require_manager(user, listing.study)  # before reading the platform on their behalf
        matched, unmatched = approvable(self.submissions(listing), platform=self.platform)
        planned = []
        for submission in matched:
            planned.append(
                self._plan(
                    study=listing.study,
                    action=LedgerEntry.Action.APPROVE,
                    key=f"approve:{submission.id}",
                    user=user,
                    method="POST",
                    path=f"/api/v1/submissions/{submission.id}/transition/",
                    body={"action": "APPROVE"},
                    listing=listing,
                    worker=submission.assignment.worker,
                    assignment=submission.assignment,
                    target=submission.id,
                )  # fmt: skip
            )
        return planned, unmatched

    def plan_rejection(self, listing, submission, *, user, reason, category="OTHER"):
        reason = (reason or "").strip()
        if len(reason) < MIN_REJECTION_MESSAGE:
            raise ValueError(
                f"Prolific needs a rejection message of at least {MIN_REJECTION_MESSAGE} characters "
                f"(this one has {len(reason)}): say what was wrong, so the participant can understand it"
            )
        if category not in REJECTION_CATEGORIES:
            raise ValueError(f"the rejection category must be one of {', '.join(REJECTION_CATEGORIES)}")
        assignment = submission.assignment
        return self._plan(
            study=listing.study, action=LedgerEntry.Action.REJECT, key=f"reject:{submission.id}", user=user,
            method="POST", path=f"/api/v1/submissions/{submission.id}/transition/",
            body={"action": "REJECT", "message": reason, "rejection_category": category}, listing=listing,
            worker=assignment.worker if assignment else None, assignment=assignment, target=submission.id,
            reason=reason,
        )  # fmt: skip

    def plan_bonus(self, listing, worker, *, user, amount, reason, rule):
        amount = Decimal(amount).quantize(Decimal("0.01"))
        return self._plan(
            study=listing.study, action=LedgerEntry.Action.BONUS,
            key=f"bonus:{listing.external_id}:{rule}:{worker.external_id}", user=user,
            method="POST", path="/api/v1/submissions/bonus-payments/",
            body={"study_id": listing.external_id, "csv_bonuses": f"{worker.external_id},{amount}\n"},
            listing=listing, worker=worker, amount=amount, currency=listing.currency, reason=reason,
            target=worker.external_id,
        )  # fmt: skip

    def plan_grant(self, listing, worker, *, user):
        raise ValueError(
            "Prolific has no qualifications: a study that requires the qualification takes the approved "
            "workers as its custom allow-list when its listing is made"
        )

    def plan_notify(self, listing, workers, *, user, subject, message):
        body_text = f"{subject}\n\n{message}" if subject else message
        return [
            self._plan(
                study=listing.study,
                action=LedgerEntry.Action.NOTIFY,
                key=f"notify:{listing.external_id}:{worker.external_id}:{_digest(body_text)}",
                user=user,
                method="POST",
                path="/api/v1/messages/",
                body={"recipient_id": worker.external_id, "study_id": listing.external_id, "body": body_text},
                listing=listing,
                worker=worker,
                reason=body_text,
                target=worker.external_id,
            )  # fmt: skip
            for worker in workers
        ]

    # --- sending ---

    def perform(self, entry):
        request = entry.request
        if entry.action == LedgerEntry.Action.BONUS:
            return self._pay_bonus(entry)
        answer = self._send(request["method"], request["path"], request.get("json"))
        if entry.action == LedgerEntry.Action.CREATE:
            self._record_listing(entry, answer)
        elif entry.action == LedgerEntry.Action.PUBLISH and entry.listing_id:
            Listing.objects.filter(pk=entry.listing_id).update(status=answer.get("status", "ACTIVE"))
        elif entry.action == LedgerEntry.Action.STOP and entry.listing_id:
            Listing.objects.filter(pk=entry.listing_id).update(status=answer.get("status", "AWAITING REVIEW"))
        return answer

    def _pay_bonus(self, entry):
        """Set up, keep the set-up's id on the row, then pay: a crash between the two leaves a
        row in 'sending' whose response names the unpaid set-up, never a second payment."""
        setup = self._send("POST", entry.request["path"], entry.request["json"])
        LedgerEntry.objects.filter(pk=entry.pk).update(response={"setup": setup})
        paid = self._send("POST", f"/api/v1/bulk-bonus-payments/{setup['id']}/pay/")
        return {"setup": setup, "pay": paid}

    def _record_listing(self, entry, answer):
        body = entry.request["json"]
        listing, _ = Listing.objects.get_or_create(
            platform=self.platform, sandbox=False, external_id=answer["id"],
            defaults={
                "study": entry.study, "title": body["name"], "places": body["total_available_places"],
                "reward": entry.amount, "currency": entry.currency, "status": answer.get("status", "UNPUBLISHED"),
                "created_by": entry.sent_by,
            },
        )  # fmt: skip
        LedgerEntry.objects.filter(pk=entry.pk).update(listing=listing)
        # Workers who finish are sent back to Prolific with the listing's completion code.
        code = body["completion_codes"][0]["code"]
        config = dict(entry.study.config or {})
        if not config.get("prolific_completion_url"):
            config["prolific_completion_url"] = COMPLETE_URL.format(code=code)
            type(entry.study).objects.filter(pk=entry.study_id).update(config=config)

    def _send(self, method, path, body=None):
        try:
            response = self.http.request(method, path, json=body)
        except httpx.HTTPError as error:
            raise ledger.PlatformError(
                f"Prolific could not be reached: {type(error).__name__}: {error}"
            ) from error
        try:
            answer = response.json() if response.content else {}
        except ValueError:
            answer = {"text": response.text[:2000]}
        if response.status_code >= 400:
            raise ledger.PlatformError(
                f"Prolific answered {response.status_code}: {_problem(answer)}", answer
            )
        return answer


def _problem(answer):
    """Prolific's error body ({"error": {"title", "detail"}}) as one line."""
    error = answer.get("error") if isinstance(answer, dict) else None
    if isinstance(error, dict):
        detail = error.get("detail")
        return f"{error.get('title', '')} {detail if detail is not None else ''}".strip()[:500]
    return str(answer)[:500]
