"""Many rows of one model inserted at once, without a model instance each: COPY on PostgreSQL,
one executemany elsewhere. An MQM campaign has 300,000 segments and about as many errors;
bulk_create spends most of an import's time building and compiling an instance per row.

The values are given as the database takes them (rows.json for a JSONField, rows.moment for a
DateTimeField); the caller asks for the rows' ids afterwards where it needs them.
"""

import json

from django.db import connection
from django.utils import timezone


def json_value(value):
    return json.dumps(value, ensure_ascii=False)


def moment():
    """Now, as a DateTimeField column takes it on this database."""
    return connection.ops.adapt_datetimefield_value(timezone.now())


def insert_rows(model, fields, rows):
    """Insert `rows` (tuples of the database values of `fields`, names of model fields) into the
    model's table."""
    quote = connection.ops.quote_name
    table = quote(model._meta.db_table)
    columns = ", ".join(quote(model._meta.get_field(name).column) for name in fields)
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            with cursor.cursor.copy(f"COPY {table} ({columns}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)
        else:
            placeholders = ", ".join(["%s"] * len(fields))
            cursor.executemany(f"INSERT INTO {table} ({columns}) VALUES ({placeholders})", rows)  # noqa: S608
