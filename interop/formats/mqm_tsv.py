"""The MQM TSV of public MQM releases and the MQM Viewer: one line per error, or a
"No-error" line for a rated segment without one.

Columns, tab-separated, no quoting: system, doc, doc_id, seg_id, rater, source, target,
category, severity, and (in most releases) a comment or metadata column; a header line
naming them is optional. The error's span is marked in the target (or, for an error in
the source, in the source) between <v> and </v>. Offsets here are code points of the text
without the markers, as everywhere in the platform.

Reading keeps what writing needs to give the same file back: whether there was a header,
each line's number of columns, and the markers' places.
"""

import gzip
from dataclasses import dataclass

from reports.metrics.mqm import Judgment

COLUMNS = ("system", "doc", "doc_id", "seg_id", "rater", "source", "target", "category", "severity")
OPEN, CLOSE = "<v>", "</v>"


class MQMFileInvalid(ValueError):
    """Problems found in an MQM TSV file: each names the file, the line and what is wrong."""

    def __init__(self, problems):
        self.problems = problems
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        super().__init__(problems[0] + more)


@dataclass(frozen=True)
class Marked:
    """A text without its <v> markers, and where the markers were: [(start, end)], code points.

    Public releases hold a few markers that do not pair up (a <v> never closed): the span
    runs to the end of the text, as it reads, and `unclosed` keeps the file as it was."""

    text: str
    spans: tuple
    unclosed: bool = False

    def with_markers(self):
        pieces, last = [], 0
        for number, (start, end) in enumerate(self.spans):
            last_one = number == len(self.spans) - 1
            pieces += [
                self.text[last:start],
                OPEN,
                self.text[start:end],
                "" if last_one and self.unclosed else CLOSE,
            ]
            last = end
        return "".join([*pieces, self.text[last:]])


@dataclass(frozen=True)
class Line:
    """One line of the file: who rated what, the error (or No-error), and its span."""

    number: int
    system: str
    doc: str
    doc_id: str
    seg_id: str
    rater: str
    source: Marked
    target: Marked
    category: str
    severity: str
    rest: tuple  # the columns after severity (comment, metadata), as they were

    @property
    def judgment(self):
        return Judgment(self.system, self.doc, self.seg_id, self.rater, self.category, self.severity)

    @property
    def unclosed(self):
        return self.source.unclosed or self.target.unclosed

    @property
    def side(self):
        """Where the error's span is: "target", "source", or "" (none marked)."""
        return "target" if self.target.spans else "source" if self.source.spans else ""


def unmark(text):
    """The text without <v> markers and the markers' spans; ValueError when a </v> comes
    before its <v> or a <v> inside another. A last <v> never closed runs to the end."""
    pieces, spans, position, length = [], [], 0, 0
    while True:
        opening = text.find(OPEN, position)
        closing = text.find(CLOSE, position)
        if opening == -1 and closing == -1:
            pieces.append(text[position:])
            return Marked("".join(pieces), tuple(spans))
        if opening == -1 or closing != -1 and closing < opening:
            raise ValueError(f"a {CLOSE} without its {OPEN}")
        pieces.append(text[position:opening])
        length += opening - position
        start = opening + len(OPEN)
        nested = text.find(OPEN, start)
        if closing == -1:
            if nested != -1:
                raise ValueError(f"a {OPEN} inside another")
            inner = text[start:]
            return Marked("".join([*pieces, inner]), (*spans, (length, length + len(inner))), unclosed=True)
        if nested != -1 and nested < closing:
            raise ValueError(f"a {OPEN} inside another")
        inner = text[start:closing]
        pieces.append(inner)
        spans.append((length, length + len(inner)))
        length += len(inner)
        position = closing + len(CLOSE)


GZIP_MAGIC = b"\x1f\x8b"


def opened(path):
    """The file as bytes, a gzip file read as it is (known by its first bytes: an upload is
    saved without its name's .gz)."""
    with open(path, "rb") as handle:
        compressed = handle.read(2) == GZIP_MAGIC
    return (gzip.open if compressed else open)(path, "rb")


def scan(path, *, problem, header=None):
    """Each Line of the file in order, one at a time (a 300,000-line file is never held whole).

    A line it cannot take is given to `problem(number, message)` and skipped; `header`, a list,
    gets the header line's columns when there is one."""
    with opened(path) as handle:
        for number, raw in enumerate(handle, start=1):
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as error:
                problem(number, f"not UTF-8 ({error.reason} at byte {error.start + 1})")
                continue
            # No quoting in this format: a line is its fields between tabs.
            text = text.removesuffix("\n").removesuffix("\r")
            if number == 1:
                text = text.removeprefix("\ufeff")  # a byte order mark, as spreadsheet programs write one
            fields = text.split("\t") if text else []
            if number == 1 and [f.strip().lower() for f in fields[:2]] == ["system", "doc"]:
                if header is not None:
                    header.extend(fields)
                continue
            if not fields:
                problem(number, "an empty line")
                continue
            if len(fields) < len(COLUMNS):
                problem(
                    number,
                    f"{len(fields)} columns, an MQM line has at least {len(COLUMNS)} ({', '.join(COLUMNS)})",
                )
                continue
            system, doc, doc_id, seg_id, rater, source, target, category, severity, *rest = fields
            try:
                source_marked, target_marked = unmark(source), unmark(target)
            except ValueError as error:
                problem(number, f"the span markers do not pair up: {error}")
                continue
            missing = [column for column, value in zip(("system", "seg_id", "rater"), (system, seg_id, rater), strict=True)
                       if not value.strip()]  # fmt: skip
            if missing:
                problem(number, f"no {' and no '.join(missing)}")
                continue
            yield Line(number, system, doc, doc_id, seg_id, rater, source_marked, target_marked,
                       category, severity, tuple(rest))  # fmt: skip


def read(path, *, name=None):
    """The file's lines (Line) and its header's columns (None without one); MQMFileInvalid with
    every problem."""
    name = name or str(path)
    problems, header = [], []
    lines = list(scan(path, header=header,
                      problem=lambda number, message: problems.append(f"{name}, line {number}: {message}")))  # fmt: skip
    if problems:
        raise MQMFileInvalid(problems)
    return lines, header or None


def write(handle, lines, *, header=(*COLUMNS, "comment")):
    """The lines as MQM TSV, markers back in place, the columns after severity as read; `header`:
    the header's columns (None for none)."""
    if header:
        handle.write("\t".join(header) + "\n")
    for line in lines:
        fields = [line.system, line.doc, line.doc_id, line.seg_id, line.rater, line.source.with_markers(),
                  line.target.with_markers(), line.category, line.severity, *line.rest]  # fmt: skip
        handle.write("\t".join(fields) + "\n")
