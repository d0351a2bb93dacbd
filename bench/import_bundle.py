"""Benchmark: import a synthetic bundle of 10,000 documents x 30 segments.

Target (issue 2): under 60 s and under 1 GB peak memory on PostgreSQL.
Prints wall time, peak RSS of the import process, and rows per second.

    .venv/bin/python bench/import_bundle.py [--documents N] [--segments N]
        [--database-url postgres://postgres@127.0.0.1:5432/falte_bench]
"""

import argparse
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

import psycopg

ROOT = Path(__file__).resolve().parents[1]
WORDS = [
    "the",
    "a",
    "keeper",
    "lighthouse",
    "storm",
    "boat",
    "island",
    "letter",
    "sister",
    "brother",
    "village",
    "harbour",
    "night",
    "morning",
    "lamp",
    "ledger",
    "glass",
    "orchard",
    "salt",
    "river",
    "road",
    "house",
    "window",
    "door",
    "friend",
    "stranger",
    "walked",
    "spoke",
    "found",
    "lost",
    "returned",
    "waited",
    "remembered",
    "wrote",
    "opened",
    "closed",
    "burned",
    "carried",
    "quietly",
    "slowly",
    "again",
    "never",
    "always",
    "before",
    "after",
    "under",
    "over",
    "beside",
    "Élodie",
    "Marc",
    "Ana",
    "Tomás",
]


def sentence(rng):
    words = [rng.choice(WORDS) for _ in range(rng.randint(8, 18))]
    return " ".join(words).capitalize() + rng.choice([".", ".", ".", "!", "?"])


def write_bundle(directory, documents, segments, seed=7):
    marker = directory / "PARAMS"
    params = f"{documents}x{segments}:{seed}"
    if marker.exists() and marker.read_text() == params:
        return
    directory.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    (directory / "study.yaml").write_text(
        "slug: bench-import\ntitle: Import benchmark\nprotocol: span\n"
        "taxonomy:\n  slug: bench\n  name: Bench\n  categories:\n"
        "    - {key: CharE, label: New character}\n    - {key: RepE, label: Repetition, kind: paired}\n"
    )
    with open(directory / "documents.jsonl", "w", encoding="utf-8") as handle:
        for number in range(documents):
            record = {
                "id": f"doc-{number:06d}",
                "input_id": f"input-{number // 4}",
                "system": f"sys{number % 4}",
                "segments": [" ".join(sentence(rng) for _ in range(3)) for _ in range(segments)],
            }
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
    marker.write_text(params)


def fresh_database(url):
    name = url.rsplit("/", 1)[1]
    admin_url = url.rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin_url, autocommit=True) as connection:
        connection.execute(f'DROP DATABASE IF EXISTS "{name}"')
        connection.execute(f'CREATE DATABASE "{name}"')


def run_measured_cpu(command, env, cwd=ROOT):
    """Run a command; return (wall seconds, CPU seconds, peak RSS in MB) of that process alone.

    `cwd` is the checkout whose code runs: manage.py puts the working directory first on the path."""
    started = time.perf_counter()
    process = subprocess.Popen(command, env=env, cwd=cwd)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"failed: {' '.join(command)}")
    return seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def run_measured(command, env):
    """Run a command; return (seconds, peak RSS in MB) of that process alone."""
    seconds, _, peak = run_measured_cpu(command, env)
    return seconds, peak


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=10_000)
    parser.add_argument("--segments", type=int, default=30)
    parser.add_argument("--database-url", default="postgres://postgres@127.0.0.1:5432/falte_bench")
    args = parser.parse_args()

    bundle = ROOT / "bench" / "out" / f"import-{args.documents}x{args.segments}"
    write_bundle(bundle, args.documents, args.segments)
    size_mb = (bundle / "documents.jsonl").stat().st_size / 1e6
    fresh_database(args.database_url)
    env = dict(os.environ, DATABASE_URL=args.database_url, READ_DOT_ENV="0", DEBUG="0",
               SECRET_KEY="bench-only-key-" + "x" * 40)  # fmt: skip
    python = sys.executable
    subprocess.run([python, "manage.py", "migrate", "-v", "0"], env=env, cwd=ROOT, check=True)
    env.setdefault("BUNDLE_MAX_FILE_BYTES", "2000000000")  # 100,000 documents are ~800 MB of JSON Lines
    seconds, cpu, peak_mb = run_measured_cpu([python, "manage.py", "import_study", str(bundle)], env)
    segments = args.documents * args.segments
    print(f"bundle: {args.documents:,} documents x {args.segments} segments "
          f"= {segments:,} segments, documents.jsonl {size_mb:.0f} MB")  # fmt: skip
    print(f"import_study into PostgreSQL: {seconds:.1f} s wall, {cpu:.1f} s CPU of the import process, "
          f"peak RSS {peak_mb:.0f} MB, {segments / seconds:,.0f} segments/s "
          f"(targets: 100,000 documents x 30 segments under 300 s and 2 GB)")  # fmt: skip


if __name__ == "__main__":
    main()
