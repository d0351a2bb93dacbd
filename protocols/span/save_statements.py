"""The span page's save as two SQL statements between BEGIN and COMMIT.

1. `assignment_open_for_save`: one UPDATE of the assignment, found by its
   token and only while it is open, RETURNING what the save's checks need.
   The UPDATE locks the row (a double click or two tabs wait for each other),
   records the activity as `touch` does, and its subqueries read, by unique
   indexes, the study's category of the key sent and the segments named. They
   are read in this statement rather than cached per process: categories stay
   editable in admin, and a process cannot hear of another's edit
   (docs/decisions.md). A last subquery says whether an annotation with the
   client_id sent is stored already (a retry), so a retry reads it back instead
   of inserting.
2. `insert_unless_stored`: INSERT ... ON CONFLICT (assignment, client_id) DO
   NOTHING RETURNING id, so a retried save inserts nothing.

Plain SQL that PostgreSQL and SQLite (3.35 or later, for RETURNING) run alike.
Only table and column names from the models' _meta are put into the text
(quoted); every value is a parameter, hence the S608 exemptions.
"""

import json
from dataclasses import dataclass
from functools import cache

from django.db import connection
from django.utils import timezone

from annotations.models import OPEN_STATUSES, Assignment
from studies.models import Category, Segment, Study
from studies.spans import is_whole_number

from .models import ErrorAnnotation

# A PositiveIntegerField holds no more; a larger index names no segment (and must not reach PostgreSQL).
MAX_INDEX = 2**31 - 1


@dataclass(frozen=True)
class OpenedForSave:
    """The locked, open assignment of a save, and what its checks read."""

    assignment_id: int
    furthest_segment: int
    category: Category | None
    segments: dict  # index -> Segment (id, index, text) of the segments named that exist
    # The id of the annotation stored under the client_id sent, as the UPDATE's snapshot saw it. On
    # PostgreSQL that snapshot may predate the lock it waited for, so this is a hint, read again
    # after the lock: a miss falls to the INSERT's conflict, a stale hit to a read that finds none.
    stored_id: int | None = None


@cache
def _open_statement(vendor):
    # The text depends only on the backend (its quoting): built once per process and backend.
    quote = connection.ops.quote_name

    def column(model, name):
        return quote(model._meta.get_field(name).column)

    assignment = quote(Assignment._meta.db_table)

    def category(name):
        return (
            f"(SELECT c.{column(Category, name)} FROM {quote(Category._meta.db_table)} c"  # noqa: S608
            f" JOIN {quote(Study._meta.db_table)} s ON c.{column(Category, 'taxonomy')} = s.{column(Study, 'taxonomy')}"
            f" WHERE s.{column(Study, 'id')} = {assignment}.{column(Assignment, 'study')}"
            f" AND c.{column(Category, 'key')} = %s)"
        )

    def segment(name):
        return (
            f"(SELECT g.{column(Segment, name)} FROM {quote(Segment._meta.db_table)} g"  # noqa: S608
            f" WHERE g.{column(Segment, 'document')} = {assignment}.{column(Assignment, 'document')}"
            f" AND g.{column(Segment, 'index')} = %s)"
        )

    stored = (
        f"(SELECT a.{column(ErrorAnnotation, 'id')} FROM {quote(ErrorAnnotation._meta.db_table)} a"  # noqa: S608
        f" WHERE a.{column(ErrorAnnotation, 'assignment')} = {assignment}.{column(Assignment, 'id')}"
        f" AND a.{column(ErrorAnnotation, 'client_id')} = %s)"
    )
    last_activity, started, status = (
        column(Assignment, name) for name in ("last_activity_at", "started_at", "status")
    )
    available_from = column(Assignment, "available_from")
    returning = [
        column(Assignment, "id"), column(Assignment, "current_segment"), column(Assignment, "segments_visited"),
        category("id"), category("kind"), category("label"),
        segment("id"), segment("text"), segment("id"), segment("text"), stored,
    ]  # fmt: skip
    return (
        f"UPDATE {assignment} SET {last_activity} = %s, {started} = COALESCE({started}, %s), {status} = %s"  # noqa: S608
        f" WHERE {column(Assignment, 'token')} = %s AND {status} IN (%s, %s)"
        f" AND ({available_from} IS NULL OR {available_from} <= %s)"
        f" RETURNING {', '.join(returning)}"
    )


