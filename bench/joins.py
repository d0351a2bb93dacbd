"""Benchmark: crowd workers arriving through a join link at the same moment.

Starts gunicorn (2 sync workers, as bench/task_saves.py) on a fresh database
with an open study of D documents x 2 annotators, then sends J joins, each a
new Prolific id, released together by a barrier, for R rounds. Prints
latencies, server CPU time per join and the statuses; then checks in the
database that no document got more than 2 assignments and that every place
was taken. Exits non-zero on any failed request or a broken count.

    .venv/bin/python bench/joins.py [--joins 30] [--rounds 5]
        [--database-url sqlite:////tmp/falte_bench_joins.sqlite3]
"""

import argparse
import json
import os
import signal
import statistics
import sys
import threading
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.task_saves import (  # noqa: E402
    SEGMENT,
    Session,
    bench_env,
    cpu_seconds,
    engine_name,
    fresh_database,
    manage,
    start_server,
)

ANNOTATORS = 2


def write_bundle(directory, documents):
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "study.yaml").write_text(
        f"slug: bench-joins\ntitle: Join benchmark\nprotocol: span\nstatus: open\n"
        f"annotators_per_document: {ANNOTATORS}\ntaxonomy:\n  slug: bench-joins\n  name: Bench\n"
        "  categories:\n    - {key: CharE, label: New character}\n"
    )
    with open(directory / "documents.jsonl", "w") as handle:
        for number in range(documents):
            handle.write(json.dumps({"id": f"d{number}", "segments": [SEGMENT] * 3}) + "\n")


def join_round(join_key, names):
    barrier = threading.Barrier(len(names))
    results = []

    def join(name):
        barrier.wait()
        status, elapsed, _ = Session("").request("GET", f"/join/{join_key}/?PROLIFIC_PID={name}")
        results.append((name, status, elapsed))

    threads = [threading.Thread(target=join, args=(name,)) for name in names]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--joins", type=int, default=30, help="simultaneous joins per round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--database-url", default="postgres://postgres@127.0.0.1:5432/falte_bench_joins")
    args = parser.parse_args()

    env = bench_env(args.database_url)
    fresh_database(args.database_url)
    # The pages name hashed static files (WhiteNoise serves what collectstatic wrote).
    env["STATIC_ROOT"] = str(ROOT / "bench" / "out" / "static-joins")
    manage(env, "collectstatic", "--no-input", "-v", "0")
    manage(env, "migrate", "-v", "0")
    # Two thirds of the joins find a place; the last rounds are refused politely (200).
    documents = args.joins * args.rounds // 3
    bundle = ROOT / "bench" / "out" / "joins-bundle"
    write_bundle(bundle, documents)
    manage(env, "import_study", str(bundle))
    read_key = "from studies.models import Study; print(Study.objects.get(slug='bench-joins').join_key)"
    join_key = manage(env, "shell", "--no-imports", "-c", read_key, capture=True).strip()

    server = start_server(env)
    results = []
    try:
        cpu_before = cpu_seconds(server.pid)
        started = time.perf_counter()
        for number in range(args.rounds):
            results += join_round(join_key, [f"crowd-{number}-{n}" for n in range(args.joins)])
        seconds = time.perf_counter() - started
        cpu = cpu_seconds(server.pid) - cpu_before
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)

    statuses = Counter(status for _, status, _ in results)
    latencies = sorted(elapsed * 1000 for _, _, elapsed in results)
    errors = sum(count for status, count in statuses.items() if status not in (200, 302))
    print(f"gunicorn: 2 sync workers; {engine_name(args.database_url)}; {args.rounds} rounds of "
          f"{args.joins} simultaneous joins; {documents} documents x {ANNOTATORS} annotators")  # fmt: skip
    print(f"joins: {len(results)} requests in {seconds:.1f} s; p50 {statistics.median(latencies):.1f} ms, "
          f"p95 {latencies[int(0.95 * (len(latencies) - 1))]:.1f} ms, max {latencies[-1]:.1f} ms; "
          f"server CPU {cpu:.1f} s = {1000 * cpu / len(results):.1f} ms/join; errors {errors} of {len(results)}; "
          f"statuses {dict(sorted(statuses.items()))}; machine load average {os.getloadavg()[0]:.1f}")  # fmt: skip

    count = (
        "import json; from collections import Counter; from annotations.models import Assignment; "
        "print(json.dumps(sorted(Counter(Assignment.objects.filter(study__slug='bench-joins')"
        ".values_list('document_id', flat=True)).values())))"
    )
    per_document = json.loads(manage(env, "shell", "--no-imports", "-c", count, capture=True))
    over = sum(1 for taken in per_document if taken > ANNOTATORS)
    places = documents * ANNOTATORS
    print(f"assignments: {sum(per_document)} for {places} places; documents over {ANNOTATORS}: {over}; "
          f"redirects to a task: {statuses[302]}")  # fmt: skip
    if errors or over or sum(per_document) != statuses[302] or statuses[302] != min(places, len(results)):
        sys.exit("FAILED: failed requests or wrong assignment counts")


if __name__ == "__main__":
    main()
