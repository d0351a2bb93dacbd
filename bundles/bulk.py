"""Rows of one model written in bulk: COPY on PostgreSQL, executemany on SQLite.

An import writes millions of spans and segments. The ORM's bulk_create builds a model instance
per row and an INSERT of every batch; here a row is a tuple, and the database reads the rows
as a stream. What the ORM would have set is set the same way: a field left out gets its default,
and auto_now / auto_now_add fields the time of the write (one time for the whole write, as one
bulk_create would give every row of a batch). No ids come back: who needs them (a decision
pointing at its span) reads them afterwards, in batches.
"""

import json
from contextlib import contextmanager
from contextvars import ContextVar

from django.db import connection
from django.db.models import JSONField
from django.utils import timezone

SQLITE_BATCH = 5000
_written = ContextVar("bulk_tables_written", default=None)  # the models insert_rows wrote, where asked


@contextmanager
def tables_written():
    """The set of models `insert_rows` writes inside the block (for `analyse`)."""
    models = set()
    token = _written.set(models)
    try:
        yield models
    finally:
        _written.reset(token)


def analyse(models):
    """ANALYZE the models' tables on PostgreSQL, after a bulk load: its planner reads the tables'
    statistics, which a load of a large study leaves stale until autovacuum comes by (never, where
    it is off); read by those statistics, a batch's lookup by its own keys became a scan of the whole
    table per batch (docs/benchmarks.md). ANALYZE samples a fixed number of rows (about 0.1 s a
    table of 200,000 here); inside the import's transaction, its statistics commit with the rows.
    A role that does not own a table gets a warning, not an error."""
    if connection.vendor != "postgresql":
        return
    quote = connection.ops.quote_name
    with connection.cursor() as cursor:
        for table in sorted({model._meta.db_table for model in models}):
            cursor.execute(f"ANALYZE {quote(table)}")


def insert_rows(model, columns, rows):
    """Insert `rows`, tuples of values for the fields named by `columns` (attnames: segment_id,
    not segment), into `model`'s table; returns how many were written. The primary key is the
    database's unless `columns` names it (ids from `reserved_ids`).

    Every other field must have a default, be nullable, be optional text (blank: "") or be set
    automatically: a field that would silently go unset is refused before anything is written.
    """
    fields = {field.attname: field for field in model._meta.concrete_fields}
    unknown = [name for name in columns if name not in fields]
    if unknown:
        raise ValueError(f"{model.__name__} has no field {', '.join(unknown)}")
    now = timezone.now()
    constant_columns, constants = [], []
    for name, field in fields.items():
        if name in columns or field.primary_key:  # a primary key not given comes from the database
            continue
        if getattr(field, "auto_now", False) or getattr(field, "auto_now_add", False):
            value = now
        elif field.has_default():
            value = field.get_default()
        elif field.null:
            value = None
        elif field.blank and field.empty_strings_allowed:  # optional text: "" as the ORM stores it
            value = ""
        else:
            raise ValueError(f"{model.__name__}.{name} is not given and has no default")
        constant_columns.append(name)
        constants.append(_stored(field, value))
    json_positions = [
        position for position, name in enumerate(columns) if isinstance(fields[name], JSONField)
    ]
    encoders = [_json_text(fields[columns[position]]) for position in json_positions]

    def stored_rows():
        for row in rows:
            if json_positions:
                row = list(row)
                for position, encode in zip(json_positions, encoders, strict=True):
                    row[position] = encode(row[position])
            yield (*row, *constants)

    names = [fields[name].column for name in (*columns, *constant_columns)]
    if (written := _written.get()) is not None:
        written.add(model)
    if connection.vendor == "postgresql":
        return _copy(model._meta.db_table, names, stored_rows())
    return _execute_many(model._meta.db_table, names, stored_rows())


def reserved_ids(model, count):
    """`count` new primary keys of `model`'s table, taken from its sequence (PostgreSQL): rows
    written with them by COPY need not read their ids back, and no other insert can take them."""
    table, column = model._meta.db_table, model._meta.pk.column
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT nextval(pg_get_serial_sequence(%s, %s)) FROM generate_series(1, %s)",
            [connection.ops.quote_name(table), column, count],
        )
        return [pk for (pk,) in cursor.fetchall()]


def _json_text(field):
    """A JSON field's value as the text both databases read into their JSON column."""
    encoder = field.encoder

    def encode(value):
        if value is None and field.null:
            return None
        if value == {} and encoder is None:  # most spans' answers: not worth a call to the encoder
            return "{}"
        return json.dumps(value, cls=encoder)

    return encode


def _stored(field, value):
    if isinstance(field, JSONField):
        return _json_text(field)(value)
    return field.get_db_prep_save(value, connection)


def _copy(table, names, rows):
    quote = connection.ops.quote_name
    statement = f"COPY {quote(table)} ({', '.join(quote(name) for name in names)}) FROM STDIN"
    written = 0
    with connection.cursor() as cursor, cursor.cursor.copy(statement) as copy:
        for row in rows:
            copy.write_row(row)
            written += 1
    return written


def _execute_many(table, names, rows):
    quote = connection.ops.quote_name
    columns = ", ".join(quote(name) for name in names)
    places = ", ".join(["%s"] * len(names))
    statement = f"INSERT INTO {quote(table)} ({columns}) VALUES ({places})"  # noqa: S608 - names from the model
    written = 0
    with connection.cursor() as cursor:
        batch = []
        for row in rows:
            batch.append(row)
            if len(batch) == SQLITE_BATCH:
                cursor.executemany(statement, batch)
                written, batch = written + len(batch), []
        if batch:
            cursor.executemany(statement, batch)
            written += len(batch)
    return written
