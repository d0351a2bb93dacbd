"""Benchmark: 50 simulated workers saving annotations against gunicorn + PostgreSQL.

Issue 3 targets: p95 under 100 ms and no errors for the saves; and the
server time of the annotation page of a 40-segment document with 200
annotations.

Each simulated worker opens its task page (for the CSRF cookie), then adds
annotations one after another with a think time between saves (uniform
1-5 s: a very fast human; real annotators take longer), removes every fifth one and moves on through the
segments. A second, closed-loop phase (no think time) gives the capacity.

    .venv/bin/python bench/task_saves.py [--workers 50] [--saves 30]
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
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.import_bundle import fresh_database  # noqa: E402

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


def manage(env, *args, capture=False):
    result = subprocess.run(
        [sys.executable, "manage.py", *args], env=env, cwd=ROOT, check=True,
        capture_output=capture, text=True,
    )  # fmt: skip
    return result.stdout


class Session:
    """One simulated worker's HTTP session: cookie jar of one CSRF cookie."""

    def __init__(self, token):
        self.token = token
        self.cookie = ""
        self.csrf = ""

    def request(self, method, path, body=None):
        connection = http.client.HTTPConnection("127.0.0.1", PORT, timeout=30)
        headers = {"Cookie": self.cookie, "X-CSRFToken": self.csrf}
        if body is not None:
            headers["Content-Type"] = "application/json"
        started = time.perf_counter()
        connection.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
        response = connection.getresponse()
        payload = response.read()
        elapsed = time.perf_counter() - started
        for name, value in response.getheaders():
            if name.lower() == "set-cookie" and value.startswith("csrftoken="):
                self.csrf = value.split(";", 1)[0].split("=", 1)[1]
                self.cookie = f"csrftoken={self.csrf}"
        connection.close()
        return response.status, elapsed, payload

    def open_page(self):
        status, elapsed, _ = self.request("GET", f"/task/{self.token}/annotate/")
        return status, elapsed


def simulate(session, saves, think, results, seed):
    rng = random.Random(seed)
    api = f"/api/task/{session.token}"
    segment = 0
    for number in range(saves):
        if think:
            time.sleep(rng.uniform(*think))
        body = {"client_id": f"{session.token[:8]}-{number}", "category": "CharE", "segment": segment,
                "start": 0, "end": 4, "text": "Anna"}  # fmt: skip
        status, elapsed, _ = session.request("POST", f"{api}/annotations/", body)
        results.append(("add", status, elapsed))
        if number % 5 == 4:
            status, elapsed, _ = session.request("DELETE", f"{api}/annotations/{body['client_id']}/")
            results.append(("remove", status, elapsed))
            segment += 1
            status, elapsed, _ = session.request("POST", f"{api}/move/", {"segment": segment})
            results.append(("move", status, elapsed))


def run_phase(tokens, saves, think):
    sessions = [Session(token) for token in tokens]
    for session in sessions:
        session.open_page()
    results, threads = [], []
    started = time.perf_counter()
    for number, session in enumerate(sessions):
        thread = threading.Thread(target=simulate, args=(session, saves, think, results, number))
        threads.append(thread)
        thread.start()
    for thread in threads:
        thread.join()
    return results, time.perf_counter() - started


def describe(name, results, seconds):
    latencies = sorted(elapsed * 1000 for _, _, elapsed in results)
    errors = sum(1 for _, status, _ in results if status >= 400)
    p50 = statistics.median(latencies)
    p95 = latencies[int(0.95 * (len(latencies) - 1))]
    print(f"{name}: {len(results)} requests in {seconds:.1f} s = {len(results) / seconds:.0f} req/s; "
          f"p50 {p50:.1f} ms, p95 {p95:.1f} ms, max {latencies[-1]:.1f} ms; errors {errors}")  # fmt: skip


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=50)
    parser.add_argument("--saves", type=int, default=30)
    parser.add_argument("--database-url", default="postgres://postgres@127.0.0.1:5432/falte_bench_saves")
    args = parser.parse_args()

    env = dict(os.environ, DATABASE_URL=args.database_url, READ_DOT_ENV="0", DEBUG="0",
               SECRET_KEY="bench-only-key-" + "x" * 40, ALLOWED_HOSTS="127.0.0.1",
               SECURE_SSL_REDIRECT="0", SESSION_COOKIE_SECURE="0", CSRF_COOKIE_SECURE="0",
               SECURE_HSTS_SECONDS="0", CONN_MAX_AGE="60")  # fmt: skip
    fresh_database(args.database_url)
    manage(env, "migrate", "-v", "0")
    bundle = ROOT / "bench" / "out" / "saves-bundle"
    segments = max(40, args.saves // 5 + 2)
    write_bundle(bundle, args.workers + 1, segments)
    manage(env, "import_study", str(bundle))
    workers = ",".join(f"sim{n}" for n in range(args.workers + 1))
    lines = manage(env, "assign", "bench-saves", "--workers", workers, "--per-document", "1", capture=True)
    tokens = [line.split("\t")[2].split("/")[2] for line in lines.strip().splitlines()]
    page_token, tokens = tokens[0], tokens[1:]

    server = subprocess.Popen(
        [str(Path(sys.executable).parent / "gunicorn"), "falte_site.wsgi", "--workers", "2",
         "--bind", f"127.0.0.1:{PORT}", "--log-level", "warning"],
        env=env, cwd=ROOT,
    )  # fmt: skip
    try:
        for _ in range(100):
            try:
                http.client.HTTPConnection("127.0.0.1", PORT, timeout=1).request("GET", "/admin/login/")
                break
            except OSError:
                time.sleep(0.1)
        print(f"gunicorn: 2 sync workers; PostgreSQL; {args.workers} simulated workers x {args.saves} saves")
        results, seconds = run_phase(tokens, args.saves, think=(1.0, 5.0))
        describe("paced (think time 1-5 s)", results, seconds)
        results, seconds = run_phase(tokens, args.saves // 3, think=None)
        describe("closed loop (no think time, capacity)", results, seconds)

        page = Session(page_token)
        # 200 annotations on a 40-segment document, then time the page.
        api = f"/api/task/{page_token}"
        page.open_page()
        for segment in range(1, 40):
            page.request("POST", f"{api}/move/", {"segment": segment})
        for number in range(200):
            page.request("POST", f"{api}/annotations/", {"client_id": f"p{number}", "category": "CharE",
                         "segment": number % 40, "start": 0, "end": 4, "text": "Anna"})  # fmt: skip
        timings = sorted(page.open_page()[1] * 1000 for _ in range(30))
        print(f"annotation page, 40 segments + 200 annotations: p50 {statistics.median(timings):.1f} ms, "
              f"p95 {timings[int(0.95 * 29)]:.1f} ms over 30 loads")  # fmt: skip
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)


if __name__ == "__main__":
    main()
