"""Small checks shared by every bundle file's checker."""


def is_int(value):
    """A JSON/YAML whole number (true and false are not numbers here)."""
    return isinstance(value, int) and not isinstance(value, bool)


def unknown_fields(mapping, allowed, where, problems, line):
    """Report keys a record does not know; typos must not be silently dropped."""
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
