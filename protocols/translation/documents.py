"""A translation study's documents as a researcher has them: a CSV table of segments or JSON Lines
of documents, made into documents.jsonl records (the console's documents step, through
Protocol.document_texts).

One Document is one system's translation of one source document: its id `doc_id#system`, its
input_id the doc_id (shared by every system's translation, so the report compares systems
segment by segment), its segments the translations, and meta["sources"] (and
meta["references"] when given) the source segments beside them.

CSV: a header row with doc_id, system, source, target and, if wanted, reference, seg_id,
source_lang, target_lang; a row per segment, grouped into documents by (doc_id, system), the
segments in the order of the rows (or of seg_id, a whole number, when given).

JSON Lines: a document a line, {"doc_id", "system", "segments": [{"source", "target",
"reference"}], "source_lang", "target_lang"}; reference and the languages are optional.

Every problem names the file, the line and what is wrong, and nothing is added.
"""

import csv
import io
from dataclasses import dataclass, field

from bundles.problems import BundleInvalid, Problem, Problems
from falte_site.json_input import JSONInputError, parse_json

from .keys import REFERENCES, SOURCES

CSV_REQUIRED = ("doc_id", "system", "source", "target")
CSV_OPTIONAL = ("reference", "seg_id", "source_lang", "target_lang")
LINE_FIELDS = {"doc_id", "system", "segments", "source_lang", "target_lang"}
SEGMENT_FIELDS = {"source", "target", "reference"}
LANGUAGES = ("source_lang", "target_lang")
FORMATS = {
    "csv": "a table with a row per segment: doc_id, system, source, target (and reference, seg_id)",
    "jsonl": 'JSON Lines, a document a line: {"doc_id", "system", "segments": [{"source", "target", '
    '"reference"}]}',
}


@dataclass
class Translation:
    """One system's translation of one source document, as read: the line it starts on."""

    line: int
    doc_id: str
    system: str
    segments: list = field(default_factory=list)  # [(source, target, reference or "")]
    languages: dict = field(default_factory=dict)

    @property
    def external_id(self):
        return f"{self.doc_id}#{self.system}"

    def record(self):
        """The documents.jsonl record."""
        meta = {SOURCES: [source for source, _, _ in self.segments]}
        if any(reference for _, _, reference in self.segments):
            meta[REFERENCES] = [reference for _, _, reference in self.segments]
        meta.update(self.languages)
        return {"id": self.external_id, "input_id": self.doc_id, "system": self.system,
                "segments": [target for _, target, _ in self.segments], "meta": meta}  # fmt: skip


def translation_documents(data, name, fmt):
    """[(line, documents.jsonl record)] of an uploaded file's bytes in format `fmt` ("csv" or
    "jsonl"); BundleInvalid names `name`, the line and the problem of every row that is wrong."""
    problems = Problems()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        problems.add(name, 0, f"not UTF-8 text ({error.reason} at byte {error.start})")
        problems.raise_if_any()
    read = _csv_translations if fmt == "csv" else _jsonl_translations
    translations = read(text, name, problems)
    if not translations and not problems:
        problems.add(name, 0, "no translations in it")
    _check_same_sources(translations, name, problems)
    problems.raise_if_any()
    return [(t.line, t.record()) for t in translations]


# --- CSV ---------------------------------------------------------------------------------------


