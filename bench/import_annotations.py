"""Benchmark: import a bundle with its annotations (the span study of bench/span_report.py).

The study of bench/report_workers.py (3 annotators per document, 30 segments, 30 spans per
annotation) at the given sizes, each into a fresh PostgreSQL database, timing `manage.py
import_study` in its own process: wall time, CPU of the importing process, CPU of PostgreSQL's
backends of the database (from /proc), peak RSS (wait4), and the load average. With
`--reference ROOT` (a `git worktree` of the code before) the same bundle is imported by that
checkout too, in the same run, into its own fresh database.

    .venv/bin/python bench/import_annotations.py [--documents 3000,10000,30000]
        [--reference /path/to/worktree] [--plain] [--prefix falte_bench_import]

`--plain` imports the documents alone (no assignments.jsonl), the bundle of bench/import_bundle.py.
`--likert` imports a Likert study: blocks of 2 inputs x 5 systems (one segment each), 3 raters per
block rating every document; `--pairwise` the same blocks, each rater choosing between every pair
of one input's summaries. `--review` imports a review study: 3-segment documents, 2 items of each
of 3 evaluators per document, every item answered by 2 reviewers. `--translation` imports an ESA study instead (bench/export_translation.py's documents: 10 segments,
5 systems): 3 raters per translation, each scoring every segment and marking an error in every
other one; with `--assisted` an ESA-AI study, a judge's suggestion on every other segment in
suggestions.jsonl, the first rater of each translation in the suggestion arm keeping them;
`--assisted` alone a span study whose first annotator of each document accepted 10 suggestions.
"""

import argparse
import itertools
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.export_translation import RATERS, SEGMENTS, write_esa_bundle  # noqa: E402
from bench.import_bundle import fresh_database, run_measured_cpu  # noqa: E402
from bench.import_bundle import write_bundle as write_plain_bundle  # noqa: E402
from bench.process_cpu import PostgresBackendCPU  # noqa: E402
from bench.span_report import write_bundle  # noqa: E402


def write_esa_work_bundle(directory, documents, assisted=False):
    """An ESA bundle of `documents` translations with RATERS submitted assignments each. `assisted`:
    an ESA-AI study, a judge's suggestion on every other segment in suggestions.jsonl, the first
    rater of each translation in the suggestion arm keeping them (the others in the control arm)."""
    write_esa_bundle(directory, documents)
    if assisted:
        with open(directory / "study.yaml", "a", encoding="utf-8") as handle:
            handle.write("  assistance: {share: 0.34, seed: 1}\n")
        with open(directory / "suggestions.jsonl", "w", encoding="utf-8") as handle:
            for number in range(documents):
                item, system = divmod(number, 5)
                for position, index in enumerate(range(0, SEGMENTS, 2), start=1):
                    suggestion = {"document": f"in{item:06d}#sys{system}", "position": position, "segment": index,
                                  "side": "target", "start": 0, "end": 11, "text": "Translation", "severity": "Minor",
                                  "source": "evaluator judge, run 1"}  # fmt: skip
                    handle.write(json.dumps(suggestion) + "\n")
    with open(directory / "assignments.jsonl", "w", encoding="utf-8") as handle:
        for number in range(documents):
            item, system = divmod(number, 5)
            for rater in range(RATERS):
                suggested = assisted and rater == 0
                errors = [
                    {"segment": index, "side": "target", "start": 0, "end": 11, "text": "Translation",
                     "severity": "Major" if index % 6 == 0 else "Minor",
                     **({"suggestion": position} if suggested else {})}
                    for position, index in enumerate(range(0, SEGMENTS, 2), start=1)
                ]  # fmt: skip
                scores = [
                    {"segment": index, "score": (number + rater * 7 + index) % 101}
                    for index in range(SEGMENTS)
                ]
                line = {"document": f"in{item:06d}#sys{system}", "annotator": f"rater{rater}", "active_seconds": 120,
                        "submitted_at": "2026-11-01T10:00:00+00:00", "errors": errors, "scores": scores}  # fmt: skip
                if assisted:
                    line["arm"] = "suggestions" if suggested else "control"
                    if suggested:
                        line["prefilled"] = len(errors)
                handle.write(json.dumps(line) + "\n")


