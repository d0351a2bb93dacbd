"""Read bundle files into plain records that remember their line numbers.

Nothing here judges the content; `checking` does. A file that cannot be read
at all (too large, not UTF-8, broken YAML or JSON) is reported here.
"""

import bisect
import json
import os
import re
from dataclasses import dataclass

import yaml
from django.conf import settings


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
    if not isinstance(value, dict):
        problems.add(name, 1, "must be a mapping of study settings")
        return None
    return value


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
                    yield Record(name, number, json.loads(line))
                except json.JSONDecodeError as error:
                    problems.add(name, number, f"invalid JSON: {error.msg} (column {error.colno})")
    except UnicodeDecodeError as error:
        problems.add(name, 0, f"not UTF-8 text ({error.reason} at byte {error.start})")


def read_falte_documents(path, name, problems):
    """FALTE's documents.json: {"doc_id": [paragraphs] | {"sentences": [...]}}.

    Yields one Record per document; the line is where its key stands.
    """
    text = _read_text(path, name, problems)
    if text is None:
        return
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        problems.add(name, error.lineno, f"invalid JSON: {error.msg} (column {error.colno})")
        return
    if not isinstance(value, dict):
        problems.add(name, 1, 'must be an object: {"document id": [segments...]}')
        return
    line_starts = [0] + [match.end() for match in re.finditer("\n", text)]
    search_from = 0
    for key, body in value.items():
        match = re.compile(re.escape(json.dumps(key)) + r"\s*:").search(text, search_from)
        if match is None:  # keys written with escapes; fall back to the file start
            line = 1
        else:
            search_from = match.end()
            line = _line_of(line_starts, match.start())
        yield Record(name, line, {"__falte_id": key, "__falte_body": body})


def _line_of(line_starts, offset):
    return bisect.bisect_right(line_starts, offset)
