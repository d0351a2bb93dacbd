"""Benchmark: 50 simulated workers saving annotations against gunicorn (PostgreSQL or SQLite).

Issue 3 targets: p95 under 100 ms and no errors for the saves; and the
server time of the annotation page of a 40-segment document with 200
annotations. Besides wall-clock latency it prints the CPU time the server
processes (gunicorn master and workers, read from /proc) spent per request,
the CPU time of PostgreSQL's backends of the benchmark's database (from
/proc too), and the SQL statements each save sent, BEGIN and COMMIT
included (bench/statement_counting.py, a gunicorn configuration, puts them
in a response header). It exits non-zero when any request failed (no
answer, a 4xx or a 5xx: every request it sends is valid), so a run can gate
a change.

Each simulated worker opens its task page (for the CSRF cookie), then adds
annotations one after another with a think time between saves (uniform
1-5 s: a very fast human; real annotators take longer), removes every fifth one and moves on through the
segments. A second, closed-loop phase (no think time) gives the capacity; a
third sends saves only, closed loop, so its CPU per request is per save; a
fourth removes those saves and a fifth moves back and forth between two
segments, closed loop too, so their CPU per request is per remove and per move.
Each phase prints, for each kind of request (add, remove, move), its count,
latency, SQL statements and the CPU the worker spent in the application
(`X-Bench-CPU-us`, beside the whole server's CPU from /proc).

`--checkout DIR` serves another checkout of the project (e.g. a `git worktree`
of the commit before a change) with this script, so that the two are measured
alike; run the two alternately.

    .venv/bin/python bench/task_saves.py [--workers 50] [--saves 30]
        [--think 1,5] [--database-url sqlite:////tmp/falte_bench_saves.sqlite3] [--checkout DIR]

The human-paced load of the performance issue (500 workers, one save every ~5 s):

    .venv/bin/python bench/task_saves.py --workers 500 --saves 6 --think 4,6
"""

import argparse
import http.client
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.import_bundle import fresh_database as fresh_postgres_database  # noqa: E402
from bench.process_cpu import PostgresBackendCPU, cpu_seconds  # noqa: E402

PORT = 8765
SEGMENT = "Anna met Ben at the old mill near the river. They talked until the lamps were lit."


def write_bundle(directory, documents, segments):
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "study.yaml").write_text(
        "slug: bench-saves\ntitle: Save benchmark\nprotocol: span\nstatus: open\n"
        "annotators_per_document: 1\ntaxonomy:\n  slug: bench-saves\n  name: Bench\n  categories:\n"
        "    - {key: CharE, label: New character}\n    - {key: RepE, label: Repetition, kind: paired}\n"
    )
    with open(directory / "documents.jsonl", "w") as handle:
        for number in range(documents):
            handle.write(json.dumps({"id": f"d{number}", "segments": [SEGMENT] * segments}) + "\n")


def fresh_database(url):
    """An empty database: a new PostgreSQL database, or no SQLite file (migrate makes it)."""
    if url.startswith("sqlite:"):
        path = Path(url.removeprefix("sqlite://"))
        for leftover in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
            leftover.unlink(missing_ok=True)
    else:
        fresh_postgres_database(url)


def engine_name(url):
    return "SQLite" if url.startswith("sqlite:") else "PostgreSQL"


def start_server(env, workers=2, checkout=ROOT):
    server = subprocess.Popen(
        [str(Path(sys.executable).parent / "gunicorn"), "falte_site.wsgi", "--workers", str(workers),
         "--bind", f"127.0.0.1:{PORT}", "--log-level", "warning",
         "--config", str(ROOT / "bench" / "statement_counting.py")],
        env=env, cwd=checkout,
    )  # fmt: skip
    for _ in range(100):
        try:
            connection = http.client.HTTPConnection("127.0.0.1", PORT, timeout=1)
            connection.request("GET", "/admin/login/")
            connection.getresponse().read()
            break
        except OSError:
            time.sleep(0.1)
    return server


def bench_env(database_url):
    return dict(os.environ, DATABASE_URL=database_url, READ_DOT_ENV="0", DEBUG="0",
                SECRET_KEY="bench-only-key-" + "x" * 40, ALLOWED_HOSTS="127.0.0.1",
                SECURE_SSL_REDIRECT="0", SESSION_COOKIE_SECURE="0", CSRF_COOKIE_SECURE="0",
                SECURE_HSTS_SECONDS="0", CONN_MAX_AGE="60")  # fmt: skip


def manage(env, *args, capture=False, checkout=ROOT):
    result = subprocess.run(
        [sys.executable, "manage.py", *args], env=env, cwd=checkout, check=True,
        capture_output=capture, text=True,
    )  # fmt: skip
    return result.stdout


