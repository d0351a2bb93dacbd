"""Benchmark: the platform as a small cluster, each machine in its own network namespace.

PostgreSQL 15 (its own initdb), Redis, two gunicorn web nodes behind HAProxy (health checks
every second), two Celery worker nodes (one of them also runs beat), on a bridge in
10.77.0.0/24; the load generator is this process on the host, which reaches the proxy through
the bridge (bench/cluster_net.py, bench/cluster_nodes.py). Needs root and `haproxy`.

1. Saves: bench/task_saves.py's simulated workers (500 x 6 saves, think time 4-6 s) through
   the proxy; then closed-loop saves through the proxy, and the same straight to one web node
   (the reference: what the proxy costs). CPU of every node from /proc.
2. Report: a span study (bench/span_report.py's, --documents of it) computed in parts by the
   two worker nodes, against the one-pass report (`manage.py study_report`).
3. Failure: the saves and a report again; once the report's first part is stored, one web node
   and one worker node are killed (SIGKILL to their whole process tree). The simulated pages
   retry as the real page does; every save a client got a 2xx for must be a row, and the report
   must finish identical to the one pass.

Everything is torn down at the end, and on Ctrl-C: processes, namespaces, veths, the bridge,
the temp dir. It exits non-zero if a check fails.

    sudo .venv/bin/python bench/cluster.py [--documents 30000] [--workers 500] [--saves 6]
        [--think 4,6] [--part-documents 1000] [--report-timeout 1800] [--static-root DIR]
        [--only-saves | --skip-saves]
"""

import argparse
import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.cluster_nodes import WEB_PORT, Cluster  # noqa: E402
from bench.import_bundle import run_measured_cpu  # noqa: E402
from bench.process_cpu import ProcessTreeCPU  # noqa: E402
from bench.report_workers import peak_mb  # noqa: E402
from bench.span_report import write_bundle  # noqa: E402
from bench.task_saves import describe, import_saves_study, is_error, run_workers  # noqa: E402

REPORT_STUDY = "bench-report"


def load():
    return f"load average {os.getloadavg()[0]:.1f}"


def meters(cluster, names):
    return {name: ProcessTreeCPU(cluster.nodes[name].pid) for name in names}


def saves_phase(cluster, name, tokens, saves, think, address, saves_only=False, **options):
    """Run the simulated workers against `address`; print their figures and each node's CPU per
    request; return (results, failed requests)."""
    nodes = meters(cluster, ["web1", "web2", "postgres", "proxy", "redis"])
    mode = "saves" if saves_only else "mixed"
    results, seconds, used = run_workers(tokens, saves, think, list(nodes.values()), mode,
                                         prefix=name[0], address=address, **options)  # fmt: skip
    cpu = dict(zip(nodes, used, strict=True))
    errors = describe(name, results, seconds, cpu["web1"] + cpu["web2"], cpu["postgres"])
    adds = sum(1 for kind, *_ in results if kind == "add")
    print(f"  CPU per save ({adds} saves; the other requests' CPU included): web nodes "
          f"{1000 * (cpu['web1'] + cpu['web2']) / adds:.2f} ms (web1 {cpu['web1']:.1f} s, web2 {cpu['web2']:.1f} s), "
          f"PostgreSQL {1000 * cpu['postgres'] / adds:.2f} ms, proxy {1000 * cpu['proxy'] / adds:.2f} ms, "
          f"Redis {1000 * cpu['redis'] / adds:.2f} ms")  # fmt: skip
    return results, errors


def one_pass_report(cluster, documents):
    output = ROOT / "bench" / "out" / f"cluster-one-pass-{documents}.json"
    command = [sys.executable, "manage.py", "study_report", REPORT_STUDY, "--output", str(output)]
    wall, cpu, peak = run_measured_cpu(command, cluster.env)
    expected = json.loads(output.read_text())
    spans = sum(values["spans"] for values in expected["categories"].values())
    print(f"one pass (study_report on the host), {documents:,} documents, {spans:,} spans: {wall:.1f} s wall, "
          f"{cpu:.1f} s CPU, peak RSS {peak:.0f} MB; {load()}")  # fmt: skip
    return expected


def request_report():
    from reports.services import report_request
    from studies.models import Study

    report, _ = report_request(study=Study.objects.get(slug=REPORT_STUDY))
    return report


def wait_report(report, timeout):
    from reports.models import Report

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        report.refresh_from_db()
        if report.status in (Report.Status.DONE, Report.Status.FAILED):
            return report
        time.sleep(0.2)
    sys.exit(f"the report was not done after {timeout} s (status {report.status})")


