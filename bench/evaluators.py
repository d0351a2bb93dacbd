"""Benchmark: automatic evaluator runs against a slow local endpoint, and the report with their comparison.

1. Runs: D documents x 2 LLM evaluators, run one after the other (not at
   once), each with `concurrency` calls in flight, against the local
   OpenAI-compatible server (evaluators/fake_llm.py, in its own process)
   answering after `latency` seconds. Target: wall time within 1.3x of the
   latency bound, calls x latency / concurrency. Runs happen in this process
   (no broker: Celery eager), so its CPU time is the platform's side.
2. The unchanged rerun of both: 0 calls (the response cache).
3. The report of the span-report benchmark's study (bench/span_report.py)
   with two imported evaluators' spans (people + evaluator comparison),
   against the same people's report without them, each `manage.py
   study_report` in its own process, `repeat` times, alternating. Target: the
   report with the comparison within 1.5x of the people-only report.

    .venv/bin/python bench/evaluators.py [--documents 1000] [--latency 0.3] [--concurrency 16]
        [--report-documents 3000] [--repeat 3] [--database-url URL] [--skip-runs] [--skip-report]
"""

import argparse
import datetime
import json
import multiprocessing
import os
import platform
import random
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench import import_bundle, span_report  # noqa: E402

OUT = ROOT / "bench" / "out"
# What each evaluator's "LLM" marks (every occurrence): different words, so the two disagree.
MARKS = {
    "bench-llm-a": {"ledger": "RefE", "harbour": "SceneE"},
    "bench-llm-b": {"lamp": "CharE", "orchard": "SceneE"},
}
# Imported evaluators of the report study: the share of the people's spans each finds, and its noise.
PREDICTORS = {"model-a": (0.6, 8), "model-b": (0.4, 15)}
SECRET = "bench-only-key-" + "x" * 40


# --- Databases ---


def database_url(base, suffix):
    """`base` with `suffix` added to the database name (PostgreSQL) or the file's stem (SQLite)."""
    if suffix and base.startswith("sqlite:"):
        path = Path(base.split(":///", 1)[1])
        return "sqlite:///" + str(path.with_name(f"{path.stem}{suffix}{path.suffix}"))
    return base + suffix


def fresh_database(url):
    if url.startswith("sqlite:"):
        path = Path(url.split(":///", 1)[1])
        for stale in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
            stale.unlink(missing_ok=True)
    else:
        import_bundle.fresh_database(url)


def django_env(url):
    env = dict(os.environ, DATABASE_URL=url, READ_DOT_ENV="0", DEBUG="0", SECRET_KEY=SECRET)
    env.pop("CELERY_BROKER_URL", None)  # runs in-process, as the transaction commits
    env["OUTBOUND_ALLOWED_HOSTS"] = "127.0.0.1"  # the local model server, as an operator would allow it
    return env


def manage(url, *args):
    subprocess.run([sys.executable, "manage.py", *args], env=django_env(url), cwd=ROOT, check=True)


def measured(command, env):
    """Run a command; (wall s, CPU s, peak RSS MB) of that process alone."""
    started = time.perf_counter()
    process = subprocess.Popen(command, env=env, cwd=ROOT, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"failed: {' '.join(command)}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def cpu_seconds():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def conditions(url):
    if url.startswith("sqlite:"):
        database = f"SQLite {sqlite3.sqlite_version}"
    else:
        import psycopg

        with psycopg.connect(url.rsplit("/", 1)[0] + "/postgres") as connection:
            version = connection.execute("SHOW server_version").fetchone()[0]
        database = f"PostgreSQL {version.split()[0]}"
    load = ", ".join(f"{value:.2f}" for value in os.getloadavg())
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    changed = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT,
                             capture_output=True, text=True)  # fmt: skip
    return (f"Python {platform.python_version()}, {database}, {os.cpu_count()} cores, "
            f"load average {load}, {datetime.datetime.now():%Y-%m-%d %H:%M}, commit {commit.stdout.strip()}"
            f"{' + uncommitted changes' if changed.stdout.strip() else ''}")  # fmt: skip


# --- The local endpoint, in a process of its own ---


def _serve(pipe, latency):
    from evaluators.fake_llm import FakeChatServer, marking_responder

    by_model = {model: marking_responder(marks) for model, marks in MARKS.items()}
    server = FakeChatServer(responder=lambda body: by_model[body["model"]](body), latency=latency).start()
    pipe.send(server.base_url)
    while (message := pipe.recv()) != "stop":
        pipe.send(server.calls if message == "calls" else cpu_seconds())
    server.stop()


class Endpoint:
    def __init__(self, latency):
        self.pipe, child = multiprocessing.get_context("spawn").Pipe()
        self.process = multiprocessing.get_context("spawn").Process(target=_serve, args=(child, latency))
        self.process.start()
        self.base_url = self.pipe.recv()

    def ask(self, what):
        self.pipe.send(what)
        return self.pipe.recv()

    def stop(self):
        self.pipe.send("stop")
        self.process.join()


# --- 1 and 2: runs ---


