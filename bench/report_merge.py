"""Benchmark: the merge of a span report computed in parts, for a study with evaluators and arms.

The evaluator comparison and the assistance report are computed in the parts and
merged from their tallies (reports/parts.py); before, the merge read the whole study
for them. A synthetic assisted span study (tests/reports/span_bundle.py: 5 annotators
per document in two arms, 3 suggestions per document decided by the suggestion arm,
2 evaluators) is imported at each size; its parts (REPORT_PART_DOCUMENTS documents
each) are computed once, then the merge runs in a child process of its own: this
checkout's, and with --reference another checkout's on the same parts (today's merge,
e.g. /work/main). Prints wall, CPU and peak RSS (wait4) of each merge child, and
whether the two results are the same.

    .venv/bin/python bench/report_merge.py [--sizes 600,2400,9600] [--part-documents 300]
        [--reference /work/main] [--database /tmp/falte_bench_merge.sqlite3]
        [--database-url postgres://postgres@127.0.0.1:5432/falte_bench_merge]

With --database-url the study and its parts live in that PostgreSQL database, and each
merge runs on a copy of it (CREATE DATABASE ... TEMPLATE), as each SQLite merge runs on a
copy of the file.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def measured(command, env, cwd):
    """(wall seconds, CPU seconds, peak RSS MB) of one child process, from wait4."""
    started = time.perf_counter()
    process = subprocess.Popen(command, env=env, cwd=cwd)
    _, status, usage = os.wait4(process.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"failed: {' '.join(command)}")
    return time.perf_counter() - started, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def child(step, code, slug, out):
    """In a child process: `parts` computes and stores the parts of a new report; `merge` merges them."""
    sys.path.insert(0, code)
    import django

    django.setup()
    from reports import parts
    from reports.models import Report, ReportPart
    from studies import protocols
    from studies.models import Study

    study = Study.objects.get(slug=slug)
    if step == "parts":
        Report.objects.filter(study=study).delete()
        report = Report.objects.create(study=study, status=Report.Status.RUNNING, attempts=1)
        specs = parts.split(study, protocols.of(study))
        for number, spec in enumerate(specs):
            ReportPart.objects.create(report=report, attempt=1, number=number, spec=spec,
                                      tallies=parts.part_tallies(study, spec))  # fmt: skip
        return
    report = Report.objects.get(study=study)
    parts.merge(report.pk, 1)
    report.refresh_from_db()
    Path(out).write_text(json.dumps(report.result, sort_keys=True))


class SqliteFile:
    """The bench's database as a SQLite file: kept aside once the parts are stored, copied back per merge."""

    def __init__(self, path):
        self.path = path
        self.url = f"sqlite:///{path}"

    def fresh(self):
        Path(self.path).unlink(missing_ok=True)

    def keep_parts(self):
        shutil.copyfile(self.path, f"{self.path}.parts")

    def from_parts(self):
        shutil.copyfile(f"{self.path}.parts", self.path)


class PostgresDatabase:
    """The bench's database in PostgreSQL: the parts kept in a template database, copied per merge."""

    def __init__(self, url):
        self.url, self.name = url, url.rsplit("/", 1)[1]
        self.parts_name = f"{self.name}_parts"

    def _run(self, *statements):
        import psycopg

        with psycopg.connect(self.url.rsplit("/", 1)[0] + "/postgres", autocommit=True) as connection:
            for statement in statements:
                connection.execute(statement)

    def fresh(self):
        self._run(f"DROP DATABASE IF EXISTS {self.name} WITH (FORCE)", f"CREATE DATABASE {self.name}")

    def keep_parts(self):
        self._run(
            f"DROP DATABASE IF EXISTS {self.parts_name} WITH (FORCE)",
            f"CREATE DATABASE {self.parts_name} TEMPLATE {self.name}",
        )

    def from_parts(self):
        self._run(
            f"DROP DATABASE IF EXISTS {self.name} WITH (FORCE)",
            f"CREATE DATABASE {self.name} TEMPLATE {self.parts_name}",
        )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="600,2400,9600")
    parser.add_argument("--part-documents", type=int, default=300)
    parser.add_argument("--reference", help="another checkout whose merge runs on the same parts")
    parser.add_argument("--database", default="/tmp/falte_bench_merge.sqlite3")
    parser.add_argument("--database-url", help="a PostgreSQL database (dropped and made again) instead")
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(*args.child)
        return
    sys.path.insert(0, str(ROOT))
    from tests.reports.span_bundle import write_span_bundle

    out = ROOT / "bench" / "out"
    out.mkdir(exist_ok=True)
    database = PostgresDatabase(args.database_url) if args.database_url else SqliteFile(args.database)
    env = dict(os.environ, DATABASE_URL=database.url, READ_DOT_ENV="0", DEBUG="0",
               SECRET_KEY="bench-only-key-" + "x" * 40, DJANGO_SETTINGS_MODULE="falte_site.settings",
               REPORT_PART_DOCUMENTS=str(args.part_documents), CELERY_TASK_ALWAYS_EAGER="1")  # fmt: skip
    python = sys.executable
    checkouts = [("this", ROOT)] + ([("reference", Path(args.reference))] if args.reference else [])
    rows = []
    print(f"load average at the start: {os.getloadavg()[0]:.1f}", flush=True)
    for documents in [int(size) for size in args.sizes.split(",")]:
        database.fresh()
        subprocess.run([python, "manage.py", "migrate", "-v", "0"], env=env, cwd=ROOT, check=True)
        bundle = write_span_bundle(out / f"merge-{documents}", slug="merge", documents=documents, segments=4,
                                   spans=4, annotators=5, assisted=True, evaluators=2, seed=7)  # fmt: skip
        subprocess.run([python, "manage.py", "import_study", str(bundle)], env=env, cwd=ROOT, check=True,
                       stdout=subprocess.DEVNULL)  # fmt: skip
        script = str(ROOT / "bench" / "report_merge.py")
        wall, cpu, peak = measured([python, script, "--child", "parts", str(ROOT), "merge", "-"], env, ROOT)
        rows.append((documents, "parts (this, all in one process)", wall, cpu, peak, ""))
        database.keep_parts()  # each merge starts from the same parts
        results = {}
        for name, checkout in checkouts:
            database.from_parts()
            target = out / f"merge-{name}-{documents}.json"
            command = [python, script, "--child", "merge", str(checkout), "merge", str(target)]
            wall, cpu, peak = measured(command, env, checkout)
            results[name] = target.read_text()
            same = (
                "" if name == "this" else ("same result" if results[name] == results["this"] else "DIFFERENT")
            )
            rows.append((documents, f"merge ({name})", wall, cpu, peak, same))
            print(*rows[-1], f"load {os.getloadavg()[0]:.1f}", flush=True)
    print("| documents | step | wall s | CPU s | peak RSS MB | |")
    print("| --- | --- | --- | --- | --- | --- |")
    for documents, step, wall, cpu, peak, same in rows:
        print(f"| {documents:,} | {step} | {wall:.1f} | {cpu:.1f} | {peak:.0f} | {same} |")
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
