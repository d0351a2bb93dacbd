"""Benchmark: a Label Studio export in and out (import_annotations, export_annotations).

Writes a synthetic Label Studio JSON export (seeded): N tasks of ~12 sentences, each
annotated by 3 users with ~8 labelled regions and one relation, and one prediction;
imports it into a fresh database and exports it back, each command in its own process
(wall, CPU and peak RSS from wait4), and checks that the file exported twice (export,
import, export) is identical.

    .venv/bin/python bench/interop.py [--tasks 2000] [--database-url sqlite:////tmp/falte_bench_interop.sqlite3]

With --sizes and --imports (doccano, potato, factgenie, factgenie-review: bench/interop_folders.py),
the import of each of those tools' per-annotator folders at each size instead, beside --reference's.
"""

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


from bench.interop_folders import WORDS  # noqa: E402 - one vocabulary for every synthetic export


def write_export(path, tasks, seed=7):
    """The export written a task at a time, in the bytes of json.dumps(tasks): the bench's own
    process stays small, and its children's peak RSS is theirs (a child forked from a large
    process starts its ru_maxrss at that process's size)."""
    with open(path, "w", encoding="utf-8") as handle:
        handle.write("[")
        for number, task in enumerate(_tasks(tasks, seed)):
            handle.write((", " if number else "") + json.dumps(task, ensure_ascii=False))
        handle.write("]")


def _tasks(tasks, seed):
    rng = random.Random(seed)
    for number in range(1, tasks + 1):
        text = " ".join(
            " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 14))) + "." for _ in range(12)
        )
        words = [(m.start(), m.end()) for m in re.finditer(r"\S+", text)]
        task = {"id": number, "data": {"text": text}, "annotations": [], "predictions": []}
        for user in (11, 12, 13):
            results = []
            for region in range(8):
                start, end = rng.choice(words)
                label = rng.choice(["CharE", "GramE"])
                results.append({"id": f"t{number}u{user}r{region}", "from_name": "label", "to_name": "text",
                                "type": "labels", "value": {"start": start, "end": end, "text": text[start:end],
                                                            "labels": [label]}})  # fmt: skip
            first, second = sorted(rng.sample(words, 2))
            for key, (start, end) in (("a", first), ("b", second)):
                results.append({"id": f"t{number}u{user}{key}", "from_name": "label", "to_name": "text",
                                "type": "labels", "value": {"start": start, "end": end, "text": text[start:end],
                                                            "labels": ["InconE"]}})  # fmt: skip
            results.append({"from_id": f"t{number}u{user}a", "to_id": f"t{number}u{user}b", "type": "relation",
                            "direction": "right", "labels": []})  # fmt: skip
            task["annotations"].append({"id": number * 10 + user, "completed_by": user, "result": results,
                                        "was_cancelled": False, "ground_truth": False, "lead_time": 60.0})  # fmt: skip
        start, end = rng.choice(words)
        task["predictions"].append({"model_version": "detector-v1", "result": [
            {"id": f"p{number}", "from_name": "label", "to_name": "text", "type": "labels",
             "value": {"start": start, "end": end, "text": text[start:end], "labels": ["CharE"]}}]})  # fmt: skip
        yield task


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=2000)
    parser.add_argument("--database-url", default="sqlite:////tmp/falte_bench_interop.sqlite3")
    parser.add_argument("--sizes", help="e.g. 500,2000,8000: the import's and export's memory at each size")
    parser.add_argument("--formats", default="label-studio,hf,doccano")
    parser.add_argument(
        "--reference", help="a checkout whose import and export run beside this one's, e.g. /work/main"
    )
    parser.add_argument("--imports", help="with --sizes: e.g. doccano,potato,factgenie,factgenie-review")
    args = parser.parse_args()
    if args.sizes and args.imports:
        flat_imports(args)
        return
    if args.sizes:
        flat_export(args)
        return
    out = ROOT / "bench" / "out"
    out.mkdir(exist_ok=True)
    source = out / f"label-studio-{args.tasks}.json"
    write_export(source, args.tasks)
    env = fresh_database(args.database_url)
    python = sys.executable
    size = source.stat().st_size / 1e6
    steps = [
        ("import", ["import_annotations", str(source), "--format", "label-studio", "--slug", "ls-bench"]),
        ("export", ["export_annotations", "ls-bench", "--format", "label-studio", str(out / "ls-once.json")]),
        (
            "import",
            ["import_annotations", str(out / "ls-once.json"), "--format", "label-studio", "--slug", "ls-2"],
        ),
        ("export", ["export_annotations", "ls-2", "--format", "label-studio", str(out / "ls-twice.json")]),
    ]
    for what, command in steps:
        wall, cpu, peak = run_measured_cpu([python, "manage.py", *command], env)
        print(f"{what} {command[1]}: {wall:.1f} s wall, {cpu:.1f} s CPU, "
              f"peak RSS {peak:.0f} MB")  # fmt: skip
    same = (out / "ls-once.json").read_bytes() == (out / "ls-twice.json").read_bytes()
    print(
        f"{args.tasks:,} tasks x 3 annotators ({size:.1f} MB); exported twice identical: {'yes' if same else 'NO'}"
    )


