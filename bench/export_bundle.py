"""Benchmark: export a span study as a bundle, from the databases bench/import_annotations.py left.

For each size, `manage.py export_study` of the study imported by this checkout, run by this checkout
and (with --reference) by the reference checkout: wall time, CPU of the exporting process, CPU of
PostgreSQL's backends, peak RSS, and whether the files are byte-identical. When the reference also
imported the study (its database `falte_bench_import_<n>_reference`), that study is exported by this
checkout too and compared: the same files mean both imports wrote the same rows.

    .venv/bin/python bench/export_bundle.py [--documents 3000,10000,30000] [--reference /path/to/worktree]
        [--prefix falte_bench_import] [--zip] [--slug bench-report]

`--zip` downloads the bundle as a researcher does instead (the console's Publish tab links it): GET
/api/exports/studies/<id>/bundle.zip through Django's full middleware stack in a fresh process,
as a superuser, the body read to the end into a temporary file and the zip checked (its members'
CRCs, and that it holds the bundle's files): wall and CPU time of that process, its RSS before
the request and peak RSS, the CPU of PostgreSQL's backends.
"""

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import psycopg

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.import_bundle import run_measured_cpu  # noqa: E402
from bench.process_cpu import PostgresBackendCPU  # noqa: E402

ZIP_DOWNLOAD = """
import json, os, resource, tempfile, time, zipfile
from pathlib import Path
import django
django.setup()
from django.contrib.auth import get_user_model
from django.test import Client
from studies.models import Study

study = Study.objects.get(slug="bench-report")
user = get_user_model().objects.filter(username="bench-admin").first()
if user is None:
    user = get_user_model().objects.create_superuser("bench-admin", "bench@example.org", None)
client = Client()
client.force_login(user)
status = Path("/proc/self/status").read_text().splitlines()
rss_before = int(next(line for line in status if line.startswith("VmRSS:")).split()[1]) / 1024
cpu, started = time.process_time(), time.perf_counter()
response = client.get(f"/api/exports/studies/{study.pk}/bundle.zip")
assert response.status_code == 200 and response.streaming, response.status_code
size = 0
with tempfile.TemporaryFile() as body:
    for chunk in response.streaming_content:
        size += len(chunk)
        body.write(chunk)
    response.close()
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    with zipfile.ZipFile(body) as archive:
        assert archive.testzip() is None, "a member's CRC is wrong"
        members = sorted(archive.namelist())
print(json.dumps({"bytes": size, "members": members, "seconds": seconds, "cpu": cpu, "rss_before": rss_before,
                  "peak": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def download_zip(database):
    """The figures of one bundle.zip download in a fresh process of this checkout."""
    env = dict(os.environ, DATABASE_URL=f"postgres://postgres@127.0.0.1:5432/{database}", READ_DOT_ENV="0",
               DEBUG="0", SECRET_KEY="bench-only-key-" + "x" * 40, ALLOWED_HOSTS="testserver",
               SECURE_SSL_REDIRECT="0", DJANGO_SETTINGS_MODULE="falte_site.settings")  # fmt: skip
    database_cpu = PostgresBackendCPU(database)
    database_cpu.start()
    done = subprocess.run([sys.executable, "-c", ZIP_DOWNLOAD], env=env, cwd=ROOT, check=True,
                          capture_output=True, text=True)  # fmt: skip
    result = json.loads(done.stdout.strip().splitlines()[-1])
    result["database_cpu"] = database_cpu.stop()
    expected = ["bench-report/" + name for name in ("assignments.jsonl", "documents.jsonl", "study.yaml")]
    assert set(expected) <= set(result["members"]), result["members"]
    return result


def exists(database):
    with psycopg.connect("postgres://postgres@127.0.0.1:5432/postgres") as connection:
        return connection.execute("SELECT 1 FROM pg_database WHERE datname = %s", [database]).fetchone()


def export_once(root, database, directory, slug="bench-report"):
    """(wall, process CPU, PostgreSQL CPU, peak RSS MB) of `export_study` run from checkout `root`."""
    shutil.rmtree(directory, ignore_errors=True)
    env = dict(os.environ, DATABASE_URL=f"postgres://postgres@127.0.0.1:5432/{database}", READ_DOT_ENV="0",
               DEBUG="0", SECRET_KEY="bench-only-key-" + "x" * 40, DJANGO_SETTINGS_MODULE="falte_site.settings")  # fmt: skip
    database_cpu = PostgresBackendCPU(database)
    database_cpu.start()
    command = [sys.executable, str(Path(root) / "manage.py"), "export_study", slug, str(directory)]
    wall, cpu, peak = run_measured_cpu(command, env, cwd=root)
    return wall, cpu, database_cpu.stop(), peak


def files(directory):
    """{file name: (size, SHA-256)} of an export, read in blocks: compared without holding the files.
    The peak RSS that wait4 gives for the next export starts from what this process holds when it
    forks it, so holding the files (816 MB at 30,000 documents) showed as that export's peak."""
    found = {}
    for path in sorted(directory.iterdir()):
        with open(path, "rb") as handle:
            found[path.name] = (path.stat().st_size, hashlib.file_digest(handle, "sha256").hexdigest())
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", default="3000,10000,30000")
    parser.add_argument("--reference", help="a checkout of the code before")
    parser.add_argument("--prefix", default="falte_bench_import", help="as given to import_annotations.py")
    parser.add_argument("--zip", action="store_true", help="download bundle.zip through the view instead")
    parser.add_argument("--slug", default="bench-report",
                        help="the study to export: bench-likert or bench-pairwise with --prefix <prefix>_likert ...")  # fmt: skip
    args = parser.parse_args()
    out = ROOT / "bench" / "out"
    for documents in [int(n) for n in args.documents.split(",")]:
        database = f"{args.prefix}_{documents}_this"
        if not exists(database):
            sys.exit(f"no database {database}: run bench/import_annotations.py --documents {documents} first")
        if args.zip:
            result = download_zip(database)
            load = " ".join(f"{value:.2f}" for value in os.getloadavg())
            print(f"bundle.zip of {documents:,} documents ({result['bytes'] / 1e6:.1f} MB, {len(result['members'])} "
                  f"files): {result['seconds']:.1f} s wall, {result['cpu']:.1f} s CPU of the web process, "
                  f"{result['database_cpu']:.1f} s PostgreSQL CPU, RSS before {result['rss_before']:.0f} MB, "
                  f"peak RSS {result['peak']:.0f} MB (load average {load})", flush=True)  # fmt: skip
            continue
        runs = [("this checkout", ROOT)] + ([("reference", Path(args.reference))] if args.reference else [])
        written = {}
        for label, root in runs:
            directory = out / f"export-{documents}-{label.split()[0]}"
            wall, cpu, pg, peak = export_once(root, database, directory, args.slug)
            written[label] = files(directory)
            load = " ".join(f"{value:.2f}" for value in os.getloadavg())
            size = sum(size for size, _ in written[label].values()) / 1e6
            print(f"export of {documents:,} documents ({size:.0f} MB), {label}: {wall:.1f} s wall, {cpu:.1f} s CPU "
                  f"of the export process, {pg:.1f} s PostgreSQL CPU, peak RSS {peak:.0f} MB (load average {load})",
                  flush=True)  # fmt: skip
        if args.reference:
            same = written["this checkout"] == written["reference"]
            print(f"  both checkouts' exports byte-identical: {'yes' if same else 'NO'}")
        if exists(f"{args.prefix}_{documents}_reference"):
            directory = out / f"export-{documents}-of-reference-import"
            export_once(ROOT, f"{args.prefix}_{documents}_reference", directory, args.slug)
            same = files(directory) == written["this checkout"]
            print(
                f"  the reference's import exported by this checkout is byte-identical: {'yes' if same else 'NO'}"
            )


if __name__ == "__main__":
    main()