def report_phase(cluster, expected, timeout):
    """The report computed by the two worker nodes; returns whether it equals the one pass."""
    workers = meters(cluster, ["worker1", "worker2", "postgres"])
    for meter in workers.values():
        meter.start()
    started = time.perf_counter()
    report = wait_report(request_report(), timeout)
    wall = time.perf_counter() - started
    cpu = {name: meter.stop() for name, meter in workers.items()}
    peaks = [
        peak_mb(pid) for name in ("worker1", "worker2") for pid in pool_children(cluster.nodes[name].pid)
    ]
    same = report.status == "done" and report.result == expected
    print(f"report on 2 worker nodes: {report.status} in {wall:.1f} s wall; CPU worker1 {cpu['worker1']:.1f} s, "
          f"worker2 {cpu['worker2']:.1f} s, PostgreSQL {cpu['postgres']:.1f} s; peak RSS of the pool processes (and beat) "
          f"{', '.join(f'{peak:.0f}' for peak in peaks)} MB; identical to one pass: {'yes' if same else 'NO'}; "
          f"{load()}")  # fmt: skip
    return same


def pool_children(pid):
    from bench.process_cpu import server_processes

    return [child for child in server_processes(pid) if child != pid]


def failure_phase(cluster, tokens, saves, think, expected, timeout):
    """Saves and a report while a web node and a worker node die; returns the failed checks."""
    from protocols.span.models import ErrorAnnotation
    from reports.models import ReportPart

    killed = {}

    def kill_when_a_part_is_stored():
        killed["report"] = report = request_report()
        deadline = time.monotonic() + 300
        while not ReportPart.objects.filter(report=report, finished_at__isnull=False).exists():
            if time.monotonic() > deadline:
                break
            time.sleep(0.1)
        killed["at"] = time.perf_counter()
        killed["parts"] = ReportPart.objects.filter(report=report, finished_at__isnull=False).count()
        killed["of"] = ReportPart.objects.filter(report=report).count()
        cluster.nodes["web2"].kill()
        cluster.nodes["worker2"].kill()
        print(f"  killed web2 and worker2 (SIGKILL, whole process trees) with {killed['parts']} of "
              f"{killed['of']} parts stored")  # fmt: skip
        for _ in range(100):
            if cluster.proxy_servers().get("web2", "").startswith("DOWN"):
                break
            time.sleep(0.1)
        killed["down_after"] = time.perf_counter() - killed["at"]
        print(f"  the proxy took web2 out {killed['down_after']:.1f} s after: {cluster.proxy_servers()}")

    ledger = []
    results, seconds, _ = run_workers(tokens, saves, think, [], prefix="k", address=(cluster.address["proxy"], 80),
                                      retry=True, ledger=ledger, while_running=kill_when_a_part_is_stored)  # fmt: skip
    failed_attempts = Counter(result[1] for result in results if is_error(result[1]))
    print(f"  saves: {len(results)} requests in {seconds:.1f} s, failed attempts that the pages sent again: "
          f"{sum(failed_attempts.values())} ({dict(failed_attempts)})")  # fmt: skip
    refused = [line for line in cluster.proxy_log() if " 502 " in line or " 503 " in line]
    print(f"  the proxy's answers 502/503 ({len(refused)}), first of them: {refused[:2]}")
    problems = []
    final = {}
    for operation, client_id, status in ledger:
        final.setdefault(client_id, {})[operation] = status
    unanswered = [cid for cid, ops in final.items() if any(is_error(status) for status in ops.values())]
    confirmed = {cid for cid, ops in final.items() if 200 <= ops["add"] < 300 and "remove" not in ops}
    saved = ErrorAnnotation.objects.filter(assignment__study__slug="bench-saves", client_id__startswith="k")
    rows = Counter(saved.values_list("client_id", flat=True))
    missing = confirmed - set(rows)
    extra = set(rows) - confirmed
    twice = [cid for cid, count in rows.items() if count > 1]
    print(f"  {len(confirmed)} saves confirmed (2xx) and kept, {len(rows)} rows: missing {len(missing)}, "
          f"not confirmed {len(extra)}, stored twice {len(twice)}; operations never answered {len(unanswered)}")  # fmt: skip
    if missing or extra or twice or unanswered:
        problems.append("the saves do not match the rows")
    report = wait_report(killed["report"], timeout)
    wall = time.perf_counter() - killed["at"]
    same = report.status == "done" and report.result == expected
    print(f"  report: {report.status} {wall:.1f} s after the kill, attempt {report.attempts}; "
          f"identical to one pass: {'yes' if same else 'NO'}; {load()}")  # fmt: skip
    if not same:
        problems.append("the report after the kill differs from the one pass")
    return problems


