"""Benchmark: a translation study's annotation table downloaded at three sizes, in every format.

An ESA study (error spans and a 0-100 score per segment, protocols/translation) whose corpus
grows with the table, as a campaign's does: at each size a fresh PostgreSQL database holds
DOCUMENTS documents (one input's translation by one of SYSTEMS systems, SEGMENTS segments each,
the sources in the documents' meta) imported from a bundle with `manage.py import_study`, and
RATERS submitted assignments per document (a third with worker feedback), each scoring every
segment and marking an error in about half of them (a third Major, every 7th with a comment),
added by INSERT ... SELECT. A row of the table is a rated segment, so documents = rows /
(SEGMENTS x RATERS).

Each format is downloaded in a fresh process through the export view as a logged-in researcher
(bench/export_copy.py's `export`: wall and CPU time of the process, CPU of its PostgreSQL
backend, RSS before the request and peak RSS, the load average); `mqm-tsv` is the study as an
MQM TSV file (`manage.py export_mqm`, a line per error), timed as its own process (wait4) with
the CPU of the database's backends.

    .venv/bin/python bench/export_translation.py [--sizes 100000,300000,1000000]
        [--formats copy,jsonl,parquet,mqm-tsv] [--prefix falte_bench_translation] [--keep] [--reuse]
        [--reference /path/to/worktree] [--serial]

`--reference` exports the same formats from the same database with another checkout too, in the
same run (a `git worktree` of the code before). `--reuse` keeps a size's database when it is
already there (`--keep` leaves them all behind). `--serial` turns PostgreSQL's parallel workers
off for the exports (PGOPTIONS): a parallel worker is a process of its own, not the backend whose
CPU is read, and a short-lived one ends between two samples, so a plan with a Gather under-counts.

(`copy` is the CSV, export_copy.py's name: a translation study has no COPY path, so the view
writes the CSV from the protocol's rows.)
"""

import argparse
import hashlib
import json
import os
import sys
import tempfile
from pathlib import Path

import psycopg

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.export_copy import export, export_env, load_study  # noqa: E402
from bench.import_bundle import run_measured_cpu  # noqa: E402
from bench.process_cpu import PostgresBackendCPU  # noqa: E402

SEGMENTS, SYSTEMS, RATERS = 10, 5, 3
ROWS_PER_DOCUMENT = SEGMENTS * RATERS


def write_esa_bundle(directory, documents):
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "study.yaml").write_text(
        "slug: bench-import\ntitle: ESA export benchmark\nprotocol: esa\n"
        f"annotators_per_document: {RATERS}\nconfig:\n  score_warnings: {{high: 66, low: 33}}\n"
    )
    with open(directory / "documents.jsonl", "w", encoding="utf-8") as handle:
        for number in range(documents):
            item, system = divmod(number, SYSTEMS)
            record = {
                "id": f"in{item:06d}#sys{system}",
                "input_id": f"in{item:06d}",
                "system": f"sys{system}",
                "segments": [
                    f'Translation {item}-{index} by system {system}: the council met on Tuesday, "as planned".'
                    for index in range(SEGMENTS)
                ],
                "meta": {
                    "sources": [
                        f"Quelle {item}-{index}: der Rat tagte am Dienstag." for index in range(SEGMENTS)
                    ],
                    "source_lang": "de",
                    "target_lang": "en",
                },
            }
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")


def rate(url, study):
    """RATERS submitted assignments per document, a score of every segment and errors in about
    half of them; the study's rated segments (the table's rows)."""
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute(
            "INSERT INTO accounts_worker (platform, external_id, created_at) "
            "SELECT 'prolific', 'PROLIFIC-' || n, now() FROM generate_series(0, %s - 1) n",
            [RATERS],
        )
        connection.execute(
            "INSERT INTO annotations_assignment (study_id, document_id, worker_id, kind, block, token, status, "
            "current_segment, segments_visited, created_at, submitted_at, active_seconds, completion_code, "
            "platform_ids, joined, flagged, items, arm, worker_feedback) "
            "SELECT %(study)s, d.id, w.id, 'main', '', md5(random()::text || d.id || w.id), 'submitted', 0, "
            "'[]', now(), now(), 420, '', '{}', false, false, '[]', '', "
            "CASE WHEN (d.id + w.id) %% 3 = 0 THEN 'Segment 4 was \"odd\", the rest fine' ELSE '' END "
            "FROM studies_document d CROSS JOIN accounts_worker w WHERE d.study_id = %(study)s",
            {"study": study},
        )  # fmt: skip
        connection.execute(
            "INSERT INTO translation_segmentscore (assignment_id, segment_id, score, updated_at) "
            "SELECT a.id, s.id, (a.id * 7 + s.index * 13) %% 101, now() FROM annotations_assignment a "
            "JOIN studies_segment s ON s.document_id = a.document_id WHERE a.study_id = %s",
            [study],
        )  # fmt: skip
        connection.execute(
            'INSERT INTO translation_translationerror (assignment_id, segment_id, side, start, "end", text, '
            "category_id, severity, comment, client_id, suggestion_id, created_at) "
            "SELECT a.id, s.id, 'target', 12, 23, substr(s.text, 13, 11), NULL, "
            "CASE WHEN (a.id + s.index) %% 3 = 0 THEN 'Major' ELSE 'Minor' END, "
            "CASE WHEN (a.id + s.index) %% 7 = 0 THEN 'reads \"oddly\", see the source' ELSE '' END, "
            "'e' || s.id, NULL, now() FROM annotations_assignment a "
            "JOIN studies_segment s ON s.document_id = a.document_id "
            "WHERE a.study_id = %s AND (a.id + s.index) %% 2 = 0",
            [study],
        )  # fmt: skip
        for table in ("annotations_assignment", "translation_segmentscore", "translation_translationerror"):
            connection.execute(f"VACUUM ANALYZE {table}")
        return connection.execute(
            "SELECT count(*) FROM translation_segmentscore r JOIN annotations_assignment a ON a.id = r.assignment_id "
            "WHERE a.study_id = %s", [study]).fetchone()[0]  # fmt: skip


