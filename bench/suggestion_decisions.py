"""Benchmark: what a decision on a suggestion costs (reject, accept, undo), one request at a time.

Serves a checkout with gunicorn (one sync worker, bench/statement_counting.py,
which puts each request's SQL statements and the worker's CPU time in headers)
on a fresh database: the span study of bench/task_saves.py with assistance,
one document per simulated worker, every worker in the suggestion arm, and
`--suggestions` suggestions in each document's first segment. Each worker then
decides on each suggestion in turn: reject it, take the reject back, accept it
(the suggested span as it is), take that back too, so every request changes
something. Prints, per kind of request, the statements (BEGIN and COMMIT
included), the worker's CPU time per request (`time.process_time` around the
application) and the wall-clock time at the client, and the server's peak RSS.

`--checkout DIR` serves another checkout (a `git worktree` of the commit before
a change) the same way: the set-up uses only what both have.

    .venv/bin/python bench/suggestion_decisions.py [--workers 20] [--suggestions 5] [--checkout DIR]
        [--database-url sqlite:////tmp/falte_bench_decisions.sqlite3]
"""

import argparse
import http.client
import json
import secrets
import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.api_requests import describe, free_port, send, start_server  # noqa: E402
from bench.task_saves import SEGMENT, bench_env, fresh_database, manage, write_bundle  # noqa: E402

# Words of the bundle's segment, each a suggestion: (start, end).
WORDS = [(0, 4), (5, 8), (9, 12), (20, 23), (24, 28), (29, 33), (38, 43), (50, 56), (67, 72)]

SET_UP = """
import json
from annotations.models import Assignment
from protocols.span.assistance.sources import SuggestedSpan, suggestions_replace
from studies.models import Study
study = Study.objects.get(slug="bench-saves")
study.config = {**study.config, "assistance": {"share": 0.5}}
study.save(update_fields=["config"])
assignments = list(Assignment.objects.filter(study=study).select_related("document"))
Assignment.objects.filter(study=study).update(arm="suggestions")
spans = [SuggestedSpan(a.document_id, 0, start, end, "CharE") for a in assignments for start, end in WORDS]
suggestions_replace(study=study, spans=spans, source="bench")
from protocols.span.models import Suggestion
print(json.dumps({a.token: list(Suggestion.objects.filter(document_id=a.document_id).order_by("position")
                                .values_list("pk", "start", "end")) for a in assignments}))
"""

# --reuse: the database of an earlier run, its decisions and annotations removed.
READ_BACK = """
import json
from annotations.models import Assignment
from protocols.span.models import ErrorAnnotation, Suggestion, SuggestionDecision
SuggestionDecision.objects.all().delete()
ErrorAnnotation.objects.all().delete()
assignments = list(Assignment.objects.filter(study__slug="bench-saves"))
print(json.dumps({a.token: list(Suggestion.objects.filter(document_id=a.document_id).order_by("position")
                                .values_list("pk", "start", "end")) for a in assignments}))
"""


def warm_up(port, token):
    """One request, not measured, that waits for the worker to have started (a loaded machine may
    take longer than a measured request's timeout)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
    connection.request("GET", f"/api/task/{token}/state/")
    connection.getresponse().read()
    connection.close()


def peak_rss_mb(pid):
    """The peak RSS of gunicorn's worker (the master's child), from /proc, in MB."""
    children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    peaks = []
    for child in children:
        for line in Path(f"/proc/{child}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                peaks.append(int(line.split()[1]) / 1024)
    return max(peaks, default=0.0)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=20)
    parser.add_argument("--suggestions", type=int, default=5, choices=range(1, len(WORDS) + 1))
    parser.add_argument("--database-url", default="sqlite:////tmp/falte_bench_decisions.sqlite3")
    parser.add_argument("--checkout", type=Path, default=ROOT, help="the project checkout to serve")
    parser.add_argument("--reuse", action="store_true", help="the database of an earlier run, set up already")
    args = parser.parse_args()
    checkout = args.checkout.resolve()
    commit = subprocess.run(["git", "-C", str(checkout), "log", "-1", "--format=%h %s"],
                            capture_output=True, text=True).stdout.strip()  # fmt: skip
    env = {name: value for name, value in bench_env(args.database_url).items()
           if name not in {"CACHE_URL", "CELERY_BROKER_URL"} and not name.startswith("API_THROTTLE_")}  # fmt: skip
    words = WORDS[: args.suggestions]
    if args.reuse:
        suggestions = json.loads(
            manage(env, "shell", "-v", "0", "-c", READ_BACK, capture=True, checkout=checkout)
        )
    else:
        fresh_database(args.database_url)
        manage(env, "migrate", "-v", "0", checkout=checkout)
        bundle = ROOT / "bench" / "out" / "decisions-bundle"
        write_bundle(bundle, args.workers, 2)
        manage(env, "import_study", str(bundle), capture=True, checkout=checkout)
        names = ",".join(f"sim{n}" for n in range(args.workers))
        manage(env, "assign", "bench-saves", "--workers", names, "--per-document", "1",
               capture=True, checkout=checkout)  # fmt: skip
        code = f"WORDS = {words!r}\n{SET_UP}"
        suggestions = json.loads(manage(env, "shell", "-v", "0", "-c", code, capture=True, checkout=checkout))

    port = free_port()
    log = ROOT / "bench" / "out" / "suggestion_decisions-server.log"
    server = start_server(env, port, checkout, log.open("wb"))
    print(f"checkout {checkout} at {commit}\ngunicorn, 1 sync worker; "
          f"{'SQLite' if args.database_url.startswith('sqlite:') else 'PostgreSQL'}; "
          f"{args.workers} workers x {len(words)} suggestions; its output in {log}")  # fmt: skip
    warm_up(port, next(iter(suggestions)))
    csrf = secrets.token_hex(16)
    headers = {"Cookie": f"csrftoken={csrf}", "X-CSRFToken": csrf, "Content-Type": "application/json"}
    answers = {
        "reject": [],
        "undo a reject": [],
        "accept": [],
        "accept again (a retry)": [],
        "undo an accept": [],
    }
    try:
        for token, rows in suggestions.items():
            for number, (pk, start, end) in enumerate(rows):
                path = f"/api/task/{token}/suggestions/{pk}/"
                taken = {"client_id": f"s{number}", "category": "CharE", "segment": 0, "start": start,
                         "end": end, "text": SEGMENT[start:end], "comment": "", "paired": None}  # fmt: skip
                reject = json.dumps({"annotation": None, "seconds": 1.5})
                accept = json.dumps({"annotation": taken, "seconds": 2.5})
                answers["reject"].append(send(port, "POST", path, headers, reject))
                answers["undo a reject"].append(send(port, "DELETE", path, headers))
                answers["accept"].append(send(port, "POST", path, headers, accept))
                answers["accept again (a retry)"].append(send(port, "POST", path, headers, accept))
                answers["undo an accept"].append(send(port, "DELETE", path, headers))
        peak = peak_rss_mb(server.pid)
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
    for name, answered in answers.items():
        describe(name, answered)
    print(f"  gunicorn worker peak RSS {peak:.0f} MB")
    failed = [status for answered in answers.values() for status, *_ in answered if status >= 400]
    if failed:
        sys.exit(f"FAILED: {len(failed)} requests answered {sorted(set(failed))}")


if __name__ == "__main__":
    main()
