"""Benchmark: the admin's Export button (errors annotations, CSV / XLSX / JSON) at several sizes.

Uses the span studies bench/import_annotations.py left (`<prefix>_<documents>_this`, study
"bench-report", 90 spans per document). Each export runs in its own process: the admin's export
view, called as a superuser with the study filter and every field, its body read to the end;
CPU of the process (time.process_time), RSS before the request and peak RSS (ru_maxrss), the
bytes, the CPU of PostgreSQL's backends of the database (bench/process_cpu.py) and the load. `--rows` exports
only the first N spans of the changelist's queryset, for sizes below a whole study. `--library` runs
django-import-export's own writer instead (the code before: the whole file in memory).

    .venv/bin/python bench/admin_export.py [--documents 1000,3000,10000] [--formats csv,xlsx,json]
        [--prefix falte_bench_import] [--library] [--rows 3000,9000,27000]
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.process_cpu import PostgresBackendCPU  # noqa: E402

FORMAT_NAMES = {"csv": "SpreadsheetSafeCSV", "xlsx": "SpreadsheetSafeXLSX", "json": "JSON"}


def export_in_this_process(file_format, library, rows):
    """(rows' bytes, CPU s, wall s, peak RSS MB) of one admin export, measured here."""
    import django

    django.setup()
    from django.contrib import admin
    from django.contrib.auth import get_user_model
    from django.db.models import Subquery
    from django.test import RequestFactory
    from import_export.admin import ExportMixin

    from exports.admin_export import StreamedExportMixin
    from exports.resources import EXPORT_FORMATS
    from protocols.span.models import ErrorAnnotation
    from studies.models import Study

    if library:
        StreamedExportMixin._do_file_export = ExportMixin._do_file_export
    user = get_user_model().objects.filter(username="bench-admin").first()
    if user is None:
        user = get_user_model().objects.create_superuser("bench-admin", "bench@example.org", None)
    study = Study.objects.get(slug="bench-report")
    model_admin = admin.site._registry[ErrorAnnotation]
    if rows:  # the first `rows` spans of the changelist's own queryset (filters and scoping kept)
        changelist_queryset = model_admin.get_export_queryset

        def first_rows(request):
            queryset = changelist_queryset(request)
            return queryset.filter(pk__in=Subquery(queryset.order_by("pk").values("pk")[:rows]))

        model_admin.get_export_queryset = first_rows
    names = [fmt.__name__ for fmt in EXPORT_FORMATS]
    fields = ["id", "study", "document", "segment", "start", "end", "text", "category", "paired_segment",
              "paired_start", "paired_end", "paired_text", "comment", "annotator", "assignment", "kind",
              "created_at"]  # fmt: skip
    data = {"format": str(names.index(FORMAT_NAMES[file_format])), "resource": "0",
            **{f"errorannotationresource_{name}": "on" for name in fields}}  # fmt: skip
    request = RequestFactory().post(f"/admin/span/errorannotation/export/?study={study.pk}", data)
    request.user = user
    status = Path("/proc/self/status").read_text().splitlines()
    rss_before = int(next(line for line in status if line.startswith("VmRSS:")).split()[1]) / 1024
    cpu, started = time.process_time(), time.perf_counter()
    response = model_admin.export_action(request)
    assert response.status_code == 200, response.status_code
    size = 0
    for chunk in response.streaming_content if response.streaming else [response.content]:
        size += len(chunk)
    response.close()
    return {
        "bytes": size,
        "cpu": time.process_time() - cpu,
        "wall": time.perf_counter() - started,
        "peak": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "rss_before": rss_before,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", default="1000,3000,10000")
    parser.add_argument("--formats", default="csv,xlsx,json")
    parser.add_argument("--prefix", default="falte_bench_import")
    parser.add_argument("--library", action="store_true", help="django-import-export's own writer")
    parser.add_argument("--rows", help="e.g. 3000,9000,27000: the first N spans of the first database")
    parser.add_argument("--one", help=argparse.SUPPRESS)  # the child process: its format
    parser.add_argument("--limit", type=int, default=0, help=argparse.SUPPRESS)  # the child's rows
    args = parser.parse_args()
    if args.one:
        print(json.dumps(export_in_this_process(args.one, args.library, args.limit)))
        return
    writer = "django-import-export" if args.library else "streamed"
    limits = [int(n) for n in args.rows.split(",")] if args.rows else [0]
    sizes = [(int(n), limit) for n in args.documents.split(",") for limit in limits]
    for documents, limit in sizes:
        database = f"{args.prefix}_{documents}_this"
        env = dict(os.environ, DATABASE_URL=f"postgres://postgres@127.0.0.1:5432/{database}",
                   READ_DOT_ENV="0", DEBUG="0", SECRET_KEY="bench-only-key-" + "x" * 40,
                   DJANGO_SETTINGS_MODULE="falte_site.settings")  # fmt: skip
        for file_format in args.formats.split(","):
            command = [sys.executable, __file__, "--one", file_format] + (
                ["--library"] if args.library else []
            )
            database_cpu = PostgresBackendCPU(database)
            database_cpu.start()
            done = subprocess.run(command, env=env, cwd=ROOT, check=True, capture_output=True, text=True)
            pg = database_cpu.stop()
            result = json.loads(done.stdout.strip().splitlines()[-1])
            load = " ".join(f"{value:.2f}" for value in os.getloadavg())
            rows = f"first {limit:,} spans" if limit else "all spans"
            print(f"admin export, {writer}, {documents:,} documents, {rows}, {file_format}: {result['bytes'] / 1e6:.1f} MB, "
                  f"{result['wall']:.1f} s wall, {result['cpu']:.1f} s CPU, {pg:.1f} s PostgreSQL CPU, RSS before "
                  f"{result['rss_before']:.0f} MB, peak RSS {result['peak']:.0f} MB "
                  f"(load average {load})", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
