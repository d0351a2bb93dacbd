"""Documents as a researcher has them (pasted text, .txt, .csv, .jsonl) turned into the bundle's
documents.jsonl, so that they are checked and written by the bundle import like any other.

Pasted text and .txt files: documents apart by a line of three dashes (---); in a document,
each paragraph (apart by an empty line) is a segment, the unit a worker reads at a time.
A .csv file has a header row with a `text` column and, if wanted, `id`, `system`,
`input_id` and `source` columns. A .jsonl or .json file is the bundle's own format
(docs/bundle-format.md).

A file is read from its copy on disk a line (a row) at a time, and its documents are written to
documents.jsonl one by one (DocumentsFile): the step holds one document, not the file.
"""

import csv
import json
import re
import struct
from pathlib import Path, PurePath

from bundles.problems import BundleInvalid, Problem
from studies import extensions

DOCUMENT_BREAK = re.compile(r"\s*-{3,}\s*")  # a whole line, its line break included
PARAGRAPH_BREAK = re.compile(r"\n\s*\n")
CSV_COLUMNS = ("id", "text", "system", "input_id", "source")
TEXT_SUFFIXES = (".txt", ".csv")
BUNDLE_SUFFIXES = (".jsonl", ".json")


def paragraphs(text):
    """The non-empty paragraphs of `text`, each with its inner line breaks kept."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return [part.strip("\n") for part in PARAGRAPH_BREAK.split(text) if part.strip()]


def documents_from_lines(lines, *, prefix):
    """(line, {"id", "segments"}) of pasted or .txt text given a line at a time (line breaks made
    "\\n"), one document after another: documents apart by ---, segments by empty lines; `line` is
    the line a document's text starts on, to place problems found later.

    Blank lines next to a --- belong to neither document, and a document's text starts at its first
    line that is not blank; before the first ---, the text is taken as it is."""
    count, block, first, after_break = 0, [], 0, False
    for number, line in enumerate(lines, start=1):
        if DOCUMENT_BREAK.fullmatch(line):
            if first:
                count += 1
                yield first, {"id": f"{prefix}-{count}", "segments": paragraphs("".join(block))}
            block, first, after_break = [], 0, True
            continue
        if not first and line.strip():
            first = number
        if first or not after_break:
            block.append(line)
    if first:
        yield first, {"id": f"{prefix}-{count + 1}", "segments": paragraphs("".join(block))}


def documents_from_txt(path, name):
    """(line, document) of a .txt file's copy at `path` (checked to be UTF-8), read a line at a time."""
    with open(path, encoding="utf-8-sig", newline=None) as lines:
        yield from documents_from_lines(lines, prefix=PurePath(name).stem)


def documents_from_csv(path, name):
    """(line, {"id", "segments", ...}) of a .csv file's copy at `path` (checked to be UTF-8), a row at
    a time; BundleInvalid naming file, line and problem, once every row is read."""
    with open(path, encoding="utf-8-sig", newline="") as rows:
        reader = csv.DictReader(rows)
        columns = [column.strip().lower() for column in reader.fieldnames or []]
        if "text" not in columns:
            raise BundleInvalid([Problem(name, 1, "the header row needs a 'text' column (and may have id, "
                                                   "system, input_id, source)")])  # fmt: skip
        unknown = [column for column in columns if column not in CSV_COLUMNS]
        if unknown:
            raise BundleInvalid(
                [Problem(name, 1, f"unknown column(s) {', '.join(unknown)}: use {', '.join(CSV_COLUMNS)}")]
            )
        reader.fieldnames = columns
        problems = []
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
            yield line, document
    if problems:
        raise BundleInvalid(problems)


def refuse_unknown_suffix(upload_name):
    """BundleInvalid unless the file is .txt, .csv, .jsonl or .json."""
    if Path(upload_name).suffix.lower() not in TEXT_SUFFIXES + BUNDLE_SUFFIXES:
        raise BundleInvalid(
            [Problem(upload_name, 0, "give a .txt, .csv, .jsonl or .json file (another tool's export: "
                                     "use \u201cImport another tool's annotations\u201d)")]
        )  # fmt: skip


def uploaded_documents(path, upload_name):
    """(line, document) of one uploaded file's copy at `path` by its suffix (.txt or .csv)."""
    if Path(upload_name).suffix.lower() == ".txt":
        return documents_from_txt(path, upload_name)
    return documents_from_csv(path, upload_name)


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


class DocumentsFile:
    """A documents.jsonl written a document at a time, and beside it, in a file of 4 bytes a
    document, the line of the source each one came from: read back only to place the bundle
    import's problems, so the line map does not grow in memory with the file either."""

    SOURCE_LINE = struct.Struct("<I")

    def __init__(self, path):
        self.path = Path(path)
        self.lines_path = self.path.with_suffix(".lines")
        self.count = 0

    def write(self, documents, *, defaults=None):
        """Write the (line, document) pairs of `documents` (any iterable: a generator is read one
        pair at a time); each document takes `defaults` for the keys it has not."""
        with open(self.path, "w", encoding="utf-8") as out, open(self.lines_path, "wb") as lines:
            for line, document in documents:
                for key, value in (defaults or {}).items():
                    document.setdefault(key, value)
                out.write(json.dumps(document, ensure_ascii=False) + "\n")
                lines.write(self.SOURCE_LINE.pack(line))
                self.count += 1
        return self

    def placed(self, invalid, name):
        """`invalid`'s problems of this documents.jsonl, placed at their lines of the source `name`
        (0, the file as a whole, where a problem has no document's line)."""
        problems = []
        with open(self.lines_path, "rb") as lines:
            for problem in invalid.problems:
                line = 0
                if isinstance(problem.line, int) and 0 < problem.line <= self.count:
                    lines.seek((problem.line - 1) * self.SOURCE_LINE.size)
                    (line,) = self.SOURCE_LINE.unpack(lines.read(self.SOURCE_LINE.size))
                problems.append(Problem(name, line, problem.message))
        return BundleInvalid(problems, invalid.summary)
