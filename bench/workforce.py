"""Benchmark: the live workforce dashboard's figures on a synthetic span study, read from PostgreSQL.

The dashboard computes the `workforce` figures when its page loads (pay,
active time, speeders, attention failures, each worker's agreement with
the others), so its cost is paid on every visit while a study runs. Builds
the same study as bench/span_report.py (D documents x S segments x 3
annotators), gives each imported assignment an active time and the study a
pay rule, then times, in one process, `workforce_report` against the span
protocol's own report part on the same study (the reference), median of 3:
wall time and this process's CPU time (user + system).

    .venv/bin/python bench/workforce.py [--documents 1000] [--segments 30]
"""

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.import_bundle import fresh_database  # noqa: E402
from bench.span_report import write_bundle  # noqa: E402
from bench.task_saves import bench_env, manage  # noqa: E402


def cpu():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def timed(function, repeat=3):
    walls, cpus = [], []
    for _ in range(repeat):
        started, started_cpu = time.perf_counter(), cpu()
        result = function()
        walls.append(time.perf_counter() - started)
        cpus.append(cpu() - started_cpu)
    return result, statistics.median(walls), statistics.median(cpus)


def measure():
    """Runs inside the benchmark's database (DATABASE_URL set by main)."""
    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "falte_site.settings")
    django.setup()
    from annotations.models import Assignment
    from crowd.workforce import workforce_report
    from studies import protocols
    from studies.models import Study

    study = Study.objects.get(slug="bench-report")
    study.config = {**(study.config or {}), "pay": {"reward": 3.0, "currency": "GBP", "target_hourly": 12.0}}
    study.save(update_fields=["config"])
    for number, pk in enumerate(Assignment.objects.filter(study=study).values_list("pk", flat=True)):
        Assignment.objects.filter(pk=pk).update(active_seconds=300 + (number * 37) % 1500, status="submitted")
    people = Assignment.objects.filter(study=study).count()
    result, wall, used = timed(lambda: workforce_report(study))
    _, ref_wall, ref_cpu = timed(lambda: protocols.of(study).report(study, lambda fraction: None))
    print(f"{people:,} submitted assignments, {len(result['workers']):,} workers")
    print(f"workforce figures: wall {wall:.2f} s, CPU {used:.2f} s (median of 3)")
    print(f"span report part (reference): wall {ref_wall:.2f} s, CPU {ref_cpu:.2f} s (median of 3)")
    print(f"workforce / span report CPU: {used / ref_cpu:.2f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=1000)
    parser.add_argument("--segments", type=int, default=30)
    parser.add_argument("--database-url", default="postgres://postgres@127.0.0.1:5432/falte_bench_workforce")
    parser.add_argument("--measure", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        measure()
        return
    bundle = ROOT / "bench" / "out" / f"report-{args.documents}x{args.segments}"
    write_bundle(bundle, args.documents, args.segments)
    fresh_database(args.database_url)
    env = bench_env(args.database_url)
    manage(env, "migrate", "-v", "0")
    manage(env, "import_study", str(bundle), capture=True)
    subprocess.run([sys.executable, __file__, "--measure"], env=env, cwd=ROOT, check=True)


if __name__ == "__main__":
    main()