SERVER = "postgres://postgres@127.0.0.1:5432"
SUGGESTED = 10  # suggestions per document of an assisted span study


def make_span_bundle_assisted(directory):
    """Turn the span bundle of bench/span_report.py into a model-assisted one: the first SUGGESTED
    singleton spans of each document's first annotator become the document's suggestions, that
    annotator's line is in the suggestion arm and accepts them (its spans get client ids), the
    other lines are in the control arm."""
    if (directory / "suggestions.jsonl").exists():  # made so by an earlier run
        return
    study = (directory / "study.yaml").read_text()
    (directory / "study.yaml").write_text(study + "config:\n  assistance: {share: 0.34, seed: 1}\n")
    lines = directory / "assignments.jsonl"
    lines.rename(directory / "assignments.plain")
    with (
        open(directory / "assignments.plain", encoding="utf-8") as plain,
        open(lines, "w", encoding="utf-8") as work,
        open(directory / "suggestions.jsonl", "w", encoding="utf-8") as suggestions,
    ):
        for text in plain:
            line = json.loads(text)
            line["arm"] = "control"
            if line["annotator"] == "a0":
                line["arm"], decisions = "suggestions", []
                for number, span in enumerate(line["annotations"], start=1):
                    span["client_id"] = f"c{number}"
                    if len(decisions) < SUGGESTED and "paired" not in span:
                        position = len(decisions) + 1
                        suggestions.write(json.dumps({"document": line["document"], "position": position, **{
                            key: span[key] for key in ("segment", "start", "end", "category")
                        }, "source": "evaluator judge, run 1"}) + "\n")  # fmt: skip
                        decisions.append({"suggestion": position, "action": "accept", "seconds": 2.5,
                                          "annotation": span["client_id"]})  # fmt: skip
                line["suggestion_decisions"] = decisions
            work.write(json.dumps(line) + "\n")
    (directory / "assignments.plain").unlink()


LIKERT_SYSTEMS, LIKERT_INPUTS = 5, 2  # a block: 2 inputs x 5 systems


STUDY_YAML = {
    "likert": "config:\n  scale: {min: 1, max: 5}\n  question: Is it consistent?\n",
    "pairwise": "config:\n  question: Which summary is more faithful to the article?\n",
}


