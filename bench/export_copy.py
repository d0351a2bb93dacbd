"""Benchmark: the span annotation table downloaded at three sizes, COPY against the Python writer.

A fresh PostgreSQL database with 1,000 documents x 10 segments and 3 submitted assignments
per document (1% of them found nothing; a third carry worker feedback); the annotations grow
to each size in turn (INSERT ... SELECT generate_series: every 10th span paired, every 7th
comment with a comma, every 50th a formula, quotes, a line break and an emoji). At each size,
each export runs in a fresh process of its own: GET /api/exports/studies/<id>/annotations.csv
(or .parquet) through Django's full middleware stack as a logged-in researcher, the streamed
body read to the end. Printed per export: rows/s, time to the first byte (the header) and to the first row,
wall time, CPU time
of the exporting process (user + system, from getrusage) and of its PostgreSQL backend (from
/proc), and the process's peak RSS (ru_maxrss) beside its RSS before the request.

- copy:    the CSV through the COPY fast path (protocols/span/export_copy.py);
- python:  the same view with the fast path off: the writer the CSV had before it (the reference);
- parquet: annotations.parquet from the bulk path (the COPY statements with raw cells, parsed
  into Arrow batches by pyarrow, exports/arrow.py), written a row group at a time;
- parquet-rows: the same view with the bulk path off: the protocol's Python rows, built into
  columns a chunk at a time (the path SQLite and the other protocols take);
- jsonl:   annotations.jsonl, from the protocol's Python rows (exports/rows.py).

The load average (1 minute) is printed beside each export: the machine is shared.

    .venv/bin/python bench/export_copy.py [--sizes 1000000,3000000,10000000] [--formats copy,parquet]
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import psycopg

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.import_bundle import fresh_database, write_bundle  # noqa: E402

DOCUMENTS, SEGMENTS, PER_DOCUMENT = 1000, 10, 3
EXPORT = """
import json, os, resource, time
from pathlib import Path
import django
django.setup()
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client
from studies import protocols
from studies.models import Study

def backend_cpu(pid):
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

study = Study.objects.get(slug="bench-import")
mode = os.environ["BENCH_MODE"]
if mode == "python":  # the view as it was: the protocol offers no fast path
    type(protocols.of(study)).export_csv_copy = lambda self, study, **options: None
if mode == "parquet-rows":  # Parquet without the bulk path: the protocol's Python rows
    type(protocols.of(study)).export_arrow_batches = lambda self, study, **options: None
client = Client()
client.force_login(get_user_model().objects.get(username="bench"))
with connection.cursor() as cursor:  # CONN_MAX_AGE keeps this backend for the request
    cursor.execute("SELECT pg_backend_pid()")
    backend = cursor.fetchone()[0]
rss_before = int(next(line for line in Path("/proc/self/status").read_text().splitlines()
                      if line.startswith("VmRSS:")).split()[1]) / 1024
file_format = mode if mode == "jsonl" else "parquet" if mode.startswith("parquet") else "csv"
database_before, cpu_before = backend_cpu(backend), time.process_time()
started = time.perf_counter()
response = client.get(f"/api/exports/studies/{study.pk}/annotations.{file_format}")
assert response.status_code == 200 and response.streaming, response.status_code
chunks = iter(response.streaming_content)
body = open(os.environ["BENCH_BODY"], "wb") if file_format == "parquet" else None  # read back below
size = len(first := next(chunks))  # the header (CSV) or the magic bytes (Parquet)
first_byte = time.perf_counter() - started
first_row = None
body and body.write(first)
for chunk in chunks:
    size += len(chunk)
    body and body.write(chunk)
    if first_row is None:
        first_row = time.perf_counter() - started
seconds = time.perf_counter() - started
cpu = time.process_time() - cpu_before
response.close()
file_rows = None
if body:
    import pyarrow.parquet as pq
    body.close()
    file_rows = pq.ParquetFile(os.environ["BENCH_BODY"]).metadata.num_rows
