"""Benchmark: import a bundle with its annotations (the span study of bench/span_report.py).

The study of bench/report_workers.py (3 annotators per document, 30 segments, 30 spans per
annotation) at the given sizes, each into a fresh PostgreSQL database, timing `manage.py
import_study` in its own process: wall time, CPU of the importing process, CPU of PostgreSQL's
backends of the database (from /proc), peak RSS (wait4), and the load average. With
`--reference ROOT` (a `git worktree` of the code before) the same bundle is imported by that
checkout too, in the same run, into its own fresh database.

    .venv/bin/python bench/import_annotations.py [--documents 3000,10000,30000]
        [--reference /path/to/worktree] [--plain] [--prefix falte_bench_import]

`--plain` imports the documents alone (no assignments.jsonl), the bundle of bench/import_bundle.py.
"""

import argparse
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.import_bundle import fresh_database, run_measured_cpu  # noqa: E402
from bench.import_bundle import write_bundle as write_plain_bundle  # noqa: E402
from bench.process_cpu import PostgresBackendCPU  # noqa: E402
from bench.span_report import write_bundle  # noqa: E402


def import_once(root, bundle, database):
    """(wall, process CPU, PostgreSQL CPU, peak RSS MB) of `import_study` run from checkout `root`."""
    url = f"postgres://postgres@127.0.0.1:5432/{database}"
    fresh_database(url)
    env = dict(os.environ, DATABASE_URL=url, READ_DOT_ENV="0", DEBUG="0", BUNDLE_MAX_FILE_BYTES="2000000000",
               SECRET_KEY="bench-only-key-" + "x" * 40, DJANGO_SETTINGS_MODULE="falte_site.settings")  # fmt: skip
    python = sys.executable
    subprocess.run([python, "manage.py", "migrate", "-v", "0"], env=env, cwd=root, check=True)
    database_cpu = PostgresBackendCPU(database)
    database_cpu.start()
    wall, cpu, peak = run_measured_cpu(
        [python, str(Path(root) / "manage.py"), "import_study", str(bundle)], env, cwd=root
    )
    return wall, cpu, database_cpu.stop(), peak


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", default="3000,10000,30000")
    parser.add_argument("--segments", type=int, default=30)
    parser.add_argument("--reference", help="a checkout of the code before, imported in the same run")
    parser.add_argument("--plain", action="store_true", help="documents only, no assignments")
    parser.add_argument(
        "--prefix",
        "--database-prefix",
        dest="prefix",
        default="falte_bench_import",
        help="the databases' names start so",
    )
    args = parser.parse_args()
    for documents in [int(n) for n in args.documents.split(",")]:
        if args.plain:
            bundle = ROOT / "bench" / "out" / f"import-{documents}x{args.segments}"
            write_plain_bundle(bundle, documents, args.segments)
            what = f"{documents:,} documents x {args.segments} segments, no annotations"
        else:
            bundle = ROOT / "bench" / "out" / f"report-{documents}x{args.segments}"
            write_bundle(bundle, documents, args.segments)
            what = f"{documents:,} documents x {args.segments} segments, {documents * 3:,} assignments, ~{documents * 90:,} spans"
        runs = [("this checkout", ROOT)] + ([("reference", Path(args.reference))] if args.reference else [])
        for label, root in runs:
            database = f"{args.prefix}_{'plain_' if args.plain else ''}{documents}_{label.split()[0]}"
            wall, cpu, pg, peak = import_once(root, bundle, database)
            load = " ".join(f"{value:.2f}" for value in os.getloadavg())
            print(f"{what}, {label}: {wall:.1f} s wall, {cpu:.1f} s CPU of the import process, "
                  f"{pg:.1f} s PostgreSQL CPU, peak RSS {peak:.0f} MB (load average {load})", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