def write_block_bundle(directory, documents, protocol):
    """A Likert or pairwise study of `documents` summaries in blocks of 10 (2 inputs x 5 systems),
    each block done by RATERS workers: every document rated (Likert), or every pair of one input's
    summaries chosen between (pairwise: 20 choices a line)."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "study.yaml").write_text(
        f"slug: bench-{protocol}\ntitle: {protocol} import benchmark\nprotocol: {protocol}\n"
        f"annotators_per_document: {RATERS}\n{STUDY_YAML[protocol]}"
    )
    per_block = LIKERT_SYSTEMS * LIKERT_INPUTS
    with (
        open(directory / "documents.jsonl", "w", encoding="utf-8") as documents_file,
        open(directory / "assignments.jsonl", "w", encoding="utf-8") as lines,
    ):
        for block in range(documents // per_block):
            inputs = []
            for item in range(LIKERT_INPUTS):
                input_id = f"b{block:06d}-in{item}"
                inputs.append([f"{input_id}-sys{system}" for system in range(LIKERT_SYSTEMS)])
                for system, name in enumerate(inputs[-1]):
                    record = {"id": name, "block": f"b{block:06d}", "input_id": input_id, "system": f"sys{system}",
                              "source": f"Article {input_id}: the mayor opened the bridge on Tuesday.",
                              "segments": [f"Summary of {input_id} by system {system}: the bridge opened."]}  # fmt: skip
                    documents_file.write(json.dumps(record) + "\n")
            for rater in range(RATERS):
                line = {"annotator": f"rater{rater}", "block": f"b{block:06d}"}
                if protocol == "likert":
                    members = [name for names in inputs for name in names]
                    line["ratings"] = [
                        {"document": d, "score": 1 + (block + rater + n) % 5} for n, d in enumerate(members)
                    ]
                else:
                    line["choices"] = [
                        {"left": left, "right": right, "choice": "left" if (block + rater + n) % 2 else "right",
                         "strength": None}
                        for names in inputs
                        for n, (left, right) in enumerate(itertools.combinations(names, 2))
                    ]  # fmt: skip
                lines.write(json.dumps(line) + "\n")


REVIEW_EVALUATORS, REVIEW_ITEMS, REVIEWERS = ("gpt-4o", "llama-70b", "claude"), 2, 2


def write_review_bundle(directory, documents):
    """A review study of `documents` match reports (3 segments each), each with REVIEW_ITEMS items of
    each of 3 evaluators, every item answered by each of REVIEWERS reviewers."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "study.yaml").write_text(
        "slug: bench-review\ntitle: review import benchmark\nprotocol: review\n"
        f"annotators_per_document: {REVIEWERS}\n"
    )
    answer = {"span": "Error", "explanation": "Correct", "flags": []}
    per_document = len(REVIEW_EVALUATORS) * REVIEW_ITEMS
    with (
        open(directory / "documents.jsonl", "w", encoding="utf-8") as documents_file,
        open(directory / "review_items.jsonl", "w", encoding="utf-8") as items_file,
        open(directory / "assignments.jsonl", "w", encoding="utf-8") as lines,
    ):
        for number in range(documents):
            name = f"game{number:06d}"
            segments = [f"The Hawks beat the Bulls 102-{number % 100}.", "Young scored 30 points.",
                        "The Hawks won again at home."]  # fmt: skip
            documents_file.write(
                json.dumps({"id": name, "segments": segments, "source": "Match report"}) + "\n"
            )
            for evaluator in REVIEW_EVALUATORS:
                for span in ("Young", "won again")[:REVIEW_ITEMS]:
                    item = {"document": name, "evaluator": evaluator, "span": span, "explanation": "Not so."}
                    items_file.write(json.dumps(item) + "\n")
            for reviewer in range(REVIEWERS):
                line = {"document": name, "annotator": f"rev{reviewer}",
                        "answers": [{"item": n, "answers": answer} for n in range(per_document)]}  # fmt: skip
                lines.write(json.dumps(line) + "\n")


