"""Benchmark: what the API's rate limits add to an API request, and that task saves pay nothing.

Serves a checkout with gunicorn (one sync worker, bench/statement_counting.py,
which puts each request's SQL statements and the worker's CPU time in headers)
on a fresh database, with the production settings and rates, and sends one
request at a time:

- `API, right token`: GET /api/ (the API's root: little work of its own, so
  what the rate limits add shows) with a superuser's token. The rate
  limits read the address's failed tokens and read and write the user's
  history (a list of timestamps, one per request within the minute, which
  grows with every request: the last 100 requests carry the longest list);
- `API, wrong token` (401, counted) until the address is refused, then
  `API, refused` (429, nothing written);
- `task save`: a worker's save (POST /api/task/<token>/annotations/), which
  is not a DRF view and should cost the same before and after.

For each it prints the statements per request (BEGIN and COMMIT included),
the worker's CPU time per request (`time.process_time` in the worker, around
the application), and the wall-clock time at the client.

`--checkout DIR` serves another checkout (a `git worktree` of the commit
before a change) the same way; `--broker URL` sets CELERY_BROKER_URL, with
which the rate limits count on the broker's Redis. Counts in Redis outlive
the database, so each run comes from an address of its own (the server
trusts one proxy's X-Forwarded-For) and first deletes its user's count.

    .venv/bin/python bench/api_requests.py [--requests 1000] [--checkout DIR]
        [--database-url sqlite:////tmp/falte_bench_api.sqlite3] [--broker redis://127.0.0.1:6379/0]
"""

import argparse
import http.client
import json
import secrets
import signal
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

import redis

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.task_saves import bench_env, fresh_database, manage, write_bundle  # noqa: E402

