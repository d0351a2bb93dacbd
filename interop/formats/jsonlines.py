"""JSON and JSON Lines read without ever raising: what cannot be read becomes a problem.

A problem names the line (1-based; 0 for a whole file). What the platform could not
store is a problem too: a lone surrogate (``"\\ud83d"`` is valid JSON but not Unicode), a NUL
character (PostgreSQL text refuses it), NaN or Infinity, nesting past MAX_DEPTH levels.
"""

import json
import math
from pathlib import Path

# As falte_site.json_input (which this package cannot import: it would load Celery): real
# annotation files nest a few levels, and a deeper value is refused before anything walks it.
MAX_DEPTH = 64


def json_lines(path, name, problems):
    """(line number, object) for each non-blank line of a JSON Lines file that holds an object.

    A generator reading a line at a time (a file may be large), so that the problems of a
    line also come in line order with those its reader adds.
    """
    try:
        handle = open(path, "rb")  # noqa: SIM115 - closed by the with below, in the generator
    except OSError as error:
        problems.add(name, 0, f"cannot read the file: {error.strerror or error}")
        return
    with handle:
        for number, line in enumerate(handle, start=1):
            raw = line.rstrip(b"\r\n")
            if not raw.strip():
                continue
            text = _decode(raw, name, number, problems)
            if text is None:
                continue
            if number == 1:
                text = text.removeprefix("\ufeff")
            value = load_json(text, lambda message, number=number: problems.add(name, number, message))
            if value is None:
                continue
            if not isinstance(value, dict):
                problems.add(name, number, f"a line must hold a JSON object, not {json_type(value)}")
                continue
            yield number, value


def json_file(path, name, problems):
    """The JSON value a whole file holds, or None (with a problem at line 0)."""
    data = _read_bytes(path, name, problems)
    if data is None:
        return None
    text = _decode(data, name, 0, problems)
    if text is None:
        return None
    return load_json(text.removeprefix("\ufeff"), lambda message: problems.add(name, 0, message))


def load_json(text, problems_at):
    """The parsed value, or None after ``problems_at(message)``; also checks what it holds."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        problems_at(f"not JSON: {error.msg} (column {error.colno})")
        return None
    except RecursionError:
        problems_at(f"not readable: JSON nested more than {MAX_DEPTH} levels")
        return None
    except ValueError:  # an integer longer than Python converts
        problems_at("not readable: a number has too many digits")
        return None
    wrong = unstorable(value)
    for message in wrong:
        problems_at(message)
    return None if wrong else value


def unstorable(value):
    """What the platform could not store in a parsed JSON value, each kind said once."""
    found = {}
    stack = [(value, 0)]
    while stack:  # a loop, not recursion: the value may be nested as deep as json allowed
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth >= MAX_DEPTH:
                found["depth"] = f"not readable: JSON nested more than {MAX_DEPTH} levels"
                continue
            children = [*item.keys(), *item.values()] if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
        elif isinstance(item, float) and not math.isfinite(item):
            found["number"] = "a number is not finite (NaN or Infinity is not JSON)"
        elif isinstance(item, str):
            if "\x00" in item:
                found["NUL"] = "a string holds a NUL character (\\u0000), which cannot be stored"
            if not item.isascii():
                try:
                    item.encode("utf-8")
                except UnicodeEncodeError:
                    found["surrogate"] = (
                        "a string holds a lone surrogate (half of a UTF-16 pair), which is not Unicode text"
                    )
    return list(found.values())


def json_type(value):
    names = {dict: "an object", list: "a list", str: "a string", bool: "true/false", type(None): "null"}
    return names.get(type(value), "a number")


def dump_line(value):
    return json.dumps(value, ensure_ascii=False) + "\n"


def _read_bytes(path, name, problems):
    try:
        return Path(path).read_bytes()
    except OSError as error:
        problems.add(name, 0, f"cannot read the file: {error.strerror or error}")
        return None


def _decode(raw, name, line, problems):
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        problems.add(name, line, f"not UTF-8 text (byte {error.start + 1} of the line)")
        return None
