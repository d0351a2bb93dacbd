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

The file is read from its copy on disk a row (a line) at a time onto a TranslationShelf (a private
SQLite database in a temporary file), which groups a document's segments wherever its rows are;
the documents are given one by one, once every row and every document's sources are checked.
"""

import csv

from bundles.problems import BundleInvalid, Problem, Problems
from bundles.utf8 import check_utf8_file
from falte_site.json_input import JSONInputError, parse_json

from .document_shelf import Translation, TranslationShelf

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


def read_translations(path, name, fmt, *, contrastive=False):
    """(line, documents.jsonl record) of a file on disk (the console's upload, copied to a temporary
    file) in format `fmt` ("csv" or "jsonl"), one document at a time; a contrastive study's
    documents in a block per source document (every system's translation of it on one page).

    The file is read a line (a row) at a time onto a TranslationShelf, which groups a document's
    segments; BundleInvalid names `name`, the line and the problem of every row that is wrong, once
    the whole file is read and before any document is given."""
    if fmt not in FORMATS:
        raise BundleInvalid([Problem(name, 0, f"a translation study reads {' or '.join('.' + f for f in FORMATS)} "
                                              "files")])  # fmt: skip
    check_utf8_file(path, name)
    return _documents(path, name, fmt, contrastive)


def _documents(path, name, fmt, contrastive):
    problems, shelf = Problems(), TranslationShelf()
    try:
        read = _csv_translations if fmt == "csv" else _jsonl_translations
        read(path, name, problems, shelf)
        if not shelf.count and not problems:
            problems.add(name, 0, "no translations in it")
        # A pass to check every document before one is given: a problem names its line and nothing
        # is written, however late in the file it is.
        for translation in shelf.translations():
            _check_same_sources(translation, shelf.first_of(translation), name, problems)
        problems.raise_if_any()
        for translation in shelf.translations():
            record = translation.record()
            if contrastive:
                record["block"] = record["input_id"]
            yield translation.line, record
    finally:
        shelf.close()


# --- CSV ---------------------------------------------------------------------------------------


def _csv_translations(path, name, problems, shelf):
    with open(path, encoding="utf-8-sig", newline="") as table:
        reader = csv.reader(table)
        try:
            header = next(reader)
        except StopIteration:
            problems.add(name, 0, "the file is empty: give a header row and a row per segment")
            return
        except csv.Error as error:
            problems.add(name, 1, f"not a CSV table: {error}")
            return
        columns = [column.strip().lower() for column in header]
        missing = [column for column in CSV_REQUIRED if column not in columns]
        unknown = [column for column in columns if column not in CSV_REQUIRED + CSV_OPTIONAL]
        if missing or unknown:
            wanted = (
                f"the header row needs {', '.join(CSV_REQUIRED)} (and may have {', '.join(CSV_OPTIONAL)})"
            )
            if missing:
                problems.add(name, 1, f"no column {', '.join(missing)}: {wanted}")
            if unknown:
                problems.add(name, 1, f"unknown column(s) {', '.join(unknown)}: {wanted}")
            return
        if len(set(columns)) != len(columns):
            problems.add(name, 1, "a column is named twice in the header row")
            return
        # The problems of a row's values come after those of every row's cells, as they did when
        # the whole table was split into rows before any row was grouped.
        of_values, end = Problems(), reader.line_num
        try:
            for cells in reader:
                line, end = end + 1, reader.line_num  # where the row starts: a quoted cell may span lines
                if not any(cell.strip() for cell in cells):
                    continue
                if len(cells) > len(columns):
                    problems.add(name, line, f"{len(cells)} cells, but the header has {len(columns)} columns")
                    continue
                row = dict(zip(columns, [*cells, *[""] * (len(columns) - len(cells))], strict=True))
                _shelve_row(shelf, line, row, "seg_id" in columns, name, of_values)
        except csv.Error as error:
            problems.add(name, end + 1, f"not a CSV table: {error}")
            shelf.forget()
            return
    problems.items.extend(of_values.items)


def _shelve_row(shelf, line, row, numbered, name, problems):
    """Put a row's segment on the shelf, in its document (doc_id, system) at its place: its seg_id
    when the table has one, else its line."""
    doc_id, system = row["doc_id"].strip(), row["system"].strip()
    segment = _segment(row, name, line, problems)
    number = _seg_id(row["seg_id"], name, line, problems) if numbered else line
    if not doc_id or not system:
        problems.add(name, line, f"the {'doc_id' if not doc_id else 'system'} is empty: every row names "
                                 "its source document (doc_id) and the system that translated it")  # fmt: skip
        return
    if segment is None or number is None:
        return
    translation = shelf.find(doc_id, system) or shelf.add(doc_id, system, line)
    given_before = dict(translation.languages)
    for key in LANGUAGES:
        given = row.get(key, "").strip()
        if given and translation.languages.setdefault(key, given) != given:
            problems.add(name, line, f"{key} {given!r} differs from {translation.languages[key]!r}, given "
                                     "earlier for the same document")  # fmt: skip
    if translation.languages != given_before:
        shelf.set_languages(translation)
    if numbered:
        first = shelf.segment_line(translation, number)
        if first is not None:
            problems.add(name, line, f"seg_id {number} of doc_id {doc_id!r}, system {system!r} is already "
                                     f"on line {first}")  # fmt: skip
            return
    shelf.add_segment(translation, number, line, segment)


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


def _jsonl_translations(path, name, problems, shelf):
    with open(path, encoding="utf-8-sig", newline="") as text:
        # Lines as str.splitlines() cuts a whole text (at \u2028 and the like too), as they were cut.
        lines = (raw for physical in text for raw in physical.splitlines())
        for line, raw in enumerate(lines, start=1):
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
            known = shelf.find(translation.doc_id, translation.system)
            if known is not None:
                problems.add(name, line, f"doc_id {translation.doc_id!r}, system {translation.system!r} is "
                                         f"already on line {known.line}")  # fmt: skip
                continue
            shelved = shelf.add(translation.doc_id, translation.system, line, translation.languages)
            for index, segment in enumerate(translation.segments):
                shelf.add_segment(shelved, index, line, segment)


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


def _check_same_sources(translation, first, name, problems):
    """Every system's translation of a document has the same source segments as the first one read
    (`first`): the report compares systems segment by segment, so a segment must mean the same
    source in each of them."""
    if first is translation:
        return
    where = f"doc_id {translation.doc_id!r}, system {translation.system!r}"
    theirs = f"system {first.system!r} (line {first.line})"
    if len(translation.segments) != len(first.segments):
        problems.add(name, translation.line, f"{where} has {len(translation.segments)} segments, "
                                             f"{theirs} has {len(first.segments)}: every system translates "
                                             "the same source segments")  # fmt: skip
        return
    for index, (mine, other) in enumerate(zip(translation.segments, first.segments, strict=True)):
        if mine[0] != other[0]:
            problems.add(name, translation.line, f"{where}: the source of segment {index} is not the one "
                                                 f"{theirs} translates ({mine[0][:40]!r} and {other[0][:40]!r})")  # fmt: skip
            return