def import_once(root, bundle, database, server=SERVER):
    """(wall, process CPU, PostgreSQL CPU, peak RSS MB) of `import_study` run from checkout `root`."""
    url = f"{server}/{database}"
    fresh_database(url)
    env = dict(os.environ, DATABASE_URL=url, READ_DOT_ENV="0", DEBUG="0", BUNDLE_MAX_FILE_BYTES="2000000000",
               SECRET_KEY="bench-only-key-" + "x" * 40, DJANGO_SETTINGS_MODULE="falte_site.settings")  # fmt: skip
    python = sys.executable
    subprocess.run([python, "manage.py", "migrate", "-v", "0"], env=env, cwd=root, check=True)
    database_cpu = PostgresBackendCPU(database)
    database_cpu.start()
    wall, cpu, peak = run_measured_cpu(
        [python, str(Path(root) / "manage.py"), "import_study", str(bundle)], env, cwd=root
    )
    return wall, cpu, database_cpu.stop(), peak


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", default="3000,10000,30000")
    parser.add_argument("--segments", type=int, default=30)
    parser.add_argument("--reference", help="a checkout of the code before, imported in the same run")
    parser.add_argument("--plain", action="store_true", help="documents only, no assignments")
    parser.add_argument("--translation", action="store_true", help="an ESA study with scores and errors")
    parser.add_argument(
        "--assisted",
        action="store_true",
        help="with --translation: ESA-AI, a judge's suggestions and two arms",
    )
    parser.add_argument("--likert", action="store_true", help="a Likert study rated in blocks")
    parser.add_argument("--pairwise", action="store_true", help="a pairwise study chosen in blocks")
    parser.add_argument(
        "--review", action="store_true", help="a review study: evaluators' items, reviewers' answers"
    )
    parser.add_argument(
        "--server", default=SERVER, help="the PostgreSQL server to import into (a URL without database)"
    )
    parser.add_argument(
        "--prefix",
        "--database-prefix",
        dest="prefix",
        default="falte_bench_import",
        help="the databases' names start so",
    )
    args = parser.parse_args()
    for documents in [int(n) for n in args.documents.split(",")]:
        if args.likert or args.pairwise:
            protocol = "likert" if args.likert else "pairwise"
            bundle = ROOT / "bench" / "out" / f"{protocol}-{documents}"
            write_block_bundle(bundle, documents, protocol)
            blocks = documents // (LIKERT_SYSTEMS * LIKERT_INPUTS)
            per_line = LIKERT_SYSTEMS * LIKERT_INPUTS if args.likert else 20
            what = (f"{documents:,} {protocol} documents in {blocks:,} blocks, {blocks * RATERS:,} assignments, "
                    f"{blocks * RATERS * per_line:,} {'ratings' if args.likert else 'choices'}")  # fmt: skip
        elif args.review:
            bundle = ROOT / "bench" / "out" / f"review-{documents}"
            write_review_bundle(bundle, documents)
            items = documents * len(REVIEW_EVALUATORS) * REVIEW_ITEMS
            what = (f"{documents:,} review documents, {items:,} evaluator items, {documents * REVIEWERS:,} "
                    f"assignments, {items * REVIEWERS:,} answers")  # fmt: skip
        elif args.translation:
            bundle = ROOT / "bench" / "out" / f"esa{'-ai' if args.assisted else ''}-{documents}"
            write_esa_work_bundle(bundle, documents, args.assisted)
            what = (f"{documents:,} ESA{'-AI' if args.assisted else ''} translations x {SEGMENTS} segments, "
                    f"{documents * RATERS:,} assignments, {documents * RATERS * SEGMENTS:,} scores, "
                    f"{documents * RATERS * SEGMENTS // 2:,} errors"
                    + (f", {documents * SEGMENTS // 2:,} suggestions" if args.assisted else ""))  # fmt: skip
        elif args.plain:
            bundle = ROOT / "bench" / "out" / f"import-{documents}x{args.segments}"
            write_plain_bundle(bundle, documents, args.segments)
            what = f"{documents:,} documents x {args.segments} segments, no annotations"
        else:
            bundle = (
                ROOT / "bench" / "out" / f"report-{documents}x{args.segments}{'-ai' if args.assisted else ''}"
            )
            write_bundle(bundle, documents, args.segments)
            what = f"{documents:,} documents x {args.segments} segments, {documents * 3:,} assignments, ~{documents * 90:,} spans"
            if args.assisted:
                make_span_bundle_assisted(bundle)
                what += f", {documents * SUGGESTED:,} suggestions accepted"
        runs = [("this checkout", ROOT)] + ([("reference", Path(args.reference))] if args.reference else [])
        for label, root in runs:
            chosen = (
                ("likert", args.likert),
                ("pairwise", args.pairwise),
                ("review", args.review),
                ("esa_ai", args.translation and args.assisted),
                ("esa", args.translation),
                ("span_ai", args.assisted),
                ("plain", args.plain),
            )
            kind = next((f"{name}_" for name, on in chosen if on), "")
            database = f"{args.prefix}_{kind}{documents}_{label.split()[0]}"
            wall, cpu, pg, peak = import_once(root, bundle, database, args.server)
            load = " ".join(f"{value:.2f}" for value in os.getloadavg())
            print(f"{what}, {label}: {wall:.1f} s wall, {cpu:.1f} s CPU of the import process, "
                  f"{pg:.1f} s PostgreSQL CPU, peak RSS {peak:.0f} MB (load average {load})", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