print(json.dumps({"file_rows": file_rows, "bytes": size, "first_byte": first_byte, "first_row": first_row, "seconds": seconds, "cpu": cpu,
                  "database_cpu": backend_cpu(backend) - database_before, "rss_before": rss_before,
                  "peak_rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "load": os.getloadavg()[0]}))
"""


def load_study(url, env, bundle):
    """A fresh database with the bundle's study (slug bench-import) and a superuser "bench" to
    download as; the study's id."""
    fresh_database(url)
    python = sys.executable
    subprocess.run([python, "manage.py", "migrate", "-v", "0"], env=env, cwd=ROOT, check=True)
    subprocess.run([python, "manage.py", "import_study", str(bundle)], env=env, cwd=ROOT, check=True,
                   stdout=subprocess.DEVNULL)  # fmt: skip
    subprocess.run(
        [python, "manage.py", "shell", "-c",
         "from django.contrib.auth import get_user_model; "
         "get_user_model().objects.create_superuser('bench', 'b@example.org', 'x-bench-pass')"],
        env=env, cwd=ROOT, check=True,
    )  # fmt: skip
    with psycopg.connect(url, autocommit=True) as connection:
        return connection.execute("SELECT id FROM studies_study WHERE slug = 'bench-import'").fetchone()[0]


def setup(url, env):
    bundle = ROOT / "bench" / "out" / f"export-{DOCUMENTS}x{SEGMENTS}"
    write_bundle(bundle, DOCUMENTS, SEGMENTS)
    study = load_study(url, env, bundle)
    with psycopg.connect(url, autocommit=True) as connection:
        for n in range(PER_DOCUMENT):
            connection.execute(
                "INSERT INTO accounts_worker (platform, external_id, created_at) VALUES ('prolific', %s, now())",
                [f"PROLIFIC-{n}"],
            )
        connection.execute(
            "INSERT INTO annotations_assignment (study_id, document_id, worker_id, kind, block, token, status, "
            "current_segment, segments_visited, created_at, submitted_at, active_seconds, completion_code, "
            "platform_ids, joined, flagged, items, arm, worker_feedback) SELECT %s, d.id, w.id, 'main', '', "
            "md5(random()::text || d.id || w.id), 'submitted', 0, '[]', now(), now(), 600, '', '{}', false, "
            "false, '[]', '', CASE WHEN (d.id + w.id) %% 3 = 0 THEN 'Too long, \"really\"' ELSE '' END "
            "FROM studies_document d CROSS JOIN accounts_worker w WHERE d.study_id = %s", [study, study])  # fmt: skip
        return study


def grow(url, study, per_assignment, already):
    """Add annotations until each assignment (but the 1% that found nothing) has `per_assignment`."""
    with psycopg.connect(url, autocommit=True) as connection:
        categories = dict(
            connection.execute(
                "SELECT c.kind, c.id FROM studies_category c JOIN studies_study s ON s.taxonomy_id = c.taxonomy_id "
                "WHERE s.id = %s",
                [study],
            ).fetchall()  # fmt: skip
        )
        connection.execute(
            'INSERT INTO span_errorannotation (assignment_id, segment_id, category_id, start, "end", text, '
            "paired_segment_id, paired_start, paired_end, paired_text, comment, answers, client_id, created_at) "
            "SELECT a.id, s.id, CASE WHEN g %% 10 = 0 THEN %(paired)s ELSE %(single)s END, g %% 7, g %% 7 + 12, "
            "substr(s.text, g %% 7 + 1, 12), CASE WHEN g %% 10 = 0 THEN first.id END, "
            "CASE WHEN g %% 10 = 0 THEN 0 END, CASE WHEN g %% 10 = 0 THEN 5 END, "
            "CASE WHEN g %% 10 = 0 THEN left(first.text, 5) ELSE '' END, "
            "CASE WHEN g %% 50 = 0 THEN '=SUM(A1), \"quoted\"' || chr(10) || 'line 😀' "
            "WHEN g %% 7 = 0 THEN 'names, places' ELSE '' END, '{}', 'b' || g, "
            "timestamptz '2026-11-21 09:00' + g * interval '1.5 ms' "
            "FROM annotations_assignment a CROSS JOIN generate_series(%(from)s, %(to)s - 1) g "
            "JOIN studies_segment s ON s.document_id = a.document_id AND s.index = g %% %(segments)s "
            "JOIN studies_segment first ON first.document_id = a.document_id AND first.index = 0 "
            "WHERE a.study_id = %(study)s AND a.id %% 100 <> 0",
            {"paired": categories["paired"], "single": categories["singleton"], "from": already,
             "to": per_assignment, "segments": SEGMENTS, "study": study},
        )  # fmt: skip
        connection.execute("VACUUM ANALYZE span_errorannotation")
        return connection.execute(
            "SELECT count(*) FROM span_errorannotation e JOIN annotations_assignment a ON a.id = e.assignment_id "
            "WHERE a.study_id = %s", [study]).fetchone()[0]  # fmt: skip


def export(mode, env, rows, root=ROOT):
    """The figures of one download in a fresh process of checkout `root`; a Parquet file must hold
    `rows` rows."""
    with tempfile.NamedTemporaryFile(suffix=".parquet") as body:
        process = subprocess.run(
            [sys.executable, "-c", EXPORT], env=dict(env, BENCH_MODE=mode, BENCH_BODY=body.name), cwd=root,
            check=True, capture_output=True, text=True,
        )  # fmt: skip
    result = json.loads(process.stdout.strip().splitlines()[-1])
    assert result["file_rows"] in (None, rows), f"{mode}: {result['file_rows']} rows in the file, not {rows}"
    return result


def export_env(database_url, largest):
    """The environment of a production-like export process: streamed up to twice the largest size."""
    return dict(os.environ, DATABASE_URL=database_url, READ_DOT_ENV="0", DEBUG="0", CONN_MAX_AGE="600",
                SECRET_KEY="bench-only-key-" + "x" * 40, ALLOWED_HOSTS="testserver", SECURE_SSL_REDIRECT="0",
                EXPORT_STREAM_MAX_ROWS=str(largest * 2), DJANGO_SETTINGS_MODULE="falte_site.settings")  # fmt: skip


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000000,3000000,10000000", help="annotations, ascending")
    parser.add_argument(
        "--formats", default="copy,parquet", help="copy, python, parquet, parquet-rows, jsonl"
    )
    parser.add_argument("--database-url", default="postgres://postgres@127.0.0.1:5432/falte_bench_export_h6")
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    env = export_env(args.database_url, max(sizes))
    study = setup(args.database_url, env)
    assignments = DOCUMENTS * PER_DOCUMENT
    with_annotations = assignments - assignments // 100
    print(f"{DOCUMENTS:,} documents x {SEGMENTS} segments, {assignments:,} submitted assignments")
    print(
        "format        rows         MB     rows/s  first byte  first row  wall s  CPU s  db CPU s  RSS before  "
        "peak RSS  load"
    )
    already = 0
    for size in sizes:
        per_assignment = -(-size // with_annotations)
        annotations = grow(args.database_url, study, per_assignment, already)
        already = per_assignment
        rows = annotations + (assignments - with_annotations)
        for mode in args.formats.split(","):
            result = export(mode, env, rows)
            print(f"{mode:12} {rows:>10,} {result['bytes'] / 1e6:>7,.1f} {rows / result['seconds']:>10,.0f} "
                  f"{result['first_byte']:>9.3f} s {result['first_row']:>8.3f} s {result['seconds']:>7.1f} "
                  f"{result['cpu']:>6.1f} "
                  f"{result['database_cpu']:>8.1f} {result['rss_before']:>8.0f} MB {result['peak_rss']:>6.0f} MB "
                  f"{result['load']:>5.1f}",
                  flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
