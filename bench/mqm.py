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

The import target (`--import-study`): a campaign of S segments x Y systems x 1 rating, each
system's translation of a segment one rater's lines (all its errors, or its No-error line) on
one segment of the release, drawn at random (seeded); every system's translation of a
synthetic segment shares that segment's source, as a real campaign's do. It is imported into
a new MQM study with `manage.py import_mqm` and the study's report computed (`study_report`,
every pair with 1,000 resamples), each step in a process of its own, on SQLite and on
PostgreSQL. Each step prints its wall time, its process's CPU time (resource.getrusage: user +
system) and peak RSS; on PostgreSQL also the CPU time of the server's backends.

    .venv/bin/python bench/mqm.py --import-study [--segments 20000] [--systems 15]
        [--database-url postgres://postgres@127.0.0.1:5432/bench_mqmio]
"""

import argparse
import csv
import gzip
import io
import json
import os
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


def make_rated_campaign(path, segments, systems, seed=1):
    """The import target's campaign: see the module's docstring. Returns the number of lines."""
    from interop.formats.mqm_tsv import unmark

    with gzip.open(RELEASE, "rt", encoding="utf-8", newline="") as handle:
        rows = [line.rstrip("\n").split("\t") for line in handle]
    header, rows = rows[0], rows[1:]
    groups = {}  # the release's segment -> [the lines of one (system, rater)]
    for row in rows:
        groups.setdefault((row[1], row[3]), {}).setdefault((row[0], row[4]), []).append(row)
    release = [list(by_rater.values()) for by_rater in groups.values()]
    rng = random.Random(seed)
    written = 0
    with open(path, "w", encoding="utf-8") as out:
        out.write("\t".join(header) + "\n")
        for segment in range(segments):
            ratings = rng.choice(release)
            source = unmark(ratings[0][0][5]).text
            for system in range(systems):
                for row in rng.choice(ratings):
                    row = list(row)
                    row[0], row[1], row[2], row[3], row[4] = (
                        f"sys{system:02d}", f"doc{segment // 20}", str(segment % 20 + 1), str(segment + 1),
                        f"rater{segment % 6}",
                    )  # fmt: skip
                    if "<v>" not in row[5]:
                        row[5] = source  # the segment's source, with an error's own marks where it has them
                    out.write("\t".join(row) + "\n")
                    written += 1
    return written


def measure_step(step, argument, database_url):
    """One step of the import target in this process: its wall, CPU (getrusage) and peak RSS."""
    import django

    os.environ["DATABASE_URL"] = database_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "falte_site.settings")
    django.setup()
    from django.core.management import call_command

    usage, wall = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
    if step == "import":
        call_command("import_mqm", argument, "--study", "bench-mqm", stdout=io.StringIO())
    else:
        call_command("study_report", "bench-mqm", "--output", argument, stderr=io.StringIO())
    after = resource.getrusage(resource.RUSAGE_SELF)
    return {
        "wall": time.perf_counter() - wall,
        "cpu": (after.ru_utime - usage.ru_utime) + (after.ru_stime - usage.ru_stime),
        "peak_rss_mb": after.ru_maxrss / 1024,
    }


def import_target(arguments):
    from bench.import_bundle import fresh_database
    from bench.process_cpu import PostgresBackendCPU

    env = dict(os.environ, READ_DOT_ENV="0", DEBUG="0", SECRET_KEY="bench-only-key-" + "x" * 40,
               DJANGO_SETTINGS_MODULE="falte_site.settings")  # fmt: skip
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "campaign.tsv"
        lines = make_rated_campaign(path, arguments.segments, arguments.systems)
        print(f"campaign: {arguments.segments:,} segments x {arguments.systems} systems x 1 rating = {lines:,} lines "
              f"({path.stat().st_size / 1e6:.0f} MB)")  # fmt: skip
        databases = [("SQLite", f"sqlite:///{directory}/bench.sqlite3", None)]
        if arguments.database_url != "none":
            databases.append(("PostgreSQL", arguments.database_url, arguments.database_url.rsplit("/", 1)[1]))
        print("| database | step | wall | CPU of the process | peak RSS | PostgreSQL backends' CPU |")
        print("| --- | --- | --- | --- | --- | --- |")
        for label, url, name in databases:
            if name:
                fresh_database(url)
            subprocess.run([sys.executable, "manage.py", "migrate", "-v", "0"], env=dict(env, DATABASE_URL=url),
                           cwd=ROOT, check=True)  # fmt: skip
            for step, argument in (("import", str(path)), ("report", str(Path(directory) / "report.json"))):
                backends = PostgresBackendCPU(name) if name else None
                if backends:
                    backends.start()
                run = subprocess.run(
                    [sys.executable, __file__, "--step", step, argument, "--database-url", url],
                    env=env, cwd=ROOT, capture_output=True, text=True, check=True,
                )  # fmt: skip
                server = f"{backends.stop():.1f} s" if backends else "(in the process)"
                figures = json.loads(run.stdout.strip().splitlines()[-1])
                print(f"| {label} | {step} | {figures['wall']:.1f} s | {figures['cpu']:.1f} s | "
                      f"{figures['peak_rss_mb']:.0f} MB | {server} |")  # fmt: skip
            report = json.loads((Path(directory) / "report.json").read_text(encoding="utf-8"))
            print(f"  report: {len(report['systems'])} systems, {report['segments_rated']:,} rated segments, "
                  f"{len(report['ranking']['pairs'])} pairs, {report['ranking']['resamples']:,} resamples")  # fmt: skip


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
    parser.add_argument("--import-study", action="store_true", help="the import target (module docstring)")
    parser.add_argument("--segments", type=int, default=20_000, help="the import target's segments")
    parser.add_argument("--database-url", default="postgres://postgres@127.0.0.1:5432/bench_mqmio",
                        help="PostgreSQL for the import target ('none': SQLite only)")  # fmt: skip
    parser.add_argument("--step", nargs=2, help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.step:
        print(json.dumps(measure_step(*arguments.step, arguments.database_url)))
        return
    if arguments.import_study:
        import_target(arguments)
        return
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
