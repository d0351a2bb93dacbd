"""A local HTTP server that answers the Prolific endpoints the platform uses, as Prolific documents them.

Request and response shapes follow Prolific's API reference (Create a study,
Publish / transition a study, List submissions, Approve or reject a
submission, Set up bonuses, Pay bonuses, Send a message). It checks what
Prolific checks that matters here: the token, required fields, a rejection
message of at least 100 characters with a category, bonuses only for
participants of the study, transitions only from AWAITING REVIEW. Like
Prolific's, its Pay bonuses is not idempotent: each call pays again, so a
test can see a double payment if the platform ever sent one.

    with ProlificServer(token="t") as server:
        client = ProlificClient(base_url=server.url, token="t")
"""

import json
import re
import secrets
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

AWAITING_REVIEW = "AWAITING REVIEW"
REJECTION_CATEGORIES = {"TOO_QUICKLY", "TOO_SLOWLY", "FAILED_INSTRUCTIONS", "INCOMP_LONGITUDINAL",
                        "FAILED_CHECK", "LOW_EFFORT", "MALINGERING", "NO_CODE", "BAD_CODE", "NO_DATA",
                        "UNSUPP_DEVICE", "OTHER"}  # fmt: skip
STUDY_FIELDS = ("name", "description", "external_study_url", "completion_codes", "estimated_completion_time",
                "reward", "total_available_places")  # fmt: skip


def _id():
    return secrets.token_hex(12)  # Prolific's ids are 24 hex characters


class Refused(Exception):
    def __init__(self, status, title, detail):
        self.status, self.title, self.detail = status, title, detail


