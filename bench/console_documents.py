"""Benchmark: the console's documents step (console/views/setup.py `documents`, which calls
study_add_document_text) with a .csv and a .txt upload, or a translation study's .csv and .jsonl,
at several sizes.

Writes a synthetic .csv (id, text of two paragraphs, system) and .txt (the same texts apart by
---) of N documents (seeded), then, for each size, format and checkout, runs the step in a
process of its own on a fresh SQLite database per size: a researcher's draft span study, and the
view called with the file as Django hands an upload past FILE_UPLOAD_MAX_MEMORY_SIZE (an
UploadedFile on disk). Prints wall time, user + system CPU and peak RSS of that process (wait4),
and checks that every document was added.

The translation formats (`translation-csv`, `translation-jsonl`) go to a draft ESA study: N
documents are N / 4 source documents, each translated by 4 systems, of 10 segments each. In the
.csv (a row per segment, with seg_id) a document's rows are spread across the table: the rows go
segment by segment, every system's row of a segment together, a source document after another;
the .jsonl has a document a line.

`doccano` uploads the .csv's texts as another tool's export (a doccano JSONL file, a text a line,
no labels) to a draft span study, the step's "another tool's export" choice.

    .venv/bin/python bench/console_documents.py [--sizes 5000,20000,40000]
        [--formats csv,txt,doccano,translation-csv,translation-jsonl] [--reference /work/main]
        [--database-url sqlite:////tmp/falte_bench_console_documents.sqlite3]

`--reference` runs the same step with another checkout (a `git worktree` of the code before) on
the same database and file, in the same run.
"""

import argparse
import csv
import json
import os
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def texts(count, seed=11):
    """(id, [paragraphs], system) of `count` documents: two paragraphs of three to five sentences."""
    from bench.interop_folders import WORDS

    rng = random.Random(seed)
    for number in range(1, count + 1):
        paragraphs = [
            " ".join(
                " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 14))).capitalize() + "."
                for _ in range(rng.randint(3, 5))
            )
            for _ in range(2)
        ]
        yield f"doc-{number}", paragraphs, f"system-{number % 4}"


def write_doccano(directory, count):
    """{"doccano": path} of a doccano export of the same texts, written a document at a time."""
    path = directory / f"documents-{count}.doccano.jsonl"
    with open(path, "w", encoding="utf-8") as lines:
        for number, (_id, paragraphs, _system) in enumerate(texts(count), start=1):
            lines.write(json.dumps({"id": number, "text": "\n\n".join(paragraphs), "label": []}) + "\n")
    return {"doccano": path}


def write_files(directory, count):
    """{format: path} of the .csv and the .txt of `count` documents, written a document at a time."""
    paths = {"csv": directory / f"documents-{count}.csv", "txt": directory / f"documents-{count}.txt"}
    with open(paths["csv"], "w", encoding="utf-8", newline="") as table, open(paths["txt"], "w", encoding="utf-8") as text:  # fmt: skip
        rows = csv.writer(table)
        rows.writerow(["id", "text", "system"])
        for number, (external_id, paragraphs, system) in enumerate(texts(count)):
            rows.writerow([external_id, "\n\n".join(paragraphs), system])
            text.write(("---\n" if number else "") + "\n\n".join(paragraphs) + "\n")
    return paths


TRANSLATION_SYSTEMS = 4
TRANSLATION_SEGMENTS = 10


