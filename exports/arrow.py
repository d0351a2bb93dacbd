"""The annotation table as Arrow record batches, built a column at a time (for Parquet).

Two sources, both reading a bounded number of rows at a time:

- copy_batches: a protocol's COPY ... TO STDOUT (FORMAT csv) statements on PostgreSQL,
  parsed by pyarrow's CSV reader (C++), so no Python object is made per cell. The statements
  write NULL for a null cell and '' for empty text: COPY leaves NULL unquoted and quotes an
  empty string, and the reader keeps the two apart.
- row_batches: any protocol's rows (exports.rows.annotation_rows, read by Django in chunks),
  transposed a chunk at a time into column lists for pa.array.
"""

from itertools import islice

import pyarrow as pa
import pyarrow.csv as pa_csv
from django.db import connection, transaction

# Bytes of COPY output per record batch: about 20,000 rows of the span table.
BLOCK_BYTES = 4 << 20
ROWS_PER_BATCH = 10_000


def _copy_blocks(cursor, statements):
    """COPY's output in blocks of whole rows (the server sends one row per message).

    Rows are copied into one bytearray as they come rather than kept as a list of row
    buffers: tens of thousands of live buffers make each garbage collection walk them all,
    which cost more CPU than reading the rows (docs/decisions.md).
    """
    block = bytearray()
    for statement, params in statements:
        with cursor.copy(statement, params) as copy:
            for row in copy:
                block += row
                if len(block) >= BLOCK_BYTES:
                    yield block
                    block = bytearray()
    if block:
        yield block


def copy_batches(statements, schema):
    """Record batches of `schema` from COPY (FORMAT csv) `statements`: [(sql, params)], whose
    columns are the schema's, in order. A database error or a cell that does not parse as its
    column's type ends the export with that error (nothing half-written is kept).

    Each block is parsed on its own, in this thread: pyarrow's streaming reader would read the
    database from an I/O thread of its own, several blocks ahead.
    """
    read = pa_csv.ReadOptions(column_names=schema.names, use_threads=False)
    parse = pa_csv.ParseOptions(newlines_in_values=True)  # a comment may hold a line break
    convert = pa_csv.ConvertOptions(
        column_types={field.name: field.type for field in schema},
        null_values=[""],  # not pyarrow's default list: a span may well read "NULL" or "N/A"
        strings_can_be_null=True,
        quoted_strings_can_be_null=False,
    )
    # JIT would compile the expressions for about 0.4 s before the first row, more than it saves.
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL jit = off")
        for block in _copy_blocks(cursor.cursor, statements):
            table = pa_csv.read_csv(
                pa.BufferReader(block), read_options=read, parse_options=parse, convert_options=convert
            )
            yield from table.to_batches()


def _text(values):
    try:
        return pa.array(values, type=pa.string())
    except (pa.ArrowTypeError, pa.ArrowInvalid):  # a number or a bool in a text column: as str() writes it
        return pa.array([None if value is None else str(value) for value in values], type=pa.string())


def _typed(values, arrow_type):
    # The CSV writes a missing number as an empty cell: a null here.
    return pa.array([None if value == "" else value for value in values], type=arrow_type)


def row_batches(rows, schema):
    """Record batches of `schema` from `rows` (lists in the schema's column order): text
    columns as str() writes each value (None stays null), typed columns with "" as null."""
    rows = iter(rows)
    while chunk := list(islice(rows, ROWS_PER_BATCH)):
        columns = zip(*chunk, strict=True)
        arrays = [
            _text(list(values)) if field.type == pa.string() else _typed(values, field.type)
            for values, field in zip(columns, schema, strict=True)
        ]
        yield pa.RecordBatch.from_arrays(arrays, schema=schema)
