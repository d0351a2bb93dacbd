"""The annotation table as Parquet: typed columns, written a row group at a time so memory
stays flat, and handed out as bytes while it is written (a streamed download or a job's file).

The columns and values are the CSV's (exports.rows.annotation_rows): the protocol says which
columns are ints, floats or bools (Protocol.export_types); every other column is text. An
empty cell of a typed column is a null; text is as stored, with no formula guard (Parquet
is not opened by spreadsheets as text, and JSON Lines keeps raw text too).

The rows come as Arrow record batches (exports/arrow.py): on PostgreSQL from the protocol's
COPY statements when it has them (Protocol.export_arrow_batches, the same values), otherwise
from the protocol's rows, a chunk at a time.
"""

import pyarrow as pa
import pyarrow.parquet as pq
from django.db import connection

from studies import protocols

from .arrow import row_batches
from .rows import annotation_rows, columns

# Rows per row group: few enough groups for a small footer, small enough to keep memory flat.
ROW_GROUP = 65_536
ARROW_TYPES = {"int": pa.int64(), "float": pa.float64(), "bool": pa.bool_()}


def parquet_schema(study, *, with_platform_ids=False):
    types = protocols.of(study).export_types(study)
    return pa.schema(
        [(name, ARROW_TYPES.get(types.get(name), pa.string())) for name in columns(with_platform_ids, study)]
    )


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


def record_batches(study, schema, *, with_platform_ids=False):
    """The table's rows as record batches of `schema`: the protocol's bulk path where it has one."""
    batches = None
    if connection.vendor == "postgresql":
        batches = protocols.of(study).export_arrow_batches(
            study, schema=schema, with_platform_ids=with_platform_ids
        )
    if batches is None:
        batches = row_batches(annotation_rows(study, with_platform_ids=with_platform_ids), schema)
    return batches


def parquet_chunks(study, *, with_platform_ids=False, row_group=ROW_GROUP):
    """The table as Parquet bytes, one chunk per row group or few (and the footer last).

    Every row group but the last holds exactly `row_group` rows, whatever the batches' sizes.
    """
    schema = parquet_schema(study, with_platform_ids=with_platform_ids)
    sink = _Chunks()
    writer = pq.ParquetWriter(sink, schema)
    if opening := sink.take():  # the magic bytes: the download starts before the first row group
        yield opening
    pending, held = [], 0
    for batch in record_batches(study, schema, with_platform_ids=with_platform_ids):
        pending.append(batch)
        held += batch.num_rows
        if held >= row_group:
            table = pa.Table.from_batches(pending, schema=schema)
            whole = held - held % row_group
            writer.write_table(table.slice(0, whole), row_group_size=row_group)
            pending, held = table.slice(whole).to_batches(), held - whole
            yield sink.take()
    if held:
        writer.write_table(pa.Table.from_batches(pending, schema=schema), row_group_size=row_group)
    writer.close()
    yield sink.take()
