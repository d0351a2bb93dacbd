"""Cells for files a researcher opens in a spreadsheet (CSV, XLSX).

Spreadsheets run a text cell that starts with `=`, `+`, `-` or `@` as a
formula (a tab or carriage return in front is skipped), so a span, comment or
document id typed by a worker could fetch a URL or run a command on the
researcher's machine. OWASP's advice is to start such a cell with a single
quote, which spreadsheets read as "this is text". JSONL files keep the raw
values (docs/exports.md).
"""

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_safe(value):
    """The cell to write for `value`: text that could start a formula gets a leading `'`.

    Only text changes: a number stays a number (a real `-3` is not a formula).
    """
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def sql_spreadsheet_safe(expression):
    """spreadsheet_safe for a text `expression` in PostgreSQL: the same quote, and empty text
    as NULL (COPY's CSV writes an empty string as `""`, Python's csv writer as nothing)."""
    starts = ", ".join(str(ord(start)) for start in FORMULA_STARTS)  # ascii(): the first code point
    value = f"({expression})"
    return f"(CASE WHEN ascii({value}) IN ({starts}) THEN '''' || {value} ELSE NULLIF({value}, '') END)"
