"""Benchmark: an MQM campaign's TSV read, scored and ranked with significance, at three sizes.

A campaign of S segments x Y systems x 1 rating is made from the WMT21 TED release
(data/wmt-mqm-ted): each system's line for a segment is a line of the release drawn at
random (seeded), so the categories, severities and texts are real. Each size is measured
in a fresh process (peak RSS is per process):

- read: interop/formats/mqm_tsv.read (parse, remove the <v> markers, check every line);
- reference: csv.reader over the same file alone, in the same process;
- score: reports/metrics/mqm segment and system scores;
- rank: reports/metrics/ranking.rank_systems, every pair (Y(Y-1)/2) with paired approximate
  randomisation, R resamples, and bootstrap intervals.

CPU is the process's time.process_time() per step; wall is time.perf_counter().

    .venv/bin/python bench/mqm.py [--systems 15] [--sizes 2000,6000,20000] [--resamples 1000]
"""

import argparse
import csv
import gzip
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

RELEASE = ROOT / "data" / "wmt-mqm-ted" / "mqm_ted_ende.tsv.gz"


def make_campaign(path, segments, systems, seed=1):
    with gzip.open(RELEASE, "rt", encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))
    header, rows = rows[0], rows[1:]
    rng = random.Random(seed)
    written = 0
    with open(path, "w", encoding="utf-8") as out:
        out.write("\t".join(header) + "\n")
        for segment in range(segments):
            for system in range(systems):
                row = list(rng.choice(rows))
                row[0], row[1], row[2], row[3], row[4] = f"sys{system:02d}", f"doc{segment // 20}", str(
                    segment // 20), str(segment), f"rater{segment % 6}"  # fmt: skip
                out.write("\t".join(row) + "\n")
                written += 1
    return written


def measure(path, resamples):
    from interop.formats.mqm_tsv import read
    from reports.metrics.mqm import segment_items, segment_scores, system_scores
    from reports.metrics.ranking import item_means, rank_systems

    figures = {}

    def step(name, work):
        wall, cpu = time.perf_counter(), time.process_time()
        result = work()
        figures[name] = {"wall": time.perf_counter() - wall, "cpu": time.process_time() - cpu}
        return result

    def reference():
        with open(path, encoding="utf-8", newline="") as handle:
            return sum(1 for _ in csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE))

    step("csv.reader alone (reference)", reference)
    lines, _ = step("read and check", lambda: read(path))
    scores = step("score", lambda: segment_scores([line.judgment for line in lines]))
    step("system scores", lambda: system_scores(scores))
    ranking = step("rank, every pair", lambda: rank_systems(item_means(segment_items(scores)), higher_is_better=False,
                                                            resamples=resamples))  # fmt: skip
    figures["lines"] = len(lines)
    figures["pairs"] = len(ranking["pairs"])
    figures["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return figures


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--systems", type=int, default=15)
    parser.add_argument("--sizes", default="2000,6000,20000")
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--measure", help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.measure:
        print(json.dumps(measure(arguments.measure, arguments.resamples)))
        return
    print(f"{arguments.systems} systems, 1 rating per segment, {arguments.resamples} resamples")
    print("| segments | lines | csv.reader alone | read and check | score | rank, every pair | peak RSS |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    with tempfile.TemporaryDirectory() as directory:
        for segments in [int(size) for size in arguments.sizes.split(",")]:
            path = Path(directory) / f"campaign-{segments}.tsv"
            make_campaign(path, segments, arguments.systems)
            run = subprocess.run(
                [sys.executable, __file__, "--measure", str(path), "--resamples", str(arguments.resamples)],
                capture_output=True, text=True, check=True,
            )  # fmt: skip
            figures = json.loads(run.stdout)

            def cell(name, figures=figures):
                return f"{figures[name]['wall']:.2f} s wall / {figures[name]['cpu']:.2f} s CPU"

            print(f"| {segments:,} | {figures['lines']:,} | {cell('csv.reader alone (reference)')} | "
                  f"{cell('read and check')} | {cell('score')} | {cell('rank, every pair')} ({figures['pairs']} "
                  f"pairs) | {figures['peak_rss_mb']:.0f} MB |")  # fmt: skip


if __name__ == "__main__":
    main()
