"""Benchmark: export 1,000,000 annotations as CSV, streamed from PostgreSQL.

Issue 6 targets: under 60 s, peak memory under 300 MB, first byte under
2 s. In the same run, the django-import-export export of the same rows
(ErrorAnnotationResource, the admin's Export button) as the reference:
printed as ratios.

The streamed export runs in gunicorn (1 sync worker) and is read over HTTP
with an API token; its peak memory is the worker process's VmHWM. The
reference runs in its own process (peak RSS from wait4).

    .venv/bin/python bench/export_csv.py [--annotations 1000000]
"""

import argparse
import http.client
import io
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psycopg

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.import_bundle import fresh_database, run_measured, write_bundle  # noqa: E402

PORT = 8767
REFERENCE = """
import django, os, time
django.setup()
from protocols.span.models import ErrorAnnotation
from protocols.span.resources import ErrorAnnotationResource
queryset = ErrorAnnotation.objects.filter(assignment__study__slug="bench-import").select_related(
    "assignment__study", "assignment__document", "segment", "category", "paired_segment")
started = time.perf_counter()
data = ErrorAnnotationResource().export(queryset=queryset).csv
print(f"rows {data.count(chr(10)) - 1} bytes {len(data)} seconds {time.perf_counter() - started:.1f}")
"""