FAILED_TOKENS = 30  # the production rate: 30 a minute per address


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_server(env, port, checkout, log):
    """gunicorn with one sync worker; its output (a warning for each 401 and 429) goes to `log`."""
    server = subprocess.Popen(
        [str(Path(sys.executable).parent / "gunicorn"), "falte_site.wsgi", "--workers", "1",
         "--bind", f"127.0.0.1:{port}", "--log-level", "warning",
         "--config", str(ROOT / "bench" / "statement_counting.py")],
        env=env, cwd=checkout, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    for _ in range(300):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return server
        except OSError:
            time.sleep(0.1)
    server.kill()
    raise SystemExit("gunicorn did not listen within 30 s")


def send(port, method, path, headers, body=None):
    """(status, statements, worker CPU µs, wall ms) of one request on a connection of its own."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    started = time.perf_counter()
    connection.request(method, path, body=body, headers=headers)
    response = connection.getresponse()
    response.read()
    wall = (time.perf_counter() - started) * 1000
    connection.close()
    return (
        response.status,
        int(response.getheader("X-Bench-Statements")),
        int(response.getheader("X-Bench-CPU-us")),
        wall,
    )


def describe(name, answers):
    statuses = sorted({status for status, *_ in answers})
    statements = [n for _, n, _, _ in answers]
    cpu = [us / 1000 for _, _, us, _ in answers]
    wall = sorted(ms for *_, ms in answers)
    print(f"  {name:<34} {len(answers):>5} x {'/'.join(map(str, statuses)):<7} "
          f"statements {statistics.median(statements):>4.0f} (max {max(statements)})   "
          f"worker CPU {statistics.mean(cpu):6.2f} ms (median {statistics.median(cpu):.2f})   "
          f"wall {statistics.mean(wall):6.2f} ms (median {statistics.median(wall):.2f}, "
          f"p95 {wall[int(0.95 * (len(wall) - 1))]:.2f})")  # fmt: skip


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=1000, help="API requests with a right token")
    parser.add_argument("--saves", type=int, default=300)
    parser.add_argument("--database-url", default="sqlite:////tmp/falte_bench_api.sqlite3")
    parser.add_argument(
        "--broker", default="", help="CELERY_BROKER_URL (the rate limits then count in Redis)"
    )
    parser.add_argument("--checkout", type=Path, default=ROOT, help="the project checkout to serve")
    args = parser.parse_args()
    checkout = args.checkout.resolve()
    commit = subprocess.run(["git", "-C", str(checkout), "log", "-1", "--format=%h %s"],
                            capture_output=True, text=True).stdout.strip()  # fmt: skip
    # The production rates and the default cache of the set-up measured, whatever the shell says.
    env = {name: value for name, value in bench_env(args.database_url).items()
           if name not in {"CACHE_URL", "CELERY_BROKER_URL"} and not name.startswith("API_THROTTLE_")}  # fmt: skip
    if args.broker:
        env["CELERY_BROKER_URL"] = args.broker
    env["NUM_PROXIES"] = "1"
    address = f"198.51.100.{secrets.randbelow(254) + 1}"
    env["DJANGO_SUPERUSER_PASSWORD"] = secrets.token_urlsafe(16)
    fresh_database(args.database_url)
    manage(env, "migrate", "-v", "0", checkout=checkout)
    manage(env, "createsuperuser", "--no-input", "--username", "bench", "--email", "bench@example.org",
           capture=True, checkout=checkout)  # fmt: skip
    token = manage(env, "drf_create_token", "bench", capture=True, checkout=checkout).split()[2]
    bundle = ROOT / "bench" / "out" / "api-bundle"
    write_bundle(bundle, 1, max(40, args.saves // 5 + 2))
    manage(env, "import_study", str(bundle), capture=True, checkout=checkout)
    assigned = manage(env, "assign", "bench-saves", "--workers", "w0", capture=True, checkout=checkout)
    task_token = assigned.split("\t")[2].split("/")[2]
    if args.broker:
        user = manage(env, "shell", "-v", "0", "-c", "from django.contrib.auth.models import User; "
                      "print(User.objects.get(username='bench').pk)", capture=True, checkout=checkout).strip()  # fmt: skip
        redis.Redis.from_url(args.broker).delete(f"falte-cache:1:throttle_user_{user}")

    port = free_port()
    log = ROOT / "bench" / "out" / "api_requests-server.log"
    server = start_server(env, port, checkout, log.open("wb"))
    settings = ("SQLite" if args.database_url.startswith("sqlite:") else "PostgreSQL") + (
        f", broker {args.broker}" if args.broker else ", no broker"
    )
    print(f"checkout {checkout} at {commit}\ngunicorn, 1 sync worker; {settings}; its output in {log}")
    try:
        right = [send(port, "GET", "/api/", {"Authorization": f"Token {token}", "X-Forwarded-For": address})
                 for _ in range(args.requests)]  # fmt: skip
        wrong = [send(port, "GET", "/api/", {"Authorization": f"Token {secrets.token_hex(20)}", "X-Forwarded-For": address})
                 for _ in range(2 * FAILED_TOKENS)]  # fmt: skip
        # A CSRF cookie of the client's own making: Django checks that the header repeats it,
        # so no page (and no collectstatic) is needed before the saves.
        csrf = secrets.token_hex(16)
        headers = {"Cookie": f"csrftoken={csrf}", "X-CSRFToken": csrf, "Content-Type": "application/json"}
        saves = [
            send(port, "POST", f"/api/task/{task_token}/annotations/", headers, json.dumps(
                {"client_id": f"s{number}", "category": "CharE", "segment": 0, "start": 0, "end": 4, "text": "Anna"}))
            for number in range(args.saves)
        ]  # fmt: skip
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
    describe("API, right token: all", right)
    describe("API, right token: first 100", right[:100])
    describe("API, right token: last 100", right[-100:])
    describe("API, wrong token (counted)", [answer for answer in wrong if answer[0] == 401])
    describe("API, wrong token (refused)", [answer for answer in wrong if answer[0] == 429])
    describe("task save", saves)
    failed = [status for status, *_ in right + saves if status >= 400]
    if failed or [status for status, *_ in wrong] != [401] * FAILED_TOKENS + [429] * FAILED_TOKENS:
        sys.exit(f"FAILED: unexpected statuses ({len(failed)} failed right-token requests or saves)")


if __name__ == "__main__":
    main()