def run_measured_cpu(command, env, cwd=ROOT, *, refused=None):
    """Run a command in `cwd`; (wall seconds, CPU seconds, peak RSS in MB) of that process alone (wait4).

    A command that fails stops the bench, unless `refused` is a list: then the last line it wrote
    to stderr is appended to it (main's import refuses a file of more than 2M JSON values)."""
    started = time.perf_counter()
    with tempfile.TemporaryFile() as errors:
        process = subprocess.Popen(command, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=errors)
        _, status, usage = os.wait4(process.pid, 0)
        seconds = time.perf_counter() - started
        if os.waitstatus_to_exitcode(status) != 0:
            errors.seek(0)
            said = errors.read().decode("utf-8", "replace").strip().splitlines() or ["(nothing)"]
            if refused is None:
                sys.exit(f"failed: {' '.join(command)}: {said[-1]}")
            refused.append(said[0][:160])
    return seconds, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def fresh_database(url):
    if url.startswith("sqlite:///"):
        Path(url.removeprefix("sqlite:///")).unlink(missing_ok=True)
    env = dict(
        os.environ, DATABASE_URL=url, READ_DOT_ENV="0", DEBUG="0", SECRET_KEY="bench-only-key-" + "x" * 40
    )
    subprocess.run([sys.executable, "manage.py", "migrate", "-v", "0"], env=env, cwd=ROOT, check=True)
    return env


def flat_export(args):
    """The import's and the export's wall, CPU and peak RSS at each size (the export in each format);
    with --reference, the same import and export by another checkout (today's) on the same database,
    and whether its exported bytes are the same."""
    out = ROOT / "bench" / "out"
    out.mkdir(exist_ok=True)
    checkouts = [("this", ROOT)] + ([("reference", Path(args.reference))] if args.reference else [])
    rows = []
    print(f"load average at the start: {os.getloadavg()[0]:.1f}")
    for tasks in [int(size) for size in args.sizes.split(",")]:
        source = out / f"label-studio-{tasks}.json"
        write_export(source, tasks)
        env = fresh_database(args.database_url)
        for name, checkout in checkouts:  # the reference's import makes a study of its own, not exported
            slug = "ls-bench" if name == "this" else f"ls-bench-{name}"
            importing = [sys.executable, "manage.py", "import_annotations", str(source), "--format", "label-studio",
                         "--slug", slug]  # fmt: skip
            refused = []
            wall, cpu, peak = run_measured_cpu(importing, env, cwd=checkout, refused=refused)
            rows.append((tasks, f"import ({name})", "label-studio", wall, cpu, peak, " ".join(refused)))
            print(*rows[-1], f"load {os.getloadavg()[0]:.1f}", flush=True)
        for fmt in args.formats.split(","):
            written = {}
            for name, checkout in checkouts:
                target = (
                    out
                    / f"flat-{name}-{tasks}.{ {'hf': 'parquet', 'label-studio': 'json'}.get(fmt, 'jsonl') }"
                )
                command = [
                    sys.executable,
                    "manage.py",
                    "export_annotations",
                    "ls-bench",
                    "--format",
                    fmt,
                    str(target),
                ]
                wall, cpu, peak = run_measured_cpu(command, env, cwd=checkout)
                written[name] = target.read_bytes()
                target.unlink()
                same = (
                    ""
                    if name == "this"
                    else ("same bytes" if written[name] == written["this"] else "DIFFERENT")
                )
                rows.append((tasks, f"export ({name})", fmt, wall, cpu, peak, same))
                print(*rows[-1], f"load {os.getloadavg()[0]:.1f}", flush=True)
    print_measured(("tasks", "step", "format"), rows)


def flat_imports(args):
    """Each tool's folder (bench/interop_folders.py) imported at each size by this checkout and by
    --reference, on a fresh database per size and tool: wall, CPU, peak RSS of each import."""
    from bench.interop_folders import IMPORTS

    out = ROOT / "bench" / "out"
    checkouts = [("this", ROOT)] + ([("reference", Path(args.reference))] if args.reference else [])
    rows = []
    print(f"load average at the start: {os.getloadavg()[0]:.1f}")
    for documents in [int(size) for size in args.sizes.split(",")]:
        for what in args.imports.split(","):
            fmt, write, extra = IMPORTS[what]
            source = write(out / f"{what}-{documents}", documents)
            env = fresh_database(args.database_url)
            for name, checkout in checkouts:
                command = [sys.executable, "manage.py", "import_annotations", str(source), "--format", fmt,
                           "--slug", f"bench-{name}", *extra]  # fmt: skip
                refused = []
                wall, cpu, peak = run_measured_cpu(command, env, cwd=checkout, refused=refused)
                rows.append((documents, what, name, wall, cpu, peak, " ".join(refused)))
                print(*rows[-1], f"load {os.getloadavg()[0]:.1f}", flush=True)
    print_measured(("documents", "import", "checkout"), rows)


def print_measured(columns, rows):
    """A Markdown table of rows (size, two labels, wall, CPU, peak RSS, remark), then the load."""
    print(f"| {' | '.join(columns)} | wall s | CPU s | peak RSS MB | |")
    print("| --- " * (len(columns) + 4) + "|")
    for size, first, second, wall, cpu, peak, remark in rows:
        print(f"| {size:,} | {first} | {second} | {wall:.1f} | {cpu:.1f} | {peak:.0f} | {remark} |")
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