def bench_runs(args, url):
    print(f"\n== Runs: {args.documents:,} documents x 2 LLM evaluators, one after the other, "
          f"latency {args.latency} s, concurrency {args.concurrency} each ==")  # fmt: skip
    bundle = OUT / f"import-{args.documents}x30"
    import_bundle.write_bundle(bundle, args.documents, 30)
    fresh_database(url)
    manage(url, "migrate", "-v", "0")
    manage(url, "import_study", str(bundle))
    endpoint = Endpoint(args.latency)
    try:
        os.environ.update(django_env(url))
        os.environ.pop("CELERY_BROKER_URL", None)
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "falte_site.settings")
        import django

        django.setup()
        from evaluators.models import Evaluator
        from studies.models import Study

        study = Study.objects.get(slug="bench-import")
        evaluators = [
            Evaluator.objects.create(
                study=study,
                key=model,
                kind=Evaluator.Kind.LLM,
                base_url=endpoint.base_url,
                model=model,
                temperature=0.0,
                seed=1,
                concurrency=args.concurrency,
                timeout_seconds=30,
            )  # fmt: skip
            for model in MARKS
        ]
        first = run_all(evaluators, endpoint)
        calls, bound = first["calls"], first["calls"] * args.latency / args.concurrency
        print(f"first runs: {first['wall']:.1f} s, latency bound {bound:.1f} s "
              f"(calls x {args.latency} s / {args.concurrency}), ratio {first['wall'] / bound:.2f} "
              f"(target <= 1.30, i.e. <= {1.3 * bound:.1f} s)")  # fmt: skip
        print(f"  calls: {calls:,} at the server, {first['run_calls']:,} on the runs "
              f"(expected {2 * args.documents:,}); {first['cached']} from the cache")  # fmt: skip
        print(f"  CPU of this process: {first['cpu']:.1f} s, {1000 * first['cpu'] / max(calls, 1):.1f} ms per call; "
              f"of the server process: {first['server_cpu']:.1f} s")  # fmt: skip
        print(f"  {2 * args.documents / first['wall']:.1f} documents/s over both runs; "
              f"each run: {', '.join(f'{w:.1f} s' for w in first['each'])}; spans written: {first['spans']:,}")  # fmt: skip
        again = run_all(evaluators, endpoint)
        print(f"unchanged rerun: {again['wall']:.1f} s, calls {again['calls']} at the server "
              f"(target 0), {again['run_calls']} on the runs, {again['cached']:,} from the cache; "
              f"CPU {again['cpu']:.1f} s, {2 * args.documents / again['wall']:.0f} documents/s")  # fmt: skip
        if again["calls"] != 0 or calls != 2 * args.documents:
            print("  TARGET MISSED: the call counts are not as expected")
    finally:
        endpoint.stop()


def run_all(evaluators, endpoint):
    from evaluators.models import EvaluatorRun
    from evaluators.services import evaluator_run_request
    from protocols.span.models import ErrorAnnotation

    calls_before, server_cpu = endpoint.ask("calls"), endpoint.ask("cpu")
    cpu, started = cpu_seconds(), time.perf_counter()
    each, runs = [], []
    for evaluator in evaluators:
        began = time.perf_counter()
        run, _ = evaluator_run_request(evaluator=evaluator, here=True)
        run.refresh_from_db()
        each.append(time.perf_counter() - began)
        if run.status != EvaluatorRun.Status.DONE or run.finished != run.total:
            sys.exit(
                f"run {run.pk} of {evaluator.key}: {run.status}, {run.finished}/{run.total}: {run.error}"
            )
        runs.append(run)
    return {
        "wall": time.perf_counter() - started,
        "cpu": cpu_seconds() - cpu,
        "each": each,
        "calls": endpoint.ask("calls") - calls_before,
        "server_cpu": endpoint.ask("cpu") - server_cpu,
        "run_calls": sum(run.calls for run in runs),
        "cached": sum(run.cached for run in runs),
        "spans": ErrorAnnotation.objects.filter(assignment__kind="model").count(),
    }


# --- 3: the report with the evaluator comparison ---


