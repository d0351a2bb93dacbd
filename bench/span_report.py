"""Benchmark: the full report of a synthetic span study, read from PostgreSQL.

Issue 4 target: 3,000 documents x 30 segments x 3 annotators (about 270,000
spans) in under 60 s and 1.5 GB. Times `manage.py study_report` in its own
process (the same code as the Celery job): wall time and peak RSS.

    .venv/bin/python bench/span_report.py [--documents 3000] [--segments 30]
"""

import argparse
import json
import os
import random
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.import_bundle import fresh_database, run_measured, sentence  # noqa: E402

CATEGORIES = [("CharE", "coherence", "singleton"), ("RefE", "coherence", "singleton"),
              ("SceneE", "coherence", "singleton"), ("InconE", "coherence", "paired"),
              ("RepE", "language", "paired"), ("GramE", "language", "singleton"),
              ("CorefE", "language", "singleton")]  # fmt: skip


def write_bundle(directory, documents, segments, annotators=3, spans_per_document=30, seed=11):
    marker = directory / "PARAMS"
    params = f"{documents}x{segments}x{annotators}x{spans_per_document}:{seed}"
    if marker.exists() and marker.read_text() == params:
        return
    directory.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    categories = "\n".join(
        f"    - {{key: {k}, label: {k}, group: {g}, kind: {kind}}}" for k, g, kind in CATEGORIES
    )
    (directory / "study.yaml").write_text(
        f"slug: bench-report\ntitle: Report benchmark\nprotocol: span\nannotators_per_document: {annotators}\n"
        f"taxonomy:\n  slug: bench-report\n  name: SNaC\n  categories:\n{categories}\n"
    )
    with open(directory / "documents.jsonl", "w") as docs, open(directory / "assignments.jsonl", "w") as work:
        for number in range(documents):
            texts = [" ".join(sentence(rng) for _ in range(3)) for _ in range(segments)]
            docs.write(
                json.dumps({"id": f"d{number}", "system": f"sys{number % 4}", "segments": texts}) + "\n"
            )
            # Shared "true" errors that annotators find with some noise, so agreement is realistic.
            truth = []
            for _ in range(spans_per_document):
                s = rng.randrange(segments)
                start = rng.randrange(0, len(texts[s]) - 25)
                truth.append((rng.choice(CATEGORIES), s, start, start + rng.randint(5, 25)))
            for annotator in range(annotators):
                items = []
                for (key, _, kind), s, start, end in truth:
                    if rng.random() < 0.3:
                        continue
                    start = max(0, start + rng.randint(-3, 3))
                    item = {"segment": s, "category": key, "start": start, "end": end}
                    if kind == "paired":
                        item["paired"] = {"segment": 0, "start": 0, "end": 5}
                    items.append(item)
                while len(items) < spans_per_document:  # noise spans
                    s = rng.randrange(segments)
                    start = rng.randrange(0, len(texts[s]) - 20)
                    key, _, kind = rng.choice([c for c in CATEGORIES if c[2] == "singleton"])
                    items.append({"segment": s, "category": key, "start": start, "end": start + 12})
                work.write(json.dumps({"document": f"d{number}", "annotator": f"a{annotator}",
                                       "active_seconds": rng.randint(600, 2400), "annotations": items}) + "\n")  # fmt: skip
    marker.write_text(params)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=3000)
    parser.add_argument("--segments", type=int, default=30)
    parser.add_argument("--database-url", default="postgres://postgres@127.0.0.1:5432/falte_bench_report")
    args = parser.parse_args()
    bundle = ROOT / "bench" / "out" / f"report-{args.documents}x{args.segments}"
    write_bundle(bundle, args.documents, args.segments)
    fresh_database(args.database_url)
    env = dict(os.environ, DATABASE_URL=args.database_url, READ_DOT_ENV="0", DEBUG="0",
               SECRET_KEY="bench-only-key-" + "x" * 40)  # fmt: skip
    python = sys.executable
    subprocess.run([python, "manage.py", "migrate", "-v", "0"], env=env, cwd=ROOT, check=True)
    seconds, peak = run_measured([python, "manage.py", "import_study", str(bundle)], env)
    print(f"import of the study (not the target): {seconds:.1f} s, peak RSS {peak:.0f} MB")
    output = ROOT / "bench" / "out" / "report.json"
    seconds, peak = run_measured(
        [python, "manage.py", "study_report", "bench-report", "--output", str(output)], env
    )
    report = json.loads(output.read_text())
    spans = sum(values["spans"] for values in report["categories"].values())
    print(f"study_report: {args.documents:,} documents x {args.segments} segments x 3 annotators, {spans:,} spans: "
          f"{seconds:.1f} s (target < 60 s), peak RSS {peak:.0f} MB (target < 1536 MB)")  # fmt: skip
    for key, values in report["categories"].items():
        print(f"  {key}: token alpha {values['token_alpha']}, two-agree {values['two_agree_pct']}")


if __name__ == "__main__":
    main()
