"""JSON from outside (request bodies, bundle files) checked before anything stores it.

`json.loads` accepts more than the database and the rest of the code can take:

- a NUL character ("\\u0000"): PostgreSQL cannot store it in text or jsonb;
- a lone surrogate ("\\ud800"): not a character, so it cannot be encoded as
  UTF-8 for any database;
- NaN, Infinity, or 1e400 (which Python reads as infinity): not JSON, and
  jsonb refuses them;
- deep nesting: the parser raises RecursionError past about 1,000 levels,
  and every recursive walk after it (serialisers, the jsonb encoder) may too.

`parse_json` reads and checks in one step; `check_json_value` checks data
that arrived another way (YAML). Both raise `JSONInputError`, whose message
says what is wrong and where (a JSON path such as `annotations[0].text`, or a
line and column of the text); each surface turns it into its own error shape.
"""

import json
import math
import re
import sys

# Real input needs far less (a document's meta tables nest about 7 levels);
# the limit stays well below the depth where recursion becomes a risk.
MAX_DEPTH = 64
# Values one document may hold. Far above real data; it stops YAML's aliases
# ("billion laughs": each level repeats the one below) from making a walk that
# never ends out of a file of a few hundred bytes.
MAX_VALUES = 2_000_000


class JSONInputError(ValueError):
    """Input that is not JSON we accept. `line` and `column` are 1-based, 0 when unknown."""

    def __init__(self, message, *, line=0, column=0, path=()):
        super().__init__(message)
        self.message = message
        self.line = line
        self.column = column
        self.path = tuple(path)

    def __str__(self):
        if self.line:
            return f"{self.message} (line {self.line}, column {self.column})"
        return self.message


def parse_json(data, *, max_depth=MAX_DEPTH):
    """The value of a JSON text (bytes in UTF-8, or str), checked by `check_json_value`."""
    if isinstance(data, bytes | bytearray):
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError as error:
            raise JSONInputError(f"not UTF-8 text ({error.reason} at byte {error.start})") from None
    try:
        value, finite = _loads(data)
    except json.JSONDecodeError as error:
        raise JSONInputError(f"invalid JSON: {error.msg}", line=error.lineno, column=error.colno) from None
    except RecursionError:
        line, column = _too_deep_position(data, max_depth)
        raise JSONInputError(_too_deep(max_depth), line=line, column=column) from None
    except ValueError:  # the only other one: an integer longer than Python converts
        limit = sys.get_int_max_str_digits()
        raise JSONInputError(f"invalid JSON: a number has more than {limit} digits") from None
    if not (finite and _plainly_acceptable(data, max_depth)):
        check_json_value(value, max_depth=max_depth)
    return value


class _NotFinite(ValueError):
    pass


def _loads(text):
    """(value, whether every float in it is finite)."""
    try:
        return json.loads(text, parse_float=_finite_float), True
    except _NotFinite:  # parsed again as it is, for check_json_value to say where
        return json.loads(text), False


def _finite_float(text):
    number = float(text)
    if not math.isfinite(number):  # 1e400
        raise _NotFinite
    return number


# Where the text itself shows that its value holds nothing check_json_value refuses, the walk of
# every value (a quarter to a third of checking a bundle's lines) is skipped. Conservative: any sign of a NUL, a
# surrogate, NaN or Infinity (even inside a text), or nesting not measured cheaply, takes the walk.
_RISKY_ESCAPE = re.compile(r"\\u(?:0000|[dD][89a-fA-F])")
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')  # a JSON text, unrolled: no alternation per character
_INNERMOST = re.compile(r"[\[{][^\[\]{}]*[\]}]")
_BRACKETS = re.compile(r"[\[\]{}]")


def _plainly_acceptable(text, max_depth):
    """Whether JSON text that parsed holds no NUL, lone surrogate or non-finite number (floats
    were checked as parsed), no more than MAX_VALUES values, and no nesting deeper than
    `max_depth`, as far as its text shows without walking its value."""
    if len(text) >= MAX_VALUES:  # a value takes at least one character
        return False
    if "NaN" in text or "Infinity" in text or "\x00" in text:
        return False
    if "\\u" in text and _RISKY_ESCAPE.search(text):
        return False
    if not text.isascii():
        try:
            text.encode("utf-8")  # a str may carry a lone surrogate as it is, not escaped
        except UnicodeEncodeError:
            return False
    if text.count("[") + text.count("{") <= max_depth:
        return True
    # The brackets outside texts, innermost pairs removed one level a pass: nesting of at most
    # max_depth levels is gone after max_depth passes.
    skeleton = _STRING.sub("", text)
    for _ in range(max_depth):
        skeleton, removed = _INNERMOST.subn("", skeleton)
        if not removed:
            break
    return _BRACKETS.search(skeleton) is None