def _csv_translations(text, name, problems):
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader)
    except StopIteration:
        problems.add(name, 0, "the file is empty: give a header row and a row per segment")
        return []
    except csv.Error as error:
        problems.add(name, 1, f"not a CSV table: {error}")
        return []
    columns = [column.strip().lower() for column in header]
    missing = [column for column in CSV_REQUIRED if column not in columns]
    unknown = [column for column in columns if column not in CSV_REQUIRED + CSV_OPTIONAL]
    if missing or unknown:
        wanted = f"the header row needs {', '.join(CSV_REQUIRED)} (and may have {', '.join(CSV_OPTIONAL)})"
        if missing:
            problems.add(name, 1, f"no column {', '.join(missing)}: {wanted}")
        if unknown:
            problems.add(name, 1, f"unknown column(s) {', '.join(unknown)}: {wanted}")
        return []
    if len(set(columns)) != len(columns):
        problems.add(name, 1, "a column is named twice in the header row")
        return []
    rows, end = [], reader.line_num
    try:
        for cells in reader:
            line, end = end + 1, reader.line_num  # where the row starts: a quoted cell may span lines
            if not any(cell.strip() for cell in cells):
                continue
            if len(cells) > len(columns):
                problems.add(name, line, f"{len(cells)} cells, but the header has {len(columns)} columns")
                continue
            rows.append(
                (line, dict(zip(columns, [*cells, *[""] * (len(columns) - len(cells))], strict=True)))
            )
    except csv.Error as error:
        problems.add(name, end + 1, f"not a CSV table: {error}")
        return []
    return _grouped_rows(rows, "seg_id" in columns, name, problems)


def _grouped_rows(rows, numbered, name, problems):
    """Translations of the rows, grouped by (doc_id, system) in order of first appearance; their
    segments in the order of seg_id when the table has one, else of the rows."""
    by_document, seg_lines = {}, {}
    for line, row in rows:
        doc_id, system = row["doc_id"].strip(), row["system"].strip()
        segment = _segment(row, name, line, problems)
        order = _seg_id(row["seg_id"], name, line, problems) if numbered else line
        if not doc_id or not system:
            problems.add(name, line, f"the {'doc_id' if not doc_id else 'system'} is empty: every row names "
                                     "its source document (doc_id) and the system that translated it")  # fmt: skip
            continue
        if segment is None or order is None:
            continue
        translation = by_document.setdefault((doc_id, system), Translation(line, doc_id, system))
        for key in LANGUAGES:
            given = row.get(key, "").strip()
            if given and translation.languages.setdefault(key, given) != given:
                problems.add(name, line, f"{key} {given!r} differs from {translation.languages[key]!r}, given "
                                         "earlier for the same document")  # fmt: skip
        if numbered:
            first = seg_lines.setdefault((doc_id, system, order), line)
            if first != line:
                problems.add(name, line, f"seg_id {order} of doc_id {doc_id!r}, system {system!r} is already "
                                         f"on line {first}")  # fmt: skip
                continue
        translation.segments.append((order, segment))
    translations = list(by_document.values())
    for translation in translations:
        translation.segments = [segment for _, segment in sorted(translation.segments, key=lambda s: s[0])]
    return translations


def _seg_id(value, name, line, problems):
    value = value.strip()
    if not value.isdigit():
        problems.add(name, line, f"seg_id {value!r} is not a whole number (it orders a document's segments)")
        return None
    return int(value)


def _segment(row, name, line, problems, where=""):
    """(source, target, reference) of one row or JSON segment, or None after naming what is wrong."""
    values = {}
    for key in ("source", "target", "reference"):
        value = row.get(key)
        if value is None:
            value = ""
        if not isinstance(value, str):
            problems.add(name, line, f"{where}{key} must be text")
            return None
        values[key] = value.strip()
    empty = [key for key in ("source", "target") if not values[key]]
    if empty:
        problems.add(name, line, f"{where}the {' and the '.join(empty)} {'is' if len(empty) == 1 else 'are'} "
                                 "empty: every segment needs its source and its translation (target)")  # fmt: skip
        return None
    return values["source"], values["target"], values["reference"]


# --- JSON Lines --------------------------------------------------------------------------------


