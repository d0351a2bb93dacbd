"""Checks of a span against its segment, shared by bundle import and the worker API."""


def is_whole_number(value):
    """A JSON whole number (true and false are not numbers here)."""
    # type() first: what JSON gives is exactly int, and this runs for every offset of a bundle.
    return type(value) is int or (isinstance(value, int) and not isinstance(value, bool))


def span_error(segment_text, start, end, text=None):
    """Why [start, end) with `text` is not a span of `segment_text`, or None.

    Offsets are code points, end exclusive; `text`, when given, must be
    exactly what the offsets hold.
    """
    if not (is_whole_number(start) and is_whole_number(end)):
        return "'start' and 'end' must be whole numbers"
    if not 0 <= start < end <= len(segment_text):
        return f"offsets [{start}, {end}) are outside the segment ({len(segment_text)} characters) or empty"
    if text is not None and segment_text[start:end] != text:
        return f"text {text!r} does not match the offsets [{start}, {end}), which hold {segment_text[start:end]!r}"
    return None
