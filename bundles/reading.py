"""Read bundle files into plain records that remember their line numbers.

Nothing here judges the content; `checking` does. A file that cannot be read
at all (too large, not UTF-8, broken YAML or JSON) is reported here, and so is
a value that nothing could store (NUL, a lone surrogate, nesting deeper than
falte_site.json_input.MAX_DEPTH): the checks after reading may assume neither.
"""

import bisect
import json
import os
import re
from dataclasses import dataclass

import yaml
from django.conf import settings

from falte_site.json_input import MAX_DEPTH, JSONInputError, check_json_value, parse_json

from .problems import lines_that_tell_apart


class LineDict(dict):
    """A mapping from YAML that knows the line it starts on."""

    line = 0


def plain(value):
    """The same data with every LineDict made a plain dict (for storing and dumping)."""
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [plain(item) for item in value]
    return value


class _LineLoader(yaml.SafeLoader):
    """SafeLoader whose mappings are LineDicts."""


def _construct_line_dict(loader, node):
    mapping = LineDict()
    mapping.line = node.start_mark.line + 1
    yield mapping
    mapping.update(loader.construct_mapping(node))


_LineLoader.add_constructor("tag:yaml.org,2002:map", _construct_line_dict)


@dataclass
class Record:
    """One JSON value from a bundle file and where it stands."""

    file: str
    line: int
    value: object


def _size_ok(path, name, problems):
    limit = settings.BUNDLE_MAX_FILE_BYTES
    size = os.path.getsize(path)
    if size > limit:
        problems.add(name, 0, f"file too large: {size:,} bytes, the limit is {limit:,}")
        return False
    return True


def _read_text(path, name, problems):
    if not _size_ok(path, name, problems):
        return None
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except UnicodeDecodeError as error:
        problems.add(name, 0, f"not UTF-8 text ({error.reason} at byte {error.start})")
        return None


def read_yaml(path, name, problems):
    text = _read_text(path, name, problems)
    if text is None:
        return None
    try:
        value = yaml.load(text, Loader=_LineLoader)  # noqa: S506 - SafeLoader subclass
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark
        problems.add(name, mark.line + 1 if mark else 0, f"invalid YAML: {error.problem}")
        return None
    except yaml.reader.ReaderError as error:  # a control character such as NUL in the text
        line = text.count("\n", 0, error.position) + 1
        problems.add(name, line, f"invalid YAML: {str(error).splitlines()[0]}")
        return None
    except RecursionError:
        problems.add(name, 0, f"invalid YAML: nested more than {MAX_DEPTH} levels deep")
        return None
    if not isinstance(value, dict):
        problems.add(name, 1, "must be a mapping of study settings")
        return None
    try:
        check_json_value(value)
    except JSONInputError as error:
        problems.add(name, _yaml_line(value, error.path), str(error))
        return None
    return value


def _yaml_line(value, path):
    """The line of the innermost mapping on `path` (YAML escapes can put NUL anywhere)."""
    line = value.line
    for step in path:
        value = value[step]
        line = getattr(value, "line", line)
    return line


def _json_problem(error):
    """The message of a JSONInputError on one line of a file (the line is given apart)."""
    return f"{error.message} (column {error.column})" if error.column else error.message


def read_jsonl(path, name, problems):
    """Yield a Record per non-blank line; bad JSON is reported and skipped."""
    if not _size_ok(path, name, problems):
        return
    try:
        with open(path, encoding="utf-8") as handle:
            for number, line in enumerate(handle, start=1):
                if not line.strip():
                    continue
                try:
                    yield Record(name, number, parse_json(line))
                except JSONInputError as error:
                    problems.add(name, number, _json_problem(error))
    except UnicodeDecodeError as error:
        problems.add(name, 0, f"not UTF-8 text ({error.reason} at byte {error.start})")


def read_falte_documents(path, name, problems):
    """FALTE's documents.json: {"doc_id": [paragraphs] | {"sentences": [...]}}.

    Yields one Record per document; the line is where its key stands, None when other
    documents' keys stand on the same line or the file is one line (the document's id
    names it).
    """
    text = _read_text(path, name, problems)
    if text is None:
        return
    try:
        value = parse_json(text)
    except JSONInputError as error:
        line = error.line
        if not line and error.path:  # a problem inside a document: the line of its key
            line = next(line for _, line in _key_lines(text, error.path[:1]))
        problems.add(name, line, _json_problem(error))
        return
    if not isinstance(value, dict):
        problems.add(name, 1, 'must be an object: {"document id": [segments...]}')
        return
    lines = lines_that_tell_apart([line for _, line in _key_lines(text, value)], text)
    for key, line in zip(value, lines, strict=True):
        yield Record(name, line, {"__falte_id": key, "__falte_body": value[key]})


def _key_lines(text, keys):
    """(key, line) for the top-level keys of a JSON object, in the order they stand in `text`."""
    line_starts = [0] + [match.end() for match in re.finditer("\n", text)]
    search_from = 0
    for key in keys:
        match = re.compile(re.escape(json.dumps(key)) + r"\s*:").search(text, search_from)
        if match is None:  # keys written with escapes; fall back to the file start
            line = 1
        else:
            search_from = match.end()
            line = _line_of(line_starts, match.start())
        yield key, line


def _line_of(line_starts, offset):
    return bisect.bisect_right(line_starts, offset)
