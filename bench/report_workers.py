"""Benchmark: a span report computed in parts on 1 and 2 Celery worker processes, against one pass.

Issue 18 target: at 10x SNaC scale (30,000 documents x 30 segments x 3
annotators, about 2.7M spans), with 2 worker processes under 120 s and under
2 GB peak per worker process, and the same report as one pass. The one-pass
reference is `manage.py study_report` in its own process (what the job did
before reports were split). Each worker run starts `celery -A falte_site
worker --concurrency N` on a fresh Redis queue, requests the report through
the service a researcher's button calls, and waits for it to be done.

CPU: user + system seconds of the worker's processes (main and pool
children) and of PostgreSQL's backends of the benchmark database, from /proc.
Peak memory: VmHWM of each pool child (and of the one-pass process).

    .venv/bin/python bench/report_workers.py [--documents 30000] [--workers 1,2]
        [--part-documents 1000] [--skip-import]
"""

import argparse
import json
import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.import_bundle import fresh_database, run_measured_cpu  # noqa: E402
from bench.process_cpu import PostgresBackendCPU, cpu_seconds, server_processes  # noqa: E402
from bench.span_report import write_bundle  # noqa: E402

BROKER = "redis://127.0.0.1:6379/0"


def peak_mb(pid):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def worker_run(env, workers, part_documents, database, study_slug):
    """Request the report with `workers` worker processes up; (wall, worker CPU, PG CPU, peaks, result)."""
    from reports.models import Report
    from reports.services import report_request
    from studies.models import Study

    queue = os.environ["CELERY_TASK_DEFAULT_QUEUE"]
    worker = subprocess.Popen(
        [str(Path(sys.executable).parent / "celery"), "-A", "falte_site", "worker", "--loglevel", "WARNING",
         "--concurrency", str(workers), "--queues", queue, "--without-gossip", "--without-mingle",
         "--without-heartbeat"],
        cwd=ROOT, env=dict(env, REPORT_PART_DOCUMENTS=str(part_documents)), start_new_session=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while len(server_processes(worker.pid)) < workers + 1 and time.monotonic() < deadline:
            time.sleep(0.2)
        time.sleep(2)  # the pool children finish importing Django
        study = Study.objects.get(slug=study_slug)
        before = cpu_seconds(worker.pid)
        database_cpu = PostgresBackendCPU(database)
        database_cpu.start()
        started = time.perf_counter()
        report, _ = report_request(study=study)
        while True:
            report.refresh_from_db()
            if report.status in (Report.Status.DONE, Report.Status.FAILED):
                break
            time.sleep(0.2)
        wall = time.perf_counter() - started
        used = cpu_seconds(worker.pid) - before
        pg = database_cpu.stop()
        peaks = [peak_mb(pid) for pid in server_processes(worker.pid) if pid != worker.pid]
        if report.status != Report.Status.DONE:
            sys.exit(f"the report failed: {report.error}")
        return wall, used, pg, peaks, report.result
    finally:
        os.killpg(worker.pid, 15)
        worker.wait(timeout=60)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=30_000)
    parser.add_argument("--segments", type=int, default=30)
    parser.add_argument("--workers", default="1,2")
    parser.add_argument("--part-documents", type=int, default=1000)
    parser.add_argument("--skip-import", action="store_true", help="reuse the database of an earlier run")
    parser.add_argument("--skip-one-pass", action="store_true")
    args = parser.parse_args()
    database = f"falte_bench_parts_{args.documents}"
    url = f"postgres://postgres@127.0.0.1:5432/{database}"
    env = dict(os.environ, DATABASE_URL=url, READ_DOT_ENV="0", DEBUG="0", CELERY_BROKER_URL=BROKER,
               CELERY_TASK_DEFAULT_QUEUE=f"bench-report-{uuid.uuid4().hex[:8]}",
               SECRET_KEY="bench-only-key-" + "x" * 40, DJANGO_SETTINGS_MODULE="falte_site.settings")  # fmt: skip
    python = sys.executable
    if not args.skip_import:
        bundle = ROOT / "bench" / "out" / f"report-{args.documents}x{args.segments}"
        write_bundle(bundle, args.documents, args.segments)
        fresh_database(url)
        subprocess.run([python, "manage.py", "migrate", "-v", "0"], env=env, cwd=ROOT, check=True)
        wall, cpu, peak = run_measured_cpu(
            [python, "manage.py", "import_study", str(bundle)], dict(env, BUNDLE_MAX_FILE_BYTES="2000000000")
        )
        print(
            f"import of the study (not a target): {wall:.1f} s wall, {cpu:.1f} s CPU, peak RSS {peak:.0f} MB"
        )
    os.environ.update(env)
    import django

    django.setup()
    expected = None
    if not args.skip_one_pass:
        output = ROOT / "bench" / "out" / f"report-one-pass-{args.documents}.json"
        wall, cpu, peak = run_measured_cpu(
            [python, "manage.py", "study_report", "bench-report", "--output", str(output)], env
        )
        expected = json.loads(output.read_text())
        spans = sum(values["spans"] for values in expected["categories"].values())
        print(f"one pass (study_report), {args.documents:,} documents, {spans:,} spans: "
              f"{wall:.1f} s wall, {cpu:.1f} s CPU, peak RSS {peak:.0f} MB")  # fmt: skip
    for workers in [int(n) for n in args.workers.split(",")]:
        wall, cpu, pg, peaks, result = worker_run(env, workers, args.part_documents, database, "bench-report")
        same = "not compared" if expected is None else ("yes" if result == expected else "NO")
        print(f"{workers} worker process(es), parts of {args.part_documents:,} documents: {wall:.1f} s wall, "
              f"{cpu:.1f} s worker CPU, {pg:.1f} s PostgreSQL CPU, peak RSS per process "
              f"{', '.join(f'{p:.0f}' for p in peaks)} MB; identical to one pass: {same}")  # fmt: skip


if __name__ == "__main__":
    main()