class Session:
    """One simulated worker's HTTP session: cookie jar of one CSRF cookie."""

    def __init__(self, token):
        self.token = token
        self.cookie = ""
        self.csrf = ""
        self.statements = 0  # of the last request, as the server counted them
        self.cpu_us = 0  # the worker's CPU time in the application for the last request

    def request(self, method, path, body=None):
        connection = http.client.HTTPConnection("127.0.0.1", PORT, timeout=30)
        headers = {"Cookie": self.cookie, "X-CSRFToken": self.csrf}
        if body is not None:
            headers["Content-Type"] = "application/json"
        started = time.perf_counter()
        try:
            connection.request(
                method, path, body=json.dumps(body) if body is not None else None, headers=headers
            )
            response = connection.getresponse()
            payload = response.read()
        except OSError as problem:  # refused, reset or timed out: the server gave no answer
            connection.close()
            return 0, time.perf_counter() - started, str(problem).encode()
        elapsed = time.perf_counter() - started
        self.statements = int(response.getheader("X-Bench-Statements") or 0)
        self.cpu_us = int(response.getheader("X-Bench-CPU-us") or 0)
        for name, value in response.getheaders():
            if name.lower() == "set-cookie" and value.startswith("csrftoken="):
                self.csrf = value.split(";", 1)[0].split("=", 1)[1]
                self.cookie = f"csrftoken={self.csrf}"
        connection.close()
        return response.status, elapsed, payload

    def open_page(self):
        status, elapsed, _ = self.request("GET", f"/task/{self.token}/annotate/")
        return status, elapsed


def simulate(session, saves, think, results, seed, mode="mixed", prefix=""):
    """One simulated worker's requests. `mode`: "mixed" adds `saves` spans, removes every fifth
    and moves on a segment after it; "saves" only adds; "removes" removes the spans the "saves"
    phase added (prefix "s"); "moves" moves between the first two segments."""
    rng = random.Random(seed)
    api = f"/api/task/{session.token}"
    segment = 0

    def send(kind, method, path, body=None):
        status, elapsed, _ = session.request(method, path, body)
        results.append((kind, status, elapsed, session.statements, session.cpu_us))

    for number in range(saves):
        if think:
            time.sleep(rng.uniform(*think))
        if mode == "removes":
            send("remove", "DELETE", f"{api}/annotations/s{session.token[:8]}-{number}/")
            continue
        if mode == "moves":
            send("move", "POST", f"{api}/move/", {"segment": (number + 1) % 2})
            continue
        body = {"client_id": f"{prefix}{session.token[:8]}-{number}", "category": "CharE", "segment": segment,
                "start": 0, "end": 4, "text": "Anna"}  # fmt: skip
        send("add", "POST", f"{api}/annotations/", body)
        if mode == "mixed" and number % 5 == 4:
            send("remove", "DELETE", f"{api}/annotations/{body['client_id']}/")
            segment += 1
            send("move", "POST", f"{api}/move/", {"segment": segment})


def run_phase(server, postgres, tokens, saves, think, mode="mixed", prefix=""):
    """Run the simulated workers; return (results, wall seconds, web CPU seconds, PostgreSQL CPU
    seconds or None). The pages are opened before the clocks start: only the API calls count."""
    sessions = [Session(token) for token in tokens]
    for session in sessions:
        session.open_page()
    database_cpu = PostgresBackendCPU(postgres) if postgres else None
    if database_cpu:
        database_cpu.start()
    cpu_before = cpu_seconds(server.pid)
    results, threads = [], []
    started = time.perf_counter()
    for number, session in enumerate(sessions):
        thread = threading.Thread(
            target=simulate, args=(session, saves, think, results, number, mode, prefix)
        )
        threads.append(thread)
        thread.start()
    for thread in threads:
        thread.join()
    seconds = time.perf_counter() - started
    cpu = cpu_seconds(server.pid) - cpu_before
    return results, seconds, cpu, database_cpu.stop() if database_cpu else None


def is_error(status):
    # 0 is no answer; every call of this benchmark is valid, so any 4xx is a failure too.
    return status == 0 or status >= 400


def percentile(values, share):
    ordered = sorted(values)
    return ordered[int(share * (len(ordered) - 1))]