def saves_figures(cluster, args, tokens, think):
    """Measurement 1: the paced saves and the closed loops; returns the failed checks."""
    problems = []
    proxy = (cluster.address["proxy"], 80)
    print(f"1. saves: {args.workers} simulated workers x {args.saves} saves; 2 web nodes x "
          f"{2} gunicorn sync workers behind HAProxy; {load()}")  # fmt: skip
    for name, saves, pace, address, saves_only in [
        (f"paced through the proxy (think time {args.think} s)", args.saves, think, proxy, False),
        ("saves only, closed loop, through the proxy", max(1, args.saves // 3), None, proxy, True),
        ("reference: saves only, closed loop, straight to web1", max(1, args.saves // 3), None,
         (cluster.address["web1"], WEB_PORT), True),
    ]:  # fmt: skip
        _, errors = saves_phase(cluster, name, tokens, saves, pace, address, saves_only)
        if errors:
            problems.append(f"{errors} failed requests in '{name}'")
    peaks = [peak_mb(pid) for name in ("web1", "web2") for pid in pool_children(cluster.nodes[name].pid)]
    print(f"  peak RSS of the gunicorn workers: {', '.join(f'{peak:.0f}' for peak in peaks)} MB")
    return problems


def report_figures(cluster, args, tokens, think):
    """Measurements 2 and 3: the report on the two worker nodes, then the nodes killed."""
    print(f"2. report: span study of {args.documents:,} documents (bench/span_report.py's), "
          f"parts of {args.part_documents:,} documents")  # fmt: skip
    bundle = ROOT / "bench" / "out" / f"report-{args.documents}x30"
    write_bundle(bundle, args.documents, 30)
    command = [sys.executable, "manage.py", "import_study", str(bundle)]
    database = meters(cluster, ["postgres"])["postgres"]
    database.start()
    wall, cpu, peak = run_measured_cpu(command, cluster.env)
    print(f"import: {wall:.1f} s wall, {cpu:.1f} s CPU, peak RSS {peak:.0f} MB; PostgreSQL "
          f"{database.stop():.1f} s CPU; {load()}")  # fmt: skip
    expected = one_pass_report(cluster, args.documents)
    problems = []
    if not report_phase(cluster, expected, args.report_timeout):
        problems.append("the report on two worker nodes differs from the one pass")
    print("3. a web node and a worker node die during the saves and a report")
    return problems + failure_phase(cluster, tokens, args.saves, think, expected, args.report_timeout)


def interrupt(signum, frame):
    """SIGTERM tears the cluster down like Ctrl-C."""
    raise KeyboardInterrupt


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=500, help="simulated workers saving")
    parser.add_argument("--saves", type=int, default=6)
    parser.add_argument("--think", default="4,6", help="think time between saves, uniform MIN,MAX seconds")
    parser.add_argument("--documents", type=int, default=30_000, help="documents of the report's study")
    parser.add_argument("--part-documents", type=int, default=1000)
    parser.add_argument(
        "--report-timeout", type=float, default=1800,
        help="seconds a report may take; after a kill it waits for the stale heartbeat, then runs again",
    )  # fmt: skip
    parser.add_argument("--only-saves", action="store_true", help="measurement 1 only")
    parser.add_argument("--skip-saves", action="store_true", help="measurements 2 and 3 only")
    parser.add_argument(
        "--static-root", type=Path, help="static files collected by an earlier run of this checkout"
    )
    args = parser.parse_args()
    sys.stdout.reconfigure(line_buffering=True)  # a 2.7M-span run lasts an hour: show each phase as it ends
    if os.geteuid() != 0:
        sys.exit("bench/cluster.py makes network namespaces: run it as root")
    think = tuple(float(value) for value in args.think.split(","))
    signal.signal(signal.SIGTERM, interrupt)
    cluster = Cluster()
    problems = []
    try:
        cluster.up()
        commit = subprocess.run(["git", "-C", str(ROOT), "describe", "--always", "--dirty"],
                                capture_output=True, text=True).stdout.strip()  # fmt: skip
        print(f"checkout {ROOT} at {commit}; {os.cpu_count()} cores shared by every namespace; {load()}")
        cluster.manage("migrate", "-v", "0")
        if args.static_root:  # collectstatic takes minutes on a loaded machine
            cluster.env["STATIC_ROOT"] = str(args.static_root.resolve())
        else:
            cluster.manage("collectstatic", "--no-input", "-v", "0")
        cluster.start_web()
        cluster.start_workers(args.part_documents)
        os.environ.update(cluster.env)
        import django

        django.setup()
        tokens = import_saves_study(cluster.env, args.workers, args.saves * 2)
        if not args.skip_saves:
            problems += saves_figures(cluster, args, tokens, think)
        if not args.only_saves:
            problems += report_figures(cluster, args, tokens, think)
    except KeyboardInterrupt:
        problems.append("interrupted")
    finally:
        if "django" in sys.modules:
            from django.db import connections

            connections.close_all()
        cluster.down()
        print("torn down: processes, namespaces, veths, bridge, temp dir")
    if problems:
        sys.exit("FAILED: " + "; ".join(problems))


if __name__ == "__main__":
    main()
