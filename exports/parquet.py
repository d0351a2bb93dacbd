"""The annotation table as Parquet: typed columns, written a row group at a time so memory
stays flat, and handed out as bytes while it is written (a streamed download or a job's file).

The columns and values are the CSV's (exports.rows.annotation_rows): the protocol says which
columns are ints, floats or bools (Protocol.export_types); every other column is text. An
empty cell of a typed column is a null; text is as stored, with no formula guard (Parquet
is not opened by spreadsheets as text, and JSON Lines keeps raw text too).
"""

import pyarrow as pa
import pyarrow.parquet as pq

from studies import protocols

from .rows import annotation_rows, columns

ROW_GROUP = 20_000
ARROW_TYPES = {"int": pa.int64(), "float": pa.float64(), "bool": pa.bool_()}


def parquet_schema(study, *, with_platform_ids=False):
    types = protocols.of(study).export_types(study)
    return pa.schema(
        [(name, ARROW_TYPES.get(types.get(name), pa.string())) for name in columns(with_platform_ids, study)]
    )


def _cell(kind):
    if kind is None:
        return lambda value: None if value is None else str(value)
    return lambda value: None if value is None or value == "" else value


class _Chunks:
    """The sink ParquetWriter writes to: it keeps what was written until the generator takes it."""

    def __init__(self):
        self.parts, self.position, self.closed = [], 0, False

    def write(self, data):
        self.parts.append(bytes(data))
        self.position += len(data)
        return len(data)

    def tell(self):
        return self.position

    def flush(self):
        pass

    def close(self):
        self.closed = True

    def take(self):
        data, self.parts = b"".join(self.parts), []
        return data


def parquet_chunks(study, *, with_platform_ids=False, row_group=ROW_GROUP):
    """The table as Parquet bytes, one chunk per row group (and the footer last)."""
    schema = parquet_schema(study, with_platform_ids=with_platform_ids)
    types = protocols.of(study).export_types(study)
    cells = [_cell(types.get(name)) for name in schema.names]
    sink = _Chunks()
    writer = pq.ParquetWriter(sink, schema)
    if opening := sink.take():  # the magic bytes: the download starts before the first row group
        yield opening
    batch = [[] for _ in cells]

    def group():
        arrays = [pa.array(values, type=field.type) for values, field in zip(batch, schema, strict=True)]
        writer.write_table(pa.Table.from_arrays(arrays, schema=schema), row_group_size=row_group)
        for values in batch:
            values.clear()
        return sink.take()

    rows = 0
    for row in annotation_rows(study, with_platform_ids=with_platform_ids):
        for values, cell, value in zip(batch, cells, row, strict=True):
            values.append(cell(value))
        rows += 1
        if rows == row_group:
            yield group()
            rows = 0
    if rows:
        yield group()
    writer.close()
    yield sink.take()