def describe(name, results, seconds, cpu, database_cpu):
    """Print the phase's figures; return its number of failed requests."""
    latencies = [result[2] * 1000 for result in results]
    errors = sum(1 for result in results if is_error(result[1]))
    statuses = ", ".join(f"{status}: {count}" for status, count in sorted(
        Counter(result[1] for result in results if is_error(result[1])).items()))  # fmt: skip
    database = "" if database_cpu is None else f", PostgreSQL CPU {1000 * database_cpu / len(results):.2f} ms"
    print(f"{name}: {len(results)} requests in {seconds:.1f} s = {len(results) / seconds:.0f} req/s; "
          f"p50 {statistics.median(latencies):.1f} ms, p95 {percentile(latencies, 0.95):.1f} ms, "
          f"max {max(latencies):.1f} ms; per request: web CPU {1000 * cpu / len(results):.2f} ms{database}; "
          f"errors {errors} of {len(results)}" + (f" ({statuses})" if statuses else "") +
          f"; machine load average {os.getloadavg()[0]:.1f}")  # fmt: skip
    for kind, label in (("add", "saves"), ("remove", "removes"), ("move", "moves")):
        of_kind = [
            (elapsed * 1000, statements, cpu_us) for k, _, elapsed, statements, cpu_us in results if k == kind
        ]
        if not of_kind:
            continue
        statements = Counter(n for _, n, _ in of_kind)
        print(f"  {label}: {len(of_kind)}, p50 {statistics.median(ms for ms, _, _ in of_kind):.1f} ms, "
              f"p95 {percentile([ms for ms, _, _ in of_kind], 0.95):.1f} ms; SQL statements per request "
              f"{sum(n for _, n, _ in of_kind) / len(of_kind):.2f} on average, max {max(statements)} "
              f"({', '.join(f'{n}: {count}' for n, count in sorted(statements.items()))}); "
              f"application CPU {statistics.mean(us for _, _, us in of_kind) / 1000:.2f} ms per request")  # fmt: skip
    return errors


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=50)
    parser.add_argument("--saves", type=int, default=30)
    parser.add_argument(
        "--think", default="1,5", help="paced phase: think time between saves, uniform MIN,MAX seconds"
    )
    parser.add_argument("--database-url", default="postgres://postgres@127.0.0.1:5432/falte_bench_saves")
    parser.add_argument("--checkout", type=Path, default=ROOT, help="the project checkout to serve")
    args = parser.parse_args()
    checkout = args.checkout.resolve()
    commit = subprocess.run(["git", "-C", str(checkout), "log", "-1", "--format=%h %s"],
                            capture_output=True, text=True).stdout.strip()  # fmt: skip
    print(f"checkout {checkout} at {commit}")

    env = bench_env(args.database_url)
    fresh_database(args.database_url)
    # Pages name hashed static files once the checkout serves them itself (WhiteNoise); each
    # checkout gets its own collected copy, which older checkouts simply ignore.
    env["STATIC_ROOT"] = str(ROOT / "bench" / "out" / f"static-{checkout.name}")
    manage(env, "collectstatic", "--no-input", "-v", "0", checkout=checkout)
    manage(env, "migrate", "-v", "0", checkout=checkout)
    bundle = ROOT / "bench" / "out" / "saves-bundle"
    segments = max(40, args.saves // 5 + 2)
    write_bundle(bundle, args.workers + 1, segments)
    manage(env, "import_study", str(bundle), checkout=checkout)
    workers = ",".join(f"sim{n}" for n in range(args.workers + 1))
    lines = manage(
        env,
        "assign",
        "bench-saves",
        "--workers",
        workers,
        "--per-document",
        "1",
        capture=True,
        checkout=checkout,
    )
    tokens = [line.split("\t")[2].split("/")[2] for line in lines.strip().splitlines()]
    page_token, tokens = tokens[0], tokens[1:]

    think_low, think_high = (float(value) for value in args.think.split(","))
    server = start_server(env, checkout=checkout)
    postgres = None if args.database_url.startswith("sqlite:") else args.database_url.rsplit("/", 1)[1]
    errors = 0
    try:
        print(f"gunicorn: 2 sync workers; {engine_name(args.database_url)}; "
              f"{args.workers} simulated workers x {args.saves} saves")  # fmt: skip
        for name, saves, think, mode in [
            (
                f"paced (think time {think_low:g}-{think_high:g} s)",
                args.saves,
                (think_low, think_high),
                "mixed",
            ),
            ("closed loop (no think time, capacity)", args.saves // 3, None, "mixed"),
            ("saves only, closed loop", args.saves // 3, None, "saves"),
            ("removes only (of those saves), closed loop", args.saves // 3, None, "removes"),
            ("moves only, closed loop", args.saves // 3, None, "moves"),
        ]:
            measured = run_phase(server, postgres, tokens, saves, think, mode, prefix=name[0])
            errors += describe(name, *measured)

        page = Session(page_token)
        # 200 annotations on a 40-segment document, then time the page.
        api = f"/api/task/{page_token}"
        page.open_page()
        for segment in range(1, 40):
            errors += is_error(page.request("POST", f"{api}/move/", {"segment": segment})[0])
        for number in range(200):
            errors += is_error(page.request("POST", f"{api}/annotations/", {"client_id": f"p{number}", "category": "CharE",
                               "segment": number % 40, "start": 0, "end": 4, "text": "Anna"})[0])  # fmt: skip
        loads = [page.open_page() for _ in range(30)]
        errors += sum(is_error(status) for status, _ in loads)
        timings = sorted(elapsed * 1000 for _, elapsed in loads)
        print(f"annotation page, 40 segments + 200 annotations: p50 {statistics.median(timings):.1f} ms, "
              f"p95 {timings[int(0.95 * 29)]:.1f} ms over 30 loads")  # fmt: skip
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
    if errors:
        sys.exit(f"FAILED: {errors} requests failed")


if __name__ == "__main__":
    main()