class ProlificServer:
    def __init__(self, token):
        self.token = token
        self.studies, self.submissions, self.bonus_setups = {}, {}, {}
        self.payments, self.messages, self.requests = [], [], []
        self.fail_next = []  # (status, body) answered instead of the next requests
        self.lock = threading.Lock()

    # --- what tests set up and read ---

    def add_submission(self, study_id, participant_id, status=AWAITING_REVIEW):
        submission_id = _id()
        self.submissions[submission_id] = {
            "id": submission_id, "participant_id": participant_id, "study_id": study_id, "status": status,
            "started_at": "2026-11-25T10:00:00Z", "completed_at": "2026-11-25T10:30:00Z", "study_code": "C0DE",
        }  # fmt: skip
        return submission_id

    def calls(self, method=None, prefix=""):
        return [r for r in self.requests if (method is None or r[0] == method) and r[1].startswith(prefix)]

    # --- the endpoints ---

    def handle(self, method, path, query, body):
        if self.fail_next:
            status, answer = self.fail_next.pop(0)
            return status, answer
        routes = [
            ("POST", r"/api/v1/studies/", self.create_study),
            ("POST", r"/api/v1/studies/(\w+)/transition/", self.transition_study),
            ("GET", r"/api/v1/submissions/", self.list_submissions),
            ("POST", r"/api/v1/submissions/(\w+)/transition/", self.transition_submission),
            ("POST", r"/api/v1/submissions/bonus-payments/", self.set_up_bonuses),
            ("POST", r"/api/v1/bulk-bonus-payments/(\w+)/pay/", self.pay_bonuses),
            ("POST", r"/api/v1/messages/", self.send_message),
        ]
        for verb, pattern, view in routes:
            match = re.fullmatch(pattern, path)
            if verb == method and match:
                return view(*match.groups(), query=query, body=body)
        raise Refused(404, "Not found", f"{method} {path}")

    def create_study(self, query, body):
        missing = [name for name in STUDY_FIELDS if name not in body]
        if missing:
            raise Refused(400, "Bad request", {name: ["This field is required."] for name in missing})
        if (
            body.get("prolific_id_option") == "url_parameters"
            and "{{%PROLIFIC_PID%}}" not in body["external_study_url"]
        ):
            raise Refused(400, "Bad request", {"external_study_url": ["Must contain {{%PROLIFIC_PID%}}."]})
        for name in ("reward", "estimated_completion_time", "total_available_places"):
            if not isinstance(body[name], int) or body[name] < 1:
                raise Refused(400, "Bad request", {name: ["A positive integer is required."]})
        codes = body["completion_codes"]
        if not codes or not all({"code", "code_type", "actions"} <= set(code) for code in codes):
            raise Refused(
                400, "Bad request", {"completion_codes": ["Each code needs code, code_type, actions."]}
            )
        for rule in body.get("filters", []):
            if not isinstance(rule.get("selected_values"), list) or "filter_id" not in rule:
                raise Refused(
                    400, "Bad request", {"filters": ["filter_id and selected_values are required."]}
                )
        study = {**body, "id": _id(), "status": "UNPUBLISHED"}
        self.studies[study["id"]] = study
        return 201, study

    def transition_study(self, study_id, query, body):
        study = self._get(self.studies, study_id)
        if body.get("action") == "STOP":
            # Prolific stops an active study: no new participant; the ones who started may finish.
            if study["status"] != "ACTIVE":
                raise Refused(400, "Bad request", f"Cannot stop a study in {study['status']}")
            study["status"] = "AWAITING REVIEW"
            return 200, study
        if body.get("action") != "PUBLISH":
            raise Refused(400, "Bad request", {"action": ["Unknown action."]})
        study["status"] = "ACTIVE"
        return 200, study

    def list_submissions(self, query, body):
        study_id = query.get("study", [""])[0]
        size = int(query.get("page_size", ["20"])[0])
        page = int(query.get("page", ["1"])[0])
        rows = [s for s in self.submissions.values() if s["study_id"] == study_id]
        chunk = rows[(page - 1) * size : page * size]
        more = page * size < len(rows)
        href = f"/api/v1/submissions/?study={study_id}&page_size={size}&page={page + 1}" if more else None
        return 200, {"results": chunk, "_links": {"next": {"href": href}}, "meta": {"count": len(rows)}}

    def transition_submission(self, submission_id, query, body):
        submission = self._get(self.submissions, submission_id)
        action = body.get("action")
        target = {"APPROVE": "APPROVED", "REJECT": "REJECTED"}.get(action)
        if target is None:
            raise Refused(400, "Bad request", {"action": ["Must be APPROVE or REJECT."]})
        if action == "REJECT":
            if len(body.get("message") or "") < 100:
                raise Refused(
                    400, "Bad request", {"message": ["Ensure this field has at least 100 characters."]}
                )
            if body.get("rejection_category") not in REJECTION_CATEGORIES:
                raise Refused(400, "Bad request", {"rejection_category": ["Not a valid choice."]})
        if submission["status"] == target:
            return 200, submission  # documented: the same request twice is ignored
        if submission["status"] != AWAITING_REVIEW:
            raise Refused(400, "Bad request", f"Cannot transition from {submission['status']}")
        submission["status"] = target
        return 200, submission

    def set_up_bonuses(self, query, body):
        study_id = body.get("study_id")
        participants = {s["participant_id"] for s in self.submissions.values() if s["study_id"] == study_id}
        lines = [line.split(",") for line in (body.get("csv_bonuses") or "").strip().splitlines()]
        wrong = [line[0] for line in lines if len(line) != 2 or line[0] not in participants]
        if not lines or wrong:
            raise Refused(400, "Bad request", f"Invalid participant or submission ids: {wrong}")
        amount = sum(round(float(value) * 100) for _, value in lines)
        setup = {"id": _id(), "study": study_id, "amount": amount, "fees": round(amount * 0.33),
                 "total_amount": amount + round(amount * 0.33), "lines": lines}  # fmt: skip
        self.bonus_setups[setup["id"]] = setup
        return 201, {key: value for key, value in setup.items() if key != "lines"}

    def pay_bonuses(self, setup_id, query, body):
        setup = self._get(self.bonus_setups, setup_id)
        for participant_id, value in setup["lines"]:
            self.payments.append((participant_id, value))
        return 202, {}

    def send_message(self, query, body):
        if not body.get("recipient_id") or not body.get("body"):
            raise Refused(400, "Bad request", {"body": ["This field is required."]})
        self.messages.append(body)
        return 201, {}

    def _get(self, table, key):
        if key not in table:
            raise Refused(404, "Not found", f"No object with id {key}")
        return table[key]

    # --- the HTTP side ---

    def __enter__(self):
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def _serve(self, method):
                parts = urlsplit(self.path)
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                body = json.loads(raw) if raw else {}
                with server.lock:
                    server.requests.append((method, parts.path, body))
                    if self.headers.get("Authorization") != f"Token {server.token}":
                        status, answer = 401, _error(401, "Authentication failed", "Invalid token.")
                    else:
                        try:
                            status, answer = server.handle(method, parts.path, parse_qs(parts.query), body)
                        except Refused as refusal:
                            status, answer = (
                                refusal.status,
                                _error(refusal.status, refusal.title, refusal.detail),
                            )
                data = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                self._serve("GET")

            def do_POST(self):
                self._serve("POST")

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()


def _error(status, title, detail):
    """Prolific's error body."""
    return {"error": {"status": status, "error_code": status * 100, "title": title, "detail": detail}}