def fill_annotations(url, total):
    """Three submitted assignments per document and `total` annotations, loaded with COPY."""
    with psycopg.connect(url, autocommit=True) as connection:
        study_id = connection.execute("SELECT id FROM studies_study WHERE slug = 'bench-import'").fetchone()[
            0
        ]
        category = connection.execute(
            "SELECT c.id FROM studies_category c JOIN studies_study s ON s.taxonomy_id = c.taxonomy_id "
            "WHERE s.id = %s AND c.kind = 'singleton'", [study_id]).fetchone()[0]  # fmt: skip
        for n in range(3):
            connection.execute(
                "INSERT INTO accounts_worker (platform, external_id, created_at) VALUES ('prolific', %s, now())",
                [f"PROLIFIC-{n}"],
            )
        connection.execute(
            "INSERT INTO annotations_assignment (study_id, document_id, worker_id, kind, block, token, status, "
            "current_segment, segments_visited, created_at, submitted_at, active_seconds, completion_code, "
            "platform_ids, joined, flagged) SELECT %s, d.id, w.id, 'main', '', md5(random()::text || d.id || w.id), "
            "'submitted', 0, '[]', now(), now(), 600, '', '{}', false, false "
            "FROM studies_document d CROSS JOIN accounts_worker w WHERE d.study_id = %s", [study_id, study_id])  # fmt: skip
        assignments = connection.execute(
            "SELECT a.id, a.document_id FROM annotations_assignment a WHERE a.study_id = %s ORDER BY a.id",
            [study_id],
        ).fetchall()
        segments = {}
        for segment_id, document_id, text in connection.execute(
            "SELECT s.id, s.document_id, s.text FROM studies_segment s JOIN studies_document d ON d.id = s.document_id "
            "WHERE d.study_id = %s", [study_id]):  # fmt: skip
            segments.setdefault(document_id, []).append((segment_id, text[:12]))
        per_assignment = -(-total // len(assignments))
        with (
            connection.cursor() as cursor,
            cursor.copy(
                'COPY span_errorannotation (assignment_id, segment_id, category_id, start, "end", text, '
                "paired_text, comment, answers, client_id, created_at) FROM STDIN"
            ) as copy,
        ):
            written = 0
            for assignment_id, document_id in assignments:
                choices = segments[document_id]
                for n in range(per_assignment):
                    if written == total:
                        break
                    segment_id, text = choices[n % len(choices)]
                    copy.write_row(
                        (
                            assignment_id,
                            segment_id,
                            category,
                            0,
                            12,
                            text,
                            "",
                            "",
                            "{}",
                            f"b{n}",
                            "2026-11-21",
                        )
                    )
                    written += 1
        return study_id, written


def vm_hwm_mb(pid):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--annotations", type=int, default=1_000_000)
    parser.add_argument("--database-url", default="postgres://postgres@127.0.0.1:5432/falte_bench_export")
    args = parser.parse_args()
    env = dict(os.environ, DATABASE_URL=args.database_url, READ_DOT_ENV="0", DEBUG="0",
               SECRET_KEY="bench-only-key-" + "x" * 40, ALLOWED_HOSTS="127.0.0.1", SECURE_SSL_REDIRECT="0",
               EXPORT_STREAM_MAX_ROWS=str(args.annotations * 2), DJANGO_SETTINGS_MODULE="falte_site.settings")  # fmt: skip
    fresh_database(args.database_url)
    python = sys.executable
    subprocess.run([python, "manage.py", "migrate", "-v", "0"], env=env, cwd=ROOT, check=True)
    bundle = ROOT / "bench" / "out" / "export-1000x10"
    write_bundle(bundle, 1000, 10)
    subprocess.run([python, "manage.py", "import_study", str(bundle)], env=env, cwd=ROOT, check=True,
                   stdout=subprocess.DEVNULL)  # fmt: skip
    study_id, rows = fill_annotations(args.database_url, args.annotations)
    token = subprocess.run(
        [python, "manage.py", "shell", "-c",
         "from django.contrib.auth import get_user_model; from rest_framework.authtoken.models import Token; "
         "u = get_user_model().objects.create_superuser('bench', 'b@example.org', 'x-bench-pass'); "
         "print(Token.objects.create(user=u).key)"],
        env=env, cwd=ROOT, check=True, capture_output=True, text=True,
    ).stdout.strip().splitlines()[-1]  # fmt: skip

    server = subprocess.Popen(
        [str(Path(python).parent / "gunicorn"), "falte_site.wsgi", "--workers", "1", "--timeout", "600",
         "--bind", f"127.0.0.1:{PORT}", "--log-level", "warning"], env=env, cwd=ROOT)  # fmt: skip
    try:
        for _ in range(100):
            try:
                http.client.HTTPConnection("127.0.0.1", PORT, timeout=1).request("GET", "/api/schema/")
                break
            except OSError:
                time.sleep(0.1)
        time.sleep(1)
        worker_pid = int(Path(f"/proc/{server.pid}/task/{server.pid}/children").read_text().split()[0])
        connection = http.client.HTTPConnection("127.0.0.1", PORT, timeout=600)
        started = time.perf_counter()
        connection.request("GET", f"/api/exports/studies/{study_id}/annotations.csv",
                           headers={"Authorization": f"Token {token}"})  # fmt: skip
        response = connection.getresponse()
        first = response.read(1)
        first_byte = time.perf_counter() - started
        size, lines = 1, first.count(b"\n")
        while chunk := response.read(1 << 20):
            size += len(chunk)
            lines += chunk.count(b"\n")
        seconds = time.perf_counter() - started
        peak = vm_hwm_mb(worker_pid)
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
    print(f"rows in the database: {rows:,} annotations")
    print(f"streamed CSV (gunicorn, PostgreSQL): status {response.status}, {lines - 1:,} rows, {size / 1e6:.0f} MB, "
          f"first byte {first_byte:.2f} s (target < 2 s), total {seconds:.1f} s (target < 60 s), "
          f"worker peak RSS {peak:.0f} MB (target < 300 MB)")  # fmt: skip

    output = io.StringIO()
    ref_seconds, ref_peak = run_measured([python, "-c", REFERENCE], env)
    print(f"django-import-export (ErrorAnnotationResource().export().csv), same rows: {ref_seconds:.1f} s "
          f"(whole process), peak RSS {ref_peak:.0f} MB")  # fmt: skip
    print(
        f"ratios streamed / django-import-export: time {seconds / ref_seconds:.2f}, memory {peak / ref_peak:.2f}"
    )
    del output


if __name__ == "__main__":
    main()