def check_json_value(value, *, max_depth=MAX_DEPTH, path=()):
    """Raise JSONInputError for NUL or a lone surrogate in any key or text, a number
    that is not finite, or containers nested more than `max_depth` levels. `path` is where
    `value` stands in a larger value read a part at a time (its depth counts, and a problem's
    path starts with it)."""
    _check_value(value, tuple(path), max_depth, [0])
    return value


def _check_value(item, path, max_depth, seen):
    """Check `item` at `path`, then its children in reading order, so that the first problem in
    reading order is reported. Recursion is bounded: a container deeper than `max_depth` is refused
    before its children are visited. A scalar child's path is built only when it is refused: a bundle
    holds millions of them."""
    seen[0] += 1
    if seen[0] > MAX_VALUES:
        raise JSONInputError(f"more than {MAX_VALUES:,} values (repeated YAML aliases?)", path=path)
    if isinstance(item, str):
        _check_text(item, path)
    elif isinstance(item, float):
        if not math.isfinite(item):
            raise JSONInputError(f"the number{_at(path)} is not finite", path=path)
    elif isinstance(item, dict | list):
        if len(path) >= max_depth:
            shown = json_path(path[:4]) + ("..." if len(path) > 4 else "")
            raise JSONInputError(f"{_too_deep(max_depth)} at {shown}", path=path)
        if isinstance(item, dict):
            for key in item:
                if isinstance(key, str):
                    _check_text(key, path, key=True)
            children = item.items()
        else:
            children = enumerate(item)
        for key, child in children:
            if isinstance(child, str) and "\x00" not in child and child.isascii():
                seen[0] += 1  # a plain ASCII text without NUL: nothing to refuse but the count
                if seen[0] > MAX_VALUES:
                    _check_value(child, (*path, key), max_depth, [MAX_VALUES])
            elif isinstance(child, int) and seen[0] < MAX_VALUES:
                seen[0] += 1  # whole numbers (and booleans) are always finite
            else:
                _check_value(child, (*path, key), max_depth, seen)


def json_path(path):
    """`annotations[0].paired.text` for ("annotations", 0, "paired", "text")."""
    text = ""
    for step in path:
        if isinstance(step, str) and step.isidentifier():
            text += f".{step}" if text else step
        else:
            text += f"[{json.dumps(step)}]" if isinstance(step, str) else f"[{step}]"
    return text


def _check_text(text, path, *, key=False):
    if "\x00" in text:
        raise JSONInputError(f"{_what(path, key)} contains a NUL character (\\u0000), which cannot be stored",
                             path=path)  # fmt: skip
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError as error:
            code = ord(text[error.start])
            raise JSONInputError(
                f"{_what(path, key)} contains a lone surrogate (\\u{code:04x}), which is not a character",
                path=path,
            ) from None


def _what(path, key):
    # Named only once a text is refused: a bundle checks millions of texts, and naming each one's
    # path up front was most of the cost of checking them.
    return f"a key{' in ' + json_path(path) if path else ''}" if key else f"the text{_at(path)}"


def _at(path):
    return f" at {json_path(path)}" if path else ""


def _too_deep(max_depth):
    return f"nested more than {max_depth} levels deep"


_LEXEME = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}\n]')


def _too_deep_position(text, max_depth):
    """(line, column) of the bracket that opens level max_depth + 1; (0, 0) if none does."""
    depth, line, line_start = 0, 1, 0
    for match in _LEXEME.finditer(text):
        lexeme = match.group()
        if lexeme == "\n":
            line, line_start = line + 1, match.end()
        elif lexeme in "[{":
            depth += 1
            if depth > max_depth:
                return line, match.start() - line_start + 1
        elif lexeme in "]}":
            depth -= 1
    return 0, 0