def _jsonl_translations(text, name, problems):
    translations, first_line = [], {}
    for line, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            value = parse_json(raw)
        except JSONInputError as error:
            problems.add(
                name, line, f"{error.message} (column {error.column})" if error.column else error.message
            )
            continue
        translation = _jsonl_translation(value, name, line, problems)
        if translation is None:
            continue
        key = (translation.doc_id, translation.system)
        if key in first_line:
            problems.add(name, line, f"doc_id {translation.doc_id!r}, system {translation.system!r} is already "
                                     f"on line {first_line[key]}")  # fmt: skip
            continue
        first_line[key] = line
        translations.append(translation)
    return translations


def _jsonl_translation(value, name, line, problems):
    if not isinstance(value, dict):
        problems.add(name, line, 'a line must be an object: {"doc_id", "system", "segments": [...]}')
        return None
    unknown = sorted(set(value) - LINE_FIELDS, key=str)
    if unknown:
        problems.add(
            name, line, f"unknown field {unknown[0]!r} (a line has {', '.join(sorted(LINE_FIELDS))})"
        )
        return None
    ids = {}
    for key in ("doc_id", "system"):
        given = value.get(key)
        if isinstance(given, int) and not isinstance(given, bool):
            given = str(given)
        if not isinstance(given, str) or not given.strip():
            problems.add(name, line, f"'{key}' is required: "
                                     + ("the source document's id" if key == "doc_id" else "the system's name"))  # fmt: skip
            return None
        ids[key] = given.strip()
    languages = {}
    for key in LANGUAGES:
        if value.get(key) not in (None, ""):
            if not isinstance(value[key], str):
                problems.add(name, line, f"'{key}' must be text, e.g. \"de\"")
                return None
            languages[key] = value[key].strip()
    raw_segments = value.get("segments")
    if not isinstance(raw_segments, list) or not raw_segments:
        problems.add(name, line, '\'segments\' must be a non-empty list of {"source", "target", "reference"}')
        return None
    segments = []
    for index, raw in enumerate(raw_segments):
        where = f"segment {index}: "
        if not isinstance(raw, dict) or set(raw) - SEGMENT_FIELDS:
            problems.add(name, line, f'{where}give {{"source", "target"}} and, if wanted, "reference"')
            return None
        segment = _segment(raw, name, line, problems, where)
        if segment is None:
            return None
        segments.append(segment)
    return Translation(line, ids["doc_id"], ids["system"], segments, languages)


# --- both ----------------------------------------------------------------------------------------


def _check_same_sources(translations, name, problems):
    """Every system's translation of a document has the same source segments: the report compares
    systems segment by segment, so a segment must mean the same source in each of them."""
    first_of = {}
    for translation in translations:
        first = first_of.setdefault(translation.doc_id, translation)
        if first is translation:
            continue
        where = f"doc_id {translation.doc_id!r}, system {translation.system!r}"
        theirs = f"system {first.system!r} (line {first.line})"
        if len(translation.segments) != len(first.segments):
            problems.add(name, translation.line, f"{where} has {len(translation.segments)} segments, "
                                                 f"{theirs} has {len(first.segments)}: every system translates "
                                                 "the same source segments")  # fmt: skip
            continue
        for index, (mine, other) in enumerate(zip(translation.segments, first.segments, strict=True)):
            if mine[0] != other[0]:
                problems.add(name, translation.line, f"{where}: the source of segment {index} is not the one "
                                                     f"{theirs} translates ({mine[0][:40]!r} and {other[0][:40]!r})")  # fmt: skip
                break


def read_translations(path, name, fmt, *, contrastive=False):
    """translation_documents of a file on disk (the console's upload, written to a temporary file);
    a contrastive study's documents in a block per source document (every system's translation
    of it on one page)."""
    if fmt not in FORMATS:
        raise BundleInvalid([Problem(name, 0, f"a translation study reads {' or '.join('.' + f for f in FORMATS)} "
                                              "files")])  # fmt: skip
    documents = translation_documents(path.read_bytes(), name, fmt)
    if contrastive:
        for _, record in documents:
            record["block"] = record["input_id"]
    return documents
