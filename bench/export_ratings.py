"""Benchmark: a Likert study's annotation table downloaded at three sizes, in every format.

The span table has its own bench (bench/export_copy.py: the COPY and Arrow bulk paths). The
rating protocols have no bulk path: every format is written from the protocol's Python rows
(protocols/rating/exports.py), read from the database a chunk at a time. This bench shows that
their memory does not grow with the study either.

A fresh PostgreSQL database with a Likert study of BLOCKS blocks x INPUTS inputs x SYSTEMS
systems (10 documents a block); submitted assignments are added per block (one worker each,
a third of them with worker feedback) with a rating of every document of the block, until the
study holds each size in ratings (INSERT ... SELECT). At each size, each format is downloaded
in a fresh process (bench/export_copy.py's: GET /api/exports/studies/<id>/annotations.<format>
through Django's full middleware stack as a logged-in researcher), and the row count of the
Parquet file checked. Printed: rows/s, first byte, wall and CPU time, the PostgreSQL backend's
CPU, RSS before the request and peak RSS, and the load average.

    .venv/bin/python bench/export_ratings.py [--sizes 300000,1000000,3000000] [--formats copy,jsonl,parquet]

(`copy` is the CSV: the name is export_copy.py's; a Likert study has no COPY path, so the view
writes the CSV from the rows.)
"""

import argparse
import json
import sys
from pathlib import Path

import psycopg

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.export_copy import export, export_env, load_study  # noqa: E402

BLOCKS, INPUTS, SYSTEMS = 1000, 2, 5
PER_BLOCK = INPUTS * SYSTEMS


def write_likert_bundle(directory):
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "study.yaml").write_text(
        "slug: bench-import\ntitle: Likert export benchmark\nprotocol: likert\nannotators_per_document: 3\n"
        "config:\n  scale: {min: 1, max: 5}\n  question: Is the summary consistent with the article?\n"
    )
    with open(directory / "documents.jsonl", "w", encoding="utf-8") as handle:
        for block in range(BLOCKS):
            for item in range(INPUTS):
                for system in range(SYSTEMS):
                    record = {
                        "id": f"b{block:04d}-in{item}-sys{system}",
                        "block": f"b{block:04d}",
                        "input_id": f"b{block:04d}-in{item}",
                        "system": f"sys{system}",
                        "source": f'Article {block}-{item}: the council met on Tuesday, "as planned".',
                        "segments": [f"Summary {block}-{item} by system {system}, with a comma."],
                    }
                    handle.write(json.dumps(record) + "\n")


def setup(url, env):
    bundle = ROOT / "bench" / "out" / "export-likert"
    write_likert_bundle(bundle)
    return load_study(url, env, bundle)


def grow(url, study, per_block, already):
    """Add workers `already`..`per_block` - 1, each with a submitted assignment on every block
    and a rating of each of its documents; return the study's ratings."""
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute(
            "INSERT INTO accounts_worker (platform, external_id, created_at) "
            "SELECT 'prolific', 'PROLIFIC-' || n, now() FROM generate_series(%s, %s - 1) n",
            [already, per_block],
        )
        connection.execute(
            "INSERT INTO annotations_assignment (study_id, document_id, worker_id, kind, block, token, status, "
            "current_segment, segments_visited, created_at, submitted_at, active_seconds, completion_code, "
            "platform_ids, joined, flagged, items, arm, worker_feedback) "
            "SELECT %(study)s, NULL, w.id, 'main', b.block, md5(random()::text || b.block || w.id), 'submitted', 0, "
            "'[]', now(), now(), 300, '', '{}', false, false, '[]', '', "
            "CASE WHEN w.id %% 3 = 0 THEN 'Two were \"fine\", one was not' ELSE '' END "
            "FROM (SELECT DISTINCT block FROM studies_document WHERE study_id = %(study)s) b "
            "CROSS JOIN accounts_worker w WHERE w.external_id = ANY(%(workers)s)",
            {"study": study, "workers": [f"PROLIFIC-{n}" for n in range(already, per_block)]},
        )  # fmt: skip
        connection.execute(
            "INSERT INTO rating_rating (assignment_id, document_id, score, updated_at) "
            "SELECT a.id, d.id, 1 + (a.id + d.id) %% 5, now() FROM annotations_assignment a "
            "JOIN studies_document d ON d.study_id = a.study_id AND d.block = a.block "
            "JOIN accounts_worker w ON w.id = a.worker_id "
            "WHERE a.study_id = %(study)s AND w.external_id = ANY(%(workers)s)",
            {"study": study, "workers": [f"PROLIFIC-{n}" for n in range(already, per_block)]},
        )  # fmt: skip
        connection.execute("VACUUM ANALYZE rating_rating")
        connection.execute("VACUUM ANALYZE annotations_assignment")
        return connection.execute(
            "SELECT count(*) FROM rating_rating r JOIN annotations_assignment a ON a.id = r.assignment_id "
            "WHERE a.study_id = %s", [study]).fetchone()[0]  # fmt: skip


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="300000,1000000,3000000", help="ratings, ascending")
    parser.add_argument("--formats", default="copy,jsonl,parquet", help="copy (the CSV), jsonl, parquet")
    parser.add_argument(
        "--database-url", default="postgres://postgres@127.0.0.1:5432/falte_bench_export_ratings"
    )
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    env = export_env(args.database_url, max(sizes))
    study = setup(args.database_url, env)
    print(f"Likert: {BLOCKS:,} blocks x {PER_BLOCK} documents")
    print(
        "format        rows         MB     rows/s  first byte  wall s  CPU s  db CPU s  RSS before  peak RSS  load"
    )
    already = 0
    for size in sizes:
        per_block = -(-size // (BLOCKS * PER_BLOCK))
        rows = grow(args.database_url, study, per_block, already)
        already = per_block
        for mode in args.formats.split(","):
            result = export(mode, env, rows)
            name = "csv" if mode == "copy" else mode
            print(f"{name:12} {rows:>10,} {result['bytes'] / 1e6:>7,.1f} {rows / result['seconds']:>10,.0f} "
                  f"{result['first_byte']:>9.3f} s {result['seconds']:>7.1f} {result['cpu']:>6.1f} "
                  f"{result['database_cpu']:>8.1f} {result['rss_before']:>8.0f} MB {result['peak_rss']:>6.0f} MB "
                  f"{result['load']:>5.1f}",
                  flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