def write_translation_files(directory, count):
    """{format: path} of the translation .csv and .jsonl of `count` documents (count / 4 source
    documents x 4 systems), written a source document at a time."""
    from bench.interop_folders import WORDS

    rng = random.Random(13)
    paths = {
        "translation-csv": directory / f"translations-{count}.csv",
        "translation-jsonl": directory / f"translations-{count}.jsonl",
    }
    with open(paths["translation-csv"], "w", encoding="utf-8", newline="") as table, open(paths["translation-jsonl"], "w", encoding="utf-8") as lines:  # fmt: skip
        rows = csv.writer(table)
        rows.writerow(["doc_id", "system", "seg_id", "source", "target"])
        for number in range(1, count // TRANSLATION_SYSTEMS + 1):
            sources = [
                " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 20))).capitalize() + "."
                for _ in range(TRANSLATION_SEGMENTS)
            ]
            targets = {
                f"system-{system}": [
                    " ".join(rng.sample(source.split(), len(source.split()))) for source in sources
                ]
                for system in range(TRANSLATION_SYSTEMS)
            }
            for index, source in enumerate(sources, start=1):
                for system, translated in targets.items():
                    rows.writerow([f"doc-{number}", system, index, source, translated[index - 1]])
            for system, translated in targets.items():
                segments = [
                    {"source": source, "target": target}
                    for source, target in zip(sources, translated, strict=True)
                ]
                lines.write(
                    json.dumps({"doc_id": f"doc-{number}", "system": system, "segments": segments}) + "\n"
                )
    return paths


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="5000,20000,40000")
    parser.add_argument("--formats", default="csv,txt")
    parser.add_argument("--reference", help="a checkout of the code before, e.g. /work/main")
    parser.add_argument("--database-url", default="sqlite:////tmp/falte_bench_console_documents.sqlite3")
    parser.add_argument(
        "--child",
        nargs=5,
        metavar=("FILE", "STUDY_TITLE", "DOCUMENTS", "PROTOCOL", "FILE_FORMAT"),
        help=argparse.SUPPRESS,
    )
    args = parser.parse_args()
    if args.child:
        step_in_this_process(*args.child)
        return
    sys.path.insert(0, str(ROOT))
    from bench.interop import fresh_database, run_measured_cpu

    out = ROOT / "bench" / "out"
    out.mkdir(exist_ok=True)
    checkouts = [("this", ROOT)] + ([("reference", Path(args.reference).resolve())] if args.reference else [])
    rows = []
    print(f"load average at the start: {' '.join(f'{load:.1f}' for load in os.getloadavg())}", flush=True)
    for count in [int(size) for size in args.sizes.split(",")]:
        formats = args.formats.split(",")
        paths = {}
        if {"csv", "txt"} & set(formats):
            paths.update(write_files(out, count))
        if any(fmt.startswith("translation-") for fmt in formats):
            paths.update(write_translation_files(out, count))
        if "doccano" in formats:
            paths.update(write_doccano(out, count))
        env = dict(fresh_database(args.database_url), DJANGO_SETTINGS_MODULE="falte_site.settings")
        for fmt in formats:
            protocol = "esa" if fmt.startswith("translation-") else "span"
            size = paths[fmt].stat().st_size / 1e6
            for name, checkout in checkouts:
                # The script is this checkout's, the code it runs the checkout's (its working directory).
                command = [sys.executable, str(Path(__file__).resolve()), "--child", str(paths[fmt]),
                           f"{fmt} {count} {name}", str(count), protocol,
                           "doccano" if fmt == "doccano" else "-"]  # fmt: skip
                wall, cpu, peak = run_measured_cpu(command, env, cwd=checkout)
                rows.append((count, fmt, size, name, wall, cpu, peak, os.getloadavg()[0]))
                print(*rows[-1], flush=True)
        for path in paths.values():
            path.unlink()
    print("| documents | file | MB | checkout | wall s | CPU s | peak RSS MB | load |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for count, fmt, size, name, wall, cpu, peak, load in rows:
        print(
            f"| {count:,} | {fmt} | {size:.1f} | {name} | {wall:.1f} | {cpu:.1f} | {peak:.0f} | {load:.1f} |"
        )
    print(f"load average at the end: {' '.join(f'{load:.1f}' for load in os.getloadavg())}")


def step_in_this_process(path, title, documents, protocol, file_format):
    """The documents step of a new draft study, as the view runs it for a researcher's upload
    (`file_format`: another tool's export, or "-")."""
    sys.path[0] = os.getcwd()  # the checkout's packages, not this script's folder (bench/interop.py)
    import django

    django.setup()
    from django.contrib.messages.storage.cookie import CookieStorage
    from django.core.files.uploadedfile import UploadedFile
    from django.http import QueryDict
    from django.test import RequestFactory
    from django.utils.datastructures import MultiValueDict

    from accounts.services import researcher_create
    from console.services import study_create
    from console.views.setup import documents as documents_step

    researcher = researcher_create(username=f"bench-{title.replace(' ', '-')}", password=None)
    study = study_create(title=title, protocol=protocol, user=researcher)
    with open(path, "rb") as handle:
        request = RequestFactory().post("/")
        request._post, request._files = (
            QueryDict("text=" + ("" if file_format == "-" else f"&file_format={file_format}")),
            MultiValueDict(
                {"files": [UploadedFile(handle, name=Path(path).name, size=os.path.getsize(path))]}
            ),
        )
        request.user, request._messages = researcher, CookieStorage(request)
        response = documents_step(request, study.pk)
    added = study.documents.count()
    if response.status_code != 302 or added != int(documents):
        sys.exit(f"{title}: {added} of {documents} documents added (status {response.status_code})")


if __name__ == "__main__":
    main()
