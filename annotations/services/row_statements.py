"""A task write's second statement: the one row it stores, in one INSERT that needs no read first.

After the opening UPDATE (opening.py) has locked the assignment, a write stores
its row with one of these:

- `insert_unless_stored`: INSERT ... ON CONFLICT (assignment, client_id) DO
  NOTHING, for adds that carry a client-made id: a retried add inserts nothing,
  and the unique constraint decides in the same statement, so no check races
  with the insert. An optional condition (a cap on errors per segment) is
  checked in the same statement, after the lock, so it sees every committed add.
- `upsert`: INSERT ... ON CONFLICT (its unique fields) DO UPDATE, for the
  answers a worker may change (a rating, a choice, a score): sending the same
  answer again changes nothing, a new one replaces it, in one statement where
  Django's update_or_create sends a SELECT ... FOR UPDATE and an UPDATE, or a
  SELECT, a SAVEPOINT, an INSERT and a RELEASE.

Both may RETURN extra scalar subqueries, which also run after the lock (a
warning computed from the worker's own rows). An upsert may also take one
foreign key from a row it finds by other columns (`FromRow`: the segment of a
document by its index), so a write that names a row by what the page shows
needs no read first; no such row, nothing stored. Plain SQL that PostgreSQL and
SQLite (3.35 or later) run alike; only quoted names from the models' _meta go
into the text, every value is a parameter (hence the S608 exemptions).
"""

from dataclasses import dataclass
from functools import cache

from django.db import connection

from .opening import quoted


@dataclass(frozen=True)
class FromRow:
    """The stored row's foreign key `field` is the pk of the row of `model` whose columns `match`
    ({field name: value}), found by the INSERT itself."""

    field: str
    model: type
    match: dict

    def shape(self):
        """What the statement's text depends on (the values are parameters)."""
        return (self.field, self.model, tuple(self.match))


def _inserted(model):
    return [field for field in model._meta.concrete_fields if not field.primary_key]


def _values(instance):
    return [
        field.get_db_prep_save(field.pre_save(instance, True), connection)
        for field in _inserted(type(instance))
    ]


def _columns(model, names):
    return ", ".join(quoted(model._meta.get_field(name).column) for name in names)


@cache
def _insert_statement(vendor, model, unique, only_if, returning):
    meta = model._meta
    fields = _inserted(model)
    placeholders = ", ".join(["%s"] * len(fields))
    # INSERT ... SELECT, so that the condition is in the statement; SQLite needs the WHERE there
    # anyway to read ON CONFLICT as the upsert clause.
    return (
        f"INSERT INTO {quoted(meta.db_table)} ({', '.join(quoted(field.column) for field in fields)})"  # noqa: S608
        f" SELECT {placeholders} WHERE {only_if or '1 = 1'}"
        f" ON CONFLICT ({_columns(model, unique)}) DO NOTHING"
        f" RETURNING {', '.join([quoted(meta.pk.column), *returning])}"
    )


@cache
def _upsert_statement(vendor, model, unique, update, only_if, returning, from_row):
    meta = model._meta
    fields = _inserted(model)
    changed = ", ".join(
        f"{quoted(meta.get_field(name).column)} = excluded.{quoted(meta.get_field(name).column)}"
        for name in update
    )
    if from_row is None:
        source, found = f"VALUES ({', '.join(['%s'] * len(fields))})", []
    else:
        # INSERT ... SELECT from the row found; its WHERE also lets SQLite read ON CONFLICT as
        # the upsert clause.
        name, found_model, match = from_row
        taken = meta.get_field(name).column
        values = ", ".join(
            f"f.{quoted(found_model._meta.pk.column)}" if field.column == taken else "%s" for field in fields
        )
        where = " AND ".join(f"f.{_columns(found_model, [column])} = %s" for column in match)
        source = f"SELECT {values} FROM {quoted(found_model._meta.db_table)} f WHERE {where}"  # noqa: S608
        found = [quoted(taken)]
    return (
        f"INSERT INTO {quoted(meta.db_table)} ({', '.join(quoted(field.column) for field in fields)})"  # noqa: S608
        f" {source}"
        f" ON CONFLICT ({_columns(model, unique)}) DO UPDATE SET {changed}"
        + (f" WHERE {only_if}" if only_if else "")
        + f" RETURNING {', '.join([quoted(meta.pk.column), *found, *returning])}"
    )


def _stored(instance, row, from_row=None):
    instance.pk = row[0]
    instance._state.adding = False
    instance._state.db = connection.alias
    if from_row is None:
        return tuple(row[1:])
    setattr(instance, instance._meta.get_field(from_row.field).attname, row[1])
    return tuple(row[2:])


def insert_unless_stored(
    instance, *, unique=("assignment", "client_id"), only_if="", params=(), returning=()
):
    """Insert `instance` unless a row with its `unique` fields is stored, and only if the SQL
    condition `only_if` (with `params`) holds. Returns the `returning` values (the instance has
    its pk) or None when nothing was inserted: a retry, or the condition failed."""
    statement = _insert_statement(connection.vendor, type(instance), unique, only_if, tuple(returning))
    with connection.cursor() as cursor:
        cursor.execute(statement, [*_values(instance), *params])
        row = cursor.fetchone()
    return None if row is None else _stored(instance, row)


def upsert(
    instance, *, unique, update, returning=(), params=(), only_if="", only_if_params=(), from_row=None
):
    """Insert `instance`, or replace the `update` fields of the row with its `unique` fields.

    Returns the `returning` values (SQL expressions, with `params`) and sets the instance's pk.
    A field set on insert only (created_at) keeps its first value. With `only_if` (SQL naming the
    stored row by its table, with `only_if_params`) a stored row is replaced only if it holds;
    when it does not, nothing changes and the answer is None. With `from_row` (a FromRow) its
    field is set from the row found, and when no row matches nothing is stored and the answer is
    None.
    """
    statement = _upsert_statement(
        connection.vendor, type(instance), tuple(unique), tuple(update), only_if, tuple(returning),
        None if from_row is None else from_row.shape(),
    )  # fmt: skip
    values = _values(instance)
    if from_row is not None:
        taken = instance._meta.get_field(from_row.field)
        values = [
            value for field, value in zip(_inserted(type(instance)), values, strict=True) if field != taken
        ]
        values += list(from_row.match.values())
    with connection.cursor() as cursor:
        cursor.execute(statement, [*values, *only_if_params, *params])
        row = cursor.fetchone()
    return None if row is None else _stored(instance, row, from_row)
