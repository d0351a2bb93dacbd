"""Documents as a researcher has them (pasted text, .txt, .csv, .jsonl) turned into the bundle's
documents.jsonl, so that they are checked and written by the bundle import like any other.

Pasted text and .txt files: documents apart by a line of three dashes (---); in a document,
each paragraph (apart by an empty line) is a segment, the unit a worker reads at a time.
A .csv file has a header row with a `text` column and, if wanted, `id`, `system`,
`input_id` and `source` columns. A .jsonl or .json file is the bundle's own format
(docs/bundle-format.md).
"""

import csv
import io
import json
import re
from pathlib import Path, PurePath

from bundles.problems import BundleInvalid, Problem
from studies import extensions

DOCUMENT_BREAK = re.compile(r"^\s*-{3,}\s*$", re.MULTILINE)
PARAGRAPH_BREAK = re.compile(r"\n\s*\n")
CSV_COLUMNS = ("id", "text", "system", "input_id", "source")


def paragraphs(text):
    """The non-empty paragraphs of `text`, each with its inner line breaks kept."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return [part.strip("\n") for part in PARAGRAPH_BREAK.split(text) if part.strip()]


def documents_from_text(text, *, prefix):
    """[(line, {"id", "segments"})] of pasted or .txt text: documents apart by ---, segments by empty
    lines; `line` is the line a document's text starts on, to place problems found later."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    documents, start = [], 0
    for match in [*DOCUMENT_BREAK.finditer(text), None]:
        block = text[start : match.start() if match else len(text)]
        segments = paragraphs(block)
        if segments:
            first = text.count("\n", 0, start + len(block) - len(block.lstrip())) + 1
            documents.append((first, {"id": f"{prefix}-{len(documents) + 1}", "segments": segments}))
        start = match.end() if match else start
    return documents


def utf8_text(data, name):
    """An upload's bytes as text (a byte-order mark dropped); BundleInvalid when not UTF-8."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise BundleInvalid(
            [Problem(name, 0, f"not UTF-8 text ({error.reason} at byte {error.start})")]
        ) from None


def documents_from_csv(data, name):
    """[(line, {"id", "segments", ...})] of a .csv file; BundleInvalid naming file, line and problem."""
    text = utf8_text(data, name)
    reader = csv.DictReader(io.StringIO(text, newline=""))
    columns = [column.strip().lower() for column in reader.fieldnames or []]
    if "text" not in columns:
        raise BundleInvalid([Problem(name, 1, "the header row needs a 'text' column (and may have id, system, "
                                               "input_id, source)")])  # fmt: skip
    unknown = [column for column in columns if column not in CSV_COLUMNS]
    if unknown:
        raise BundleInvalid(
            [Problem(name, 1, f"unknown column(s) {', '.join(unknown)}: use {', '.join(CSV_COLUMNS)}")]
        )
    reader.fieldnames = columns
    documents, problems = [], []
    stem = PurePath(name).stem
    for row in reader:
        line = reader.line_num
        if None in row:
            problems.append(Problem(name, line, "more cells than the header has columns"))
            continue
        segments = paragraphs(row.get("text") or "")
        if not segments:
            problems.append(Problem(name, line, "the text is empty: a document needs text"))
            continue
        document = {"id": (row.get("id") or "").strip() or f"{stem}-{line - 1}", "segments": segments}
        for column in ("system", "input_id", "source"):
            if (row.get(column) or "").strip():
                document[column] = row[column].strip()
        documents.append((line, document))
    if problems:
        raise BundleInvalid(problems)
    return documents


def uploaded_documents(upload_name, data):
    """[(line, document)] of one uploaded file by its suffix, or None for the bundle's own format."""
    suffix = Path(upload_name).suffix.lower()
    if suffix == ".txt":
        return documents_from_text(utf8_text(data, upload_name), prefix=PurePath(upload_name).stem)
    if suffix == ".csv":
        return documents_from_csv(data, upload_name)
    if suffix in (".jsonl", ".json"):
        return None
    raise BundleInvalid(
        [Problem(upload_name, 0, "give a .txt, .csv, .jsonl or .json file (another tool's export: "
                                 "use \u201cImport another tool's annotations\u201d)")]
    )  # fmt: skip


def document_formats():
    """{format key: label} of the files an extension can read texts from (interop: other tools')."""
    return {
        key: label
        for extension in extensions.registered()
        for key, label in extension.document_formats.items()
    }


def documents_from_tool(path, name, fmt):
    """[(line, document)] of the texts of a file in format `fmt`, read by the extension that
    knows it; BundleInvalid when none does, or names file, line and problem."""
    for extension in extensions.registered():
        if fmt in extension.document_formats:
            return extension.document_texts(path, name, fmt)
    raise BundleInvalid([Problem(name, 0, f"no installed app reads {fmt!r} files")])


def write_jsonl(documents, path):
    """Write [(line, document)] as documents.jsonl; the lines, for placing its problems in the source."""
    with open(path, "w", encoding="utf-8") as handle:
        for _, document in documents:
            handle.write(json.dumps(document, ensure_ascii=False) + "\n")
    return [line for line, _ in documents]


def placed(invalid, name, lines):
    """`invalid`'s problems of the written documents.jsonl, placed at their lines of `name`."""
    return BundleInvalid(
        [
            Problem(name, lines[p.line - 1] if 0 < p.line <= len(lines) else 0, p.message)
            for p in invalid.problems
        ],
        invalid.summary,
    )
