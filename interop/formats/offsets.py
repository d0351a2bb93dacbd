"""Offsets as a format counts them, to and from the corpus's code points; a region's checks.

Tools written in JavaScript count a text in UTF-16 code units (``"😀".length == 2``);
Python tools count code points (``len("😀") == 1``). The corpus counts code points, so a
format that counts UTF-16 units converts each offset on reading and back on writing.
An offset that falls between the two halves of a surrogate pair names no character in
code points: it is reported, never rounded.
"""

from bisect import bisect_left

CODE_POINTS = "code points"
UTF16 = "UTF-16 code units"
UNIT_NAMES = {"code-points": CODE_POINTS, "codepoints": CODE_POINTS, "utf-16": UTF16, "utf16": UTF16}


def unit_named(name):
    """CODE_POINTS or UTF16 for a name a user may type (``code-points``, ``utf-16``); None if neither."""
    if name in (CODE_POINTS, UTF16):
        return name
    return UNIT_NAMES.get(str(name).strip().lower().replace(" ", "-"))


class Offsets:
    """One text's offsets in ``unit`` (CODE_POINTS or UTF16), against code points."""

    def __init__(self, text, unit=CODE_POINTS):
        self.text = text
        self.unit = unit
        self._wide = []  # code-point positions of the characters UTF-16 writes as two units
        if unit == UTF16:
            self._wide = [position for position, character in enumerate(text) if ord(character) > 0xFFFF]

    @property
    def length(self):
        """The text's length in the format's unit."""
        return len(self.text) + len(self._wide)

    def to_code_points(self, offset):
        """The code-point offset of ``offset`` in the format's unit; None inside a surrogate pair."""
        if not self._wide:
            return offset
        # Each wide character before a code-point position adds one unit: find the
        # position p with p + (wide characters before p) == offset.
        low, high = 0, len(self.text)
        while low < high:
            middle = (low + high) // 2
            if middle + bisect_left(self._wide, middle) < offset:
                low = middle + 1
            else:
                high = middle
        return low if low + bisect_left(self._wide, low) == offset else None

    def from_code_points(self, offset):
        return offset + bisect_left(self._wide, offset) if self._wide else offset


def is_offset(value):
    """A whole number as JSON gives it (``true`` is not one, though Python thinks so)."""
    return isinstance(value, int) and not isinstance(value, bool)


def region_span(offsets, start, end, item, problems_at):
    """Checks a region's ``start``/``end`` (in the format's unit) against its text.

    ``problems_at(message)`` is called with each problem, naming ``item`` (e.g.
    "document 'd7': label 2"); returns (start, end) in code points, or None when the
    region cannot be placed.
    """
    placed = True
    for name, value in (("start", start), ("end", end)):
        if not is_offset(value):
            problems_at(f"{item}: {name} {value!r} is not a whole number")
            placed = False
    if not placed:
        return None
    unit = "characters" if offsets.unit == CODE_POINTS else offsets.unit
    if start < 0:
        problems_at(f"{item}: start {start} is negative")
        placed = False
    if end > offsets.length:
        problems_at(f"{item}: end {end} is past the text's end ({offsets.length} {unit})")
        placed = False
    if start >= end:
        problems_at(f"{item}: start {start} is not before end {end}")
        placed = False
    if not placed:
        return None
    code_start, code_end = offsets.to_code_points(start), offsets.to_code_points(end)
    for name, value, code_value in (("start", start, code_start), ("end", end, code_end)):
        if code_value is None:
            problems_at(
                f"{item}: {name} {value} falls inside a character that UTF-16 writes as two units "
                f"(offsets here count {offsets.unit})"
            )
            placed = False
    return (code_start, code_end) if placed else None


def check_covered_text(covered, given, item, problems_at, *, ignore_case=False):
    """The file's own copy of a region's text must be the text its offsets cover."""
    same = covered.casefold() == given.casefold() if ignore_case else covered == given
    if not same:
        problems_at(f"{item}: text {given!r} is not the text its offsets cover ({covered!r})")
    return same
