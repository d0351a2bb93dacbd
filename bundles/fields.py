"""Small checks shared by every bundle file's checker."""

from studies.spans import is_whole_number as is_int

__all__ = ["is_int", "text_field", "unknown_fields"]


def unknown_fields(mapping, allowed, where, problems, line):
    """Report keys a record does not know; typos must not be silently dropped."""
    if mapping.keys() <= allowed:  # the usual case, without building the sorted difference
        return
    for key in sorted(set(mapping) - allowed, key=str):
        problems.add(where, line, f"unknown field '{key}' (allowed: {', '.join(sorted(allowed))})")


def text_field(mapping, key, where, line, problems, default=""):
    value = mapping.get(key, default)
    if value is None:
        return default
    if not isinstance(value, str):
        problems.add(where, line, f"'{key}' must be text")
        return default
    return value
