"""Reading a JSON file of items (a top-level array) with the line each item starts on."""

import json
import os

from django.conf import settings

from bundles.problems import lines_that_tell_apart
from falte_site.json_input import JSONInputError, parse_json


def json_array_items(path, name, problems, *, what="item"):
    """[(line, value)] of the file's top-level array; None (with a problem added) when the
    file is too large, not UTF-8, not JSON we accept (NUL, lone surrogates...) or no array.

    An item's line is None when other items start on the same line, or the file is one line:
    a JSON export is often written so, and its items are named by their ids, not "line 1"."""
    limit = settings.BUNDLE_MAX_FILE_BYTES
    size = os.path.getsize(path)
    if size > limit:
        problems.add(name, 0, f"file too large: {size:,} bytes, the limit is {limit:,}")
        return None
    with open(path, "rb") as handle:
        data = handle.read()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        problems.add(name, 0, f"not UTF-8 text ({error.reason} at byte {error.start})")
        return None
    try:
        value = parse_json(text)
    except JSONInputError as error:
        problems.add(name, error.line, f"not JSON we accept: {error.message}")
        return None
    if not isinstance(value, list):
        problems.add(name, 1, f"must be a JSON array of {what}s, [{{...}}, ...]")
        return None
    return list(zip(lines_that_tell_apart(_item_lines(text, len(value)), text), value, strict=True))


def _item_lines(text, count):
    """The line where each top-level array element starts (the text is known to be a JSON array)."""
    decoder, lines = json.JSONDecoder(), []
    position = text.index("[") + 1
    line, counted = 1, 0
    for _ in range(count):
        while text[position] in " \t\r\n,":
            position += 1
        line += text.count("\n", counted, position)
        counted = position
        lines.append(line)
        _, position = decoder.raw_decode(text, position)
    return lines