def _index_param(index):
    return index if is_whole_number(index) and 0 <= index <= MAX_INDEX else None


def open_params(now, token, category_key, first, second, client_id):
    """The opening UPDATE's parameters, in the order of its text (bench/bare_saves.py sends them too)."""
    return [
        now, now, Assignment.Status.IN_PROGRESS.value,
        token, *(status.value for status in OPEN_STATUSES), now,
        *[category_key if isinstance(category_key, str) else None] * 3,
        *[_index_param(first)] * 2, *[_index_param(second)] * 2, client_id,
    ]  # fmt: skip


def assignment_open_for_save(*, token, category_key, segment_indexes, client_id):
    """Lock and touch the open assignment of `token`; None when no open assignment has it.

    `segment_indexes` holds one or two indexes as sent (a paired span's second);
    what is not a whole number, or names no segment of the document, is left out.
    Call it inside a transaction: the row stays locked until the end.
    """
    now = connection.ops.adapt_datetimefield_value(timezone.now())
    first, second = (*segment_indexes, None)[:2]
    with connection.cursor() as cursor:
        cursor.execute(
            _open_statement(connection.vendor),
            open_params(now, token, category_key, first, second, client_id),
        )
        row = cursor.fetchone()
    if row is None:
        return None
    assignment_id, current, visited, category_id, kind, label, *segment_columns, stored_id = row
    if isinstance(visited, str):  # JSON arrives as text from both backends' drivers under Django
        visited = json.loads(visited)
    category = None
    if category_id is not None:
        category = Category(id=category_id, key=category_key, kind=kind, label=label)
    segments = {}
    pairs = (segment_columns[0:2], segment_columns[2:4])  # (id, text) of the first and second segment
    for index, (segment_id, text) in zip((first, second), pairs, strict=True):
        if segment_id is not None:
            segments[index] = Segment(id=segment_id, index=index, text=text)
    return OpenedForSave(assignment_id, max([current, *(visited or [])]), category, segments, stored_id)


_INSERTED = [field for field in ErrorAnnotation._meta.concrete_fields if not field.primary_key]


@cache
def _insert_statement(vendor):
    meta = ErrorAnnotation._meta
    quote = connection.ops.quote_name
    conflict = ", ".join(quote(meta.get_field(name).column) for name in ("assignment", "client_id"))
    return (
        f"INSERT INTO {quote(meta.db_table)} ({', '.join(quote(field.column) for field in _INSERTED)})"  # noqa: S608
        f" VALUES ({', '.join(['%s'] * len(_INSERTED))})"
        f" ON CONFLICT ({conflict}) DO NOTHING RETURNING {quote(meta.pk.column)}"
    )


def insert_unless_stored(annotation):
    """Insert `annotation` unless its assignment holds its client_id already.

    Returns True when it was inserted (and sets its pk), False when a save with
    that client_id is stored (a retry): the unique constraint decides, in the
    same statement, so no check can race with the insert.
    """
    values = [field.get_db_prep_save(field.pre_save(annotation, True), connection) for field in _INSERTED]
    with connection.cursor() as cursor:
        cursor.execute(_insert_statement(connection.vendor), values)
        row = cursor.fetchone()
    if row is None:
        return False
    annotation.pk = row[0]
    annotation._state.adding = False
    annotation._state.db = connection.alias
    return True


@cache
def _delete_statement(vendor):
    meta = ErrorAnnotation._meta
    quote = connection.ops.quote_name
    assignment, client_id = (quote(meta.get_field(name).column) for name in ("assignment", "client_id"))
    return f"DELETE FROM {quote(meta.db_table)} WHERE {assignment} = %s AND {client_id} = %s"  # noqa: S608


def delete_by_client_id(assignment_id, client_id):
    """Delete the assignment's annotation `client_id`, if there is one, in one statement.

    Django's delete() would first read the annotation to cascade to a suggestion
    decision; the remove deletes that decision itself, in the suggestion arm only.
    """
    with connection.cursor() as cursor:
        cursor.execute(_delete_statement(connection.vendor), [assignment_id, client_id])
