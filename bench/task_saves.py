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
from bench.process_cpu import PostgresBackendCPU, cpu_seconds, peak_rss_mb  # noqa: E402

PORT = 8765
# --keep-alive: each simulated worker keeps its HTTP connection between requests, as a browser (or
# a proxy reusing its connections to the node) does; by default it opens one per request.
KEEP_ALIVE = False
# --reuse-database: a tag in the client ids of this run, so that its saves are new ones there too.
RUN_TAG = ""
# paced, closed (mixed closed loop), saves (saves only, closed loop), bare (the same saves from a bare
# psycopg loop, PostgreSQL only), page (the annotation page with 200 annotations).
PHASES = ("paced", "closed", "saves", "removes", "moves", "bare", "page")
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


def import_saves_study(env, workers, saves, checkout=ROOT):
    """Import the open study `bench-saves` with one document per simulated worker, assign them;
    return the workers' task tokens."""
    bundle = ROOT / "bench" / "out" / "saves-bundle"
    write_bundle(bundle, workers, max(40, saves // 5 + 2))
    manage(env, "import_study", str(bundle), checkout=checkout)
    names = ",".join(f"sim{n}" for n in range(workers))
    lines = manage(env, "assign", "bench-saves", "--workers", names, "--per-document", "1",
                   capture=True, checkout=checkout)  # fmt: skip
    return [line.split("\t")[2].split("/")[2] for line in lines.strip().splitlines()]


def imported_tokens(env, checkout=ROOT):
    """The task tokens of the study `bench-saves` a previous run imported, in the order it assigned them."""
    read = (
        "from annotations.models import Assignment\n"
        "for token in Assignment.objects.filter(study__slug='bench-saves').order_by('pk')"
        ".values_list('token', flat=True): print(token)"
    )
    return manage(env, "shell", "--no-imports", "-c", read, capture=True, checkout=checkout).split()


def start_server(env, workers=2, checkout=ROOT, options=()):
    """gunicorn with `workers` workers (sync unless `options` say otherwise), once it answers."""
    server = subprocess.Popen(
        [str(Path(sys.executable).parent / "gunicorn"), "falte_site.wsgi", "--workers", str(workers),
         "--bind", f"127.0.0.1:{PORT}", "--log-level", "warning",
         "--config", str(ROOT / "bench" / "statement_counting.py"), *options],
        env=env, cwd=checkout,
    )  # fmt: skip
    # On a loaded machine gunicorn takes many seconds to import Django: wait up to a minute.
    for _ in range(600):
        try:
            connection = http.client.HTTPConnection("127.0.0.1", PORT, timeout=1)
            connection.request("GET", "/admin/login/")
            connection.getresponse().read()
            return server
        except OSError:
            time.sleep(0.1)
    server.kill()
    sys.exit(f"FAILED: gunicorn did not answer on port {PORT} within a minute")


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


STALE_CONNECTION = (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError)


class Session:
    """One simulated worker's HTTP session: cookie jar of one CSRF cookie, against `address`
    (host, port): the gunicorn this script starts, or a proxy (bench/cluster.py)."""

    def __init__(self, token, address=("127.0.0.1", PORT)):
        self.token = token
        self.address = address
        self.connection = None  # kept between requests with KEEP_ALIVE
        self.cookie = ""
        self.csrf = ""
        self.statements = 0  # of the last request, as the server counted them
        self.cpu_us = 0  # the worker's CPU time in the application for the last request

    def request(self, method, path, body=None):
        # http.client opens the kept connection again if the server closed it after its last answer.
        kept, self.connection = self.connection, None
        connection = kept or http.client.HTTPConnection(*self.address, timeout=30)
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
        # Refused, reset or timed out, or an answer cut off (a node that died while the proxy
        # passed its answer on): the server gave no answer the page could use.
        except (OSError, http.client.HTTPException) as problem:
            connection.close()
            if kept is not None and isinstance(problem, STALE_CONNECTION):
                # The server closed the kept connection while it was idle (its keep-alive timeout),
                # before reading this request: a browser sends it again on a new connection.
                return self.request(method, path, body)
            return 0, time.perf_counter() - started, str(problem).encode()
        elapsed = time.perf_counter() - started
        self.statements = int(response.getheader("X-Bench-Statements") or 0)
        self.cpu_us = int(response.getheader("X-Bench-CPU-us") or 0)
        for name, value in response.getheaders():
            if name.lower() == "set-cookie" and value.startswith("csrftoken="):
                self.csrf = value.split(";", 1)[0].split("=", 1)[1]
                self.cookie = f"csrftoken={self.csrf}"
        if KEEP_ALIVE:
            self.connection = connection
        else:
            connection.close()
        return response.status, elapsed, payload

    def open_page(self):
        status, elapsed, _ = self.request("GET", f"/task/{self.token}/annotate/")
        return status, elapsed


# The task page's save queue (static/worker/api.js): no answer or a 5xx is "not saved yet", tried
# again after these waits, the same request (a save keeps its client_id, so it lands once).
PAGE_BACKOFF_SECONDS = [1, 2, 4, 8, 10]


def send(session, method, path, body, results, kind, retry):
    """One operation of the page; with `retry`, sent again as the page does until it is answered.
    Every attempt goes into `results`; returns the last status."""
    failures = 0
    while True:
        status, elapsed, _ = session.request(method, path, body)
        results.append((kind, status, elapsed, session.statements, session.cpu_us))
        if not retry or (status != 0 and status < 500):
            return status
        time.sleep(PAGE_BACKOFF_SECONDS[min(failures, len(PAGE_BACKOFF_SECONDS) - 1)])
        failures += 1


def simulate(session, saves, think, results, seed, mode="mixed", prefix="", retry=False, ledger=None):
    """One simulated worker's requests. `mode`: "mixed" adds `saves` spans, removes every fifth
    and moves on a segment after it; "saves" only adds; "removes" removes the spans the "saves"
    phase added (prefix "s"); "moves" moves between the first two segments.

    With `retry`, failed requests are sent again like the page's queue does; `ledger`, if given,
    receives (operation, client_id, last status) for every add and remove."""
    rng = random.Random(seed)
    api = f"/api/task/{session.token}"
    segment = 0
    for number in range(saves):
        if think:
            time.sleep(rng.uniform(*think))
        if mode == "removes":
            path = f"{api}/annotations/s{RUN_TAG}{session.token[:8]}-{number}/"
            send(session, "DELETE", path, None, results, "remove", retry)
            continue
        if mode == "moves":
            send(session, "POST", f"{api}/move/", {"segment": (number + 1) % 2}, results, "move", retry)
            continue
        body = {"client_id": f"{prefix}{session.token[:8]}-{number}", "category": "CharE", "segment": segment,
                "start": 0, "end": 4, "text": "Anna"}  # fmt: skip
        status = send(session, "POST", f"{api}/annotations/", body, results, "add", retry)
        if ledger is not None:
            ledger.append(("add", body["client_id"], status))
        if mode == "mixed" and number % 5 == 4:
            path = f"{api}/annotations/{body['client_id']}/"
            status = send(session, "DELETE", path, None, results, "remove", retry)
            if ledger is not None:
                ledger.append(("remove", body["client_id"], status))
            segment += 1
            send(session, "POST", f"{api}/move/", {"segment": segment}, results, "move", retry)


class ServerCPU:
    """CPU seconds of a server process and its live children between start() and stop()."""

    def __init__(self, pid):
        self.pid = pid

    def start(self):
        self._before = cpu_seconds(self.pid)

    def stop(self):
        return cpu_seconds(self.pid) - self._before


def run_workers(tokens, saves, think, meters, mode="mixed", prefix="", address=("127.0.0.1", PORT),
                retry=False, ledger=None, while_running=None):  # fmt: skip
    """Run the simulated workers; return (results, wall seconds, [CPU seconds of each meter]).

    The pages are opened before the clocks start: only the API calls count. `while_running`, if
    given, is called on this thread once the workers are on their way (bench/cluster.py kills
    nodes there)."""
    sessions = [Session(token, address) for token in tokens]
    for session in sessions:
        session.open_page()
    for meter in meters:
        meter.start()
    results, threads = [], []
    started = time.perf_counter()
    for number, session in enumerate(sessions):
        thread = threading.Thread(  # daemons: Ctrl-C ends the benchmark without waiting for them
            target=simulate,
            args=(session, saves, think, results, number, mode, prefix, retry, ledger),
            daemon=True,
        )
        threads.append(thread)
        thread.start()
    if while_running is not None:
        while_running()
    for thread in threads:
        thread.join()
    seconds = time.perf_counter() - started
    return results, seconds, [meter.stop() for meter in meters]


def run_phase(server, postgres, tokens, saves, think, mode="mixed", prefix=""):
    """Run the simulated workers; return (results, wall seconds, web CPU seconds, PostgreSQL CPU
    seconds or None)."""
    meters = [ServerCPU(server.pid)] + ([PostgresBackendCPU(postgres)] if postgres else [])
    # PORT is read here, not as a default argument: --port sets it after this module is imported.
    results, seconds, used = run_workers(tokens, saves, think, meters, mode, prefix, ("127.0.0.1", PORT))
    return results, seconds, used[0], used[1] if postgres else None


def run_bare_loop(env, postgres, tokens, saves):
    """The same saves as a bare psycopg loop (bench/bare_saves.py): (saves, wall, client CPU, PG CPU)."""
    loop = subprocess.Popen(
        [sys.executable, str(ROOT / "bench" / "bare_saves.py"), str(saves)],
        env=env, cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    loop.stdin.write(json.dumps(tokens) + "\n")
    loop.stdin.flush()
    if loop.stdout.readline().strip() != "ready":
        sys.exit("FAILED: the bare psycopg loop did not start")
    database_cpu = PostgresBackendCPU(postgres)
    database_cpu.start()
    loop.stdin.write("go\n")
    loop.stdin.flush()
    figures = json.loads(loop.stdout.readline())
    pg_cpu = database_cpu.stop()  # before the loop closes its connections, which ends their backends
    loop.stdin.write("done\n")
    loop.stdin.flush()
    loop.wait(timeout=30)
    if figures["failures"]:
        sys.exit(
            f"FAILED: {figures['failures']} saves of the bare psycopg loop failed or found no open assignment"
        )
    return figures["saves"], figures["seconds"], figures["cpu"], pg_cpu


def describe_floor(saves_phase, bare):
    """Print the bare loop's figures and how many times its CPU per save a save through the platform costs."""
    saves, seconds, client_cpu, pg_cpu = bare
    client, database = 1000 * client_cpu / saves, 1000 * pg_cpu / saves
    print(f"bare psycopg loop, same UPDATE and INSERT, 2 connections: {saves} saves in {seconds:.1f} s = "
          f"{saves / seconds:.0f} saves/s; per save: client CPU {client:.2f} ms, PostgreSQL CPU {database:.2f} ms; "
          f"machine load average {os.getloadavg()[0]:.1f}")  # fmt: skip
    if saves_phase is None:
        return
    results, _, web_cpu, platform_pg_cpu = saves_phase
    web, platform_database = 1000 * web_cpu / len(results), 1000 * platform_pg_cpu / len(results)
    print(f"  server CPU per save, platform / bare loop: ({web:.2f} + {platform_database:.2f}) / "
          f"({client:.2f} + {database:.2f}) = {(web + platform_database) / (client + database):.2f}x")  # fmt: skip


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


def time_page(page):
    """Time the annotation page of a 40-segment document with 200 annotations; return failed requests."""
    errors = 0
    api = f"/api/task/{page.token}"
    page.open_page()
    for segment in range(1, 40):
        errors += is_error(page.request("POST", f"{api}/move/", {"segment": segment})[0])
    for number in range(200):
        errors += is_error(page.request("POST", f"{api}/annotations/", {"client_id": f"p{RUN_TAG}{number}", "category": "CharE",
                           "segment": number % 40, "start": 0, "end": 4, "text": "Anna"})[0])  # fmt: skip
    loads = [page.open_page() for _ in range(30)]
    errors += sum(is_error(status) for status, _ in loads)
    timings = sorted(elapsed * 1000 for _, elapsed in loads)
    print(f"annotation page, 40 segments + 200 annotations: p50 {statistics.median(timings):.1f} ms, "
          f"p95 {timings[int(0.95 * 29)]:.1f} ms over 30 loads")  # fmt: skip
    return errors


def main():
    global PORT, KEEP_ALIVE, RUN_TAG  # --port: every request of this process goes there
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=50)
    parser.add_argument("--saves", type=int, default=30)
    parser.add_argument(
        "--think", default="1,5", help="paced phase: think time between saves, uniform MIN,MAX seconds"
    )
    parser.add_argument("--database-url", default="postgres://postgres@127.0.0.1:5432/falte_bench_saves")
    parser.add_argument("--checkout", type=Path, default=ROOT, help="the project checkout to serve")
    parser.add_argument(
        "--phases", default=",".join(PHASES),
        help=f"which phases to run, comma-separated, of {','.join(PHASES)} (default: all)",
    )  # fmt: skip
    parser.add_argument(
        "--port", type=int, default=PORT, help="gunicorn's port (another benchmark may hold 8765)"
    )
    parser.add_argument(
        "--reuse-database", action="store_true",
        help="the study a previous run of this script imported there, as it is (no migrate, no import)",
    )  # fmt: skip
    parser.add_argument("--keep-alive", action="store_true", help="keep each client's HTTP connection open")
    parser.add_argument(
        "--gunicorn", default="", help="more gunicorn options, e.g. '--worker-class gthread --keep-alive 5'"
    )
    args = parser.parse_args()
    PORT, KEEP_ALIVE = args.port, args.keep_alive
    phases = args.phases.split(",")
    if unknown := set(phases) - set(PHASES):
        parser.error(f"unknown phases: {', '.join(sorted(unknown))}")
    checkout = args.checkout.resolve()
    commit = subprocess.run(["git", "-C", str(checkout), "log", "-1", "--format=%h %s"],
                            capture_output=True, text=True).stdout.strip()  # fmt: skip
    print(f"checkout {checkout} at {commit}")

    env = bench_env(args.database_url)
    # Pages name hashed static files once the checkout serves them itself (WhiteNoise); each
    # checkout gets its own collected copy, which older checkouts simply ignore.
    env["STATIC_ROOT"] = str(ROOT / "bench" / "out" / f"static-{checkout.name}")
    if args.reuse_database:
        RUN_TAG = f"{int(time.time()) % 100000}-"  # this run's saves are new ones in the old study
        tokens = imported_tokens(env, checkout)[: args.workers + 1]
    else:
        fresh_database(args.database_url)
        manage(env, "collectstatic", "--no-input", "-v", "0", checkout=checkout)
        manage(env, "migrate", "-v", "0", checkout=checkout)
        tokens = import_saves_study(env, args.workers + 1, args.saves, checkout=checkout)
    page_token, tokens = tokens[0], tokens[1:]

    think_low, think_high = (float(value) for value in args.think.split(","))
    server = start_server(env, checkout=checkout, options=args.gunicorn.split())
    postgres = None if args.database_url.startswith("sqlite:") else args.database_url.rsplit("/", 1)[1]
    errors = 0
    try:
        print(f"gunicorn: 2 workers {args.gunicorn or '(sync)'}; clients keep their connection: "
              f"{'yes' if KEEP_ALIVE else 'no'}; {engine_name(args.database_url)}; "
              f"{args.workers} simulated workers x {args.saves} saves")  # fmt: skip
        saves_phase = None
        for key, name, saves, think, mode in [
            (
                "paced",
                f"paced (think time {think_low:g}-{think_high:g} s)",
                args.saves,
                (think_low, think_high),
                "mixed",
            ),
            ("closed", "closed loop (no think time, capacity)", args.saves // 3, None, "mixed"),
            ("saves", "saves only, closed loop", args.saves // 3, None, "saves"),
            ("removes", "removes only (of those saves), closed loop", args.saves // 3, None, "removes"),
            ("moves", "moves only, closed loop", args.saves // 3, None, "moves"),
        ]:
            if key not in phases:
                continue
            measured = run_phase(server, postgres, tokens, saves, think, mode, prefix=name[0] + RUN_TAG)
            errors += describe(name, *measured)
            print(f"  peak RSS of the largest gunicorn process so far: {peak_rss_mb(server.pid):.0f} MB")
            if key == "saves":
                saves_phase = measured
        if "bare" in phases and postgres:
            saves = max(500, len(tokens) * (args.saves // 3))
            describe_floor(saves_phase, run_bare_loop(env, postgres, tokens, saves))
        if "page" in phases:
            errors += time_page(Session(page_token, ("127.0.0.1", PORT)))
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
    if errors:
        sys.exit(f"FAILED: {errors} requests failed")


if __name__ == "__main__":
    main()