def write_evaluator_bundle(people, directory, seed=5):
    """The people's bundle plus two imported evaluators whose spans follow the people's, with noise."""
    marker = directory / "PARAMS"
    params = f"{(people / 'PARAMS').read_text()}+{sorted(PREDICTORS.items())}:{seed}"
    if marker.exists() and marker.read_text() == params:
        return
    (directory / "predictions").mkdir(parents=True, exist_ok=True)
    for name in ("documents.jsonl", "assignments.jsonl"):
        shutil.copyfile(people / name, directory / name)
    listed = "".join(
        f"  - {{key: {key}, kind: import, predictions: predictions/{key}.jsonl}}\n" for key in PREDICTORS
    )
    (directory / "study.yaml").write_text((people / "study.yaml").read_text() + "evaluators:\n" + listed)
    lengths = {}
    with open(people / "documents.jsonl") as documents:
        for line in documents:
            record = json.loads(line)
            lengths[record["id"]] = [len(text) for text in record["segments"]]
    by_document = {}
    with open(people / "assignments.jsonl") as assignments:
        for line in assignments:
            record = json.loads(line)
            by_document.setdefault(record["document"], []).extend(record["annotations"])
    rng = random.Random(seed)
    for key, (share, noise) in PREDICTORS.items():
        with open(directory / "predictions" / f"{key}.jsonl", "w") as out:
            for document, spans in by_document.items():
                found = []
                for span in spans:  # a true error is on two or three lines: about `share` of the union
                    if rng.random() < share / 2:
                        start = max(0, span["start"] + rng.randint(-4, 4))
                        end = min(
                            lengths[document][span["segment"]],
                            max(start + 1, span["end"] + rng.randint(-4, 4)),
                        )
                        found.append({**span, "start": start, "end": end})
                for _ in range(noise):
                    segment = rng.randrange(len(lengths[document]))
                    start = rng.randrange(lengths[document][segment] - 15)
                    category = rng.choice([c[0] for c in span_report.CATEGORIES if c[2] == "singleton"])
                    found.append(
                        {"segment": segment, "category": category, "start": start, "end": start + 10}
                    )
                out.write(json.dumps({"document": document, "annotations": found}) + "\n")
    marker.write_text(params)


def bench_report(args, base):
    print(f"\n== Report: {args.report_documents:,} documents x 30 segments x 3 annotators "
          f"+ 2 imported evaluators, best of {args.repeat} ==")  # fmt: skip
    people = OUT / f"report-{args.report_documents}x30"
    span_report.write_bundle(people, args.report_documents, 30)
    with_evaluators = OUT / f"evaluators-report-{args.report_documents}x30"
    write_evaluator_bundle(people, with_evaluators)
    cases = {"people only": (database_url(base, "_people"), people),
             "people + comparison": (database_url(base, "_report"), with_evaluators)}  # fmt: skip
    for name, (url, bundle) in cases.items():
        fresh_database(url)
        manage(url, "migrate", "-v", "0")
        wall, cpu, peak = measured(
            [sys.executable, "manage.py", "import_study", str(bundle)], django_env(url)
        )
        print(f"import, {name} (not a target): {wall:.1f} s, CPU {cpu:.1f} s, peak RSS {peak:.0f} MB")
    times = {name: [] for name in cases}
    for repetition in range(args.repeat):
        for name, (url, _) in cases.items():
            output = OUT / f"evaluators-report-{name.split()[-1]}.json"
            times[name].append(measured([sys.executable, "manage.py", "study_report", "bench-report",
                                         "--output", str(output)], django_env(url)))  # fmt: skip
            print(f"  {repetition + 1}. {name}: {times[name][-1][0]:.1f} s, CPU {times[name][-1][1]:.1f} s, "
                  f"peak RSS {times[name][-1][2]:.0f} MB")  # fmt: skip
    for name, rows in times.items():
        walls, cpus, peaks = zip(*rows, strict=True)
        print(f"{name}: wall min {min(walls):.1f} s / median {statistics.median(walls):.1f} s, "
              f"CPU min {min(cpus):.1f} s / median {statistics.median(cpus):.1f} s, peak RSS {max(peaks):.0f} MB")  # fmt: skip
    reference, compared = times["people only"], times["people + comparison"]
    for label, index in (("wall", 0), ("CPU", 1)):
        low = min(r[index] for r in compared) / min(r[index] for r in reference)
        middle = statistics.median(r[index] for r in compared) / statistics.median(
            r[index] for r in reference
        )
        print(
            f"ratio people + comparison / people only, {label}: {low:.2f} (min), {middle:.2f} (median); target <= 1.50"
        )
    print(f"peak RSS ratio: {max(r[2] for r in compared) / max(r[2] for r in reference):.2f}")
    report_summary()


def report_summary():
    report = json.loads((OUT / "evaluators-report-comparison.json").read_text())
    people = json.loads((OUT / "evaluators-report-only.json").read_text())
    spans = sum(values["spans"] for values in report["categories"].values())
    assert "evaluator_comparison" not in people, "the people-only study has a comparison"
    comparison = report["evaluator_comparison"]
    print(
        f"  people's spans: {spans:,}; the people's figures agree: {people['categories'] == report['categories']}"
    )
    for key in comparison["evaluators"]:
        union = comparison["by_evaluator"][key]["all"].get("token", {}).get("union", {})
        print(f"  {key}: token F1 against the union (all categories) {union.get('f1')}, "
              f"spans placed {comparison['runs'][key].get('placed')}")  # fmt: skip


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=1000)
    parser.add_argument("--latency", type=float, default=0.3)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--report-documents", type=int, default=3000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--database-url", default="postgres://postgres@127.0.0.1:5432/falte_bench_eval",
                        help="runs use it; the report study adds _report and _people to its name")  # fmt: skip
    parser.add_argument("--skip-runs", action="store_true")
    parser.add_argument("--skip-report", action="store_true")
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    print(conditions(args.database_url))
    if not args.skip_report:  # first: the runs set this process up as Django
        bench_report(args, args.database_url)
    if not args.skip_runs:
        bench_runs(args, args.database_url)
    print(conditions(args.database_url))


if __name__ == "__main__":
    main()