def existing_rows(url):
    """The table's rows in a database an earlier run left (with --keep), or None."""
    try:
        with psycopg.connect(url, autocommit=True) as connection:
            return connection.execute("SELECT count(*) FROM translation_segmentscore").fetchone()[0] or None
    except psycopg.OperationalError:
        return None


def export_mqm_tsv(env, database, root=ROOT):
    """The figures of `manage.py export_mqm` of checkout `root` in a process of its own, as export()
    gives them."""
    with tempfile.TemporaryDirectory() as directory:
        out = Path(directory) / "study.tsv"
        database_cpu = PostgresBackendCPU(database)
        database_cpu.start()
        command = [sys.executable, "manage.py", "export_mqm", "bench-import", str(out)]
        wall, cpu, peak = run_measured_cpu(command, env, cwd=root)
        database_seconds = database_cpu.stop()
        return {"bytes": out.stat().st_size, "sha256": hashlib.sha256(out.read_bytes()).hexdigest(),
                "seconds": wall, "cpu": cpu, "database_cpu": database_seconds,
                "first_byte": float("nan"), "rss_before": float("nan"), "peak_rss": peak,
                "load": os.getloadavg()[0]}  # fmt: skip


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="100000,300000,1000000", help="rated segments (rows), ascending")
    parser.add_argument("--formats", default="copy,jsonl,parquet,mqm-tsv")
    parser.add_argument(
        "--prefix", default="falte_bench_translation", help="a database <prefix>_<rows> per size"
    )
    parser.add_argument("--keep", action="store_true", help="keep the databases (dropped otherwise)")
    parser.add_argument("--reuse", action="store_true", help="use a size's database when it is there")
    parser.add_argument("--reference", help="a checkout of the code before, exporting the same files")
    parser.add_argument(
        "--serial",
        action="store_true",
        help="no parallel workers in the exports' queries, so their whole cost is the backend's CPU",
    )
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    print(f"ESA: {SYSTEMS} systems, {SEGMENTS} segments per document, {RATERS} raters per document")
    print(
        "format                 rows    documents       MB     rows/s  first byte  wall s  CPU s  db CPU s  RSS before  "
        "peak RSS  load"
    )
    for size in sizes:
        documents = -(-size // ROWS_PER_DOCUMENT)
        database = f"{args.prefix}_{size}"
        url = f"postgres://postgres@127.0.0.1:5432/{database}"
        env = dict(export_env(url, max(sizes)), BUNDLE_MAX_FILE_BYTES="2000000000")
        bundle = ROOT / "bench" / "out" / f"export-esa-{documents}"
        write_esa_bundle(bundle, documents)
        rows = (args.reuse and existing_rows(url)) or rate(url, load_study(url, env, bundle))
        runs = [(mode, ROOT) for mode in args.formats.split(",")]
        if args.reference:
            runs += [(mode, Path(args.reference)) for mode in args.formats.split(",")]
        if args.serial:
            env = dict(env, PGOPTIONS="-c max_parallel_workers_per_gather=0")
        files = {}
        for mode, root in runs:
            result = (
                export_mqm_tsv(env, database, root) if mode == "mqm-tsv" else export(mode, env, rows, root)
            )
            name = ("csv" if mode == "copy" else mode) + (" (ref.)" if root != ROOT else "")
            print(f"{name:16} {rows:>10,} {documents:>10,} {result['bytes'] / 1e6:>8,.1f} "
                  f"{rows / result['seconds']:>10,.0f} {result['first_byte']:>9.3f} s {result['seconds']:>7.1f} "
                  f"{result['cpu']:>6.1f} {result['database_cpu']:>8.1f} {result['rss_before']:>8.0f} MB "
                  f"{result['peak_rss']:>6.0f} MB {result['load']:>5.1f}",
                  flush=True)  # fmt: skip
            if mode == "mqm-tsv" and files.setdefault(mode, result["sha256"]) != result["sha256"]:
                print(f"  the MQM TSV of {root} differs from that of {ROOT}", flush=True)
        if not args.keep:
            with psycopg.connect(
                "postgres://postgres@127.0.0.1:5432/postgres", autocommit=True
            ) as connection:
                connection.execute(f'DROP DATABASE IF EXISTS "{database}"')


if __name__ == "__main__":
    main()
