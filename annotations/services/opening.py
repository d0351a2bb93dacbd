"""A task write's first statement: one UPDATE that finds, checks, locks and touches the assignment.

Every write of the task API (a span removed, a rating, a move...) starts with
`assignment_opened(token=...)`: an UPDATE of the assignment found by its token,
only while it is open (not submitted, not released, not a retest before its
date), that records the activity as `task.touch` does and RETURNS the columns
the write's checks need, with the study's protocol and config, and any scalar
subqueries the write adds (a category, a segment, a document of the block).
The UPDATE locks the row until COMMIT, so a double click, two tabs or a
concurrent submit wait for each other, as a SELECT ... FOR UPDATE would, but
without the token lookup, the SELECT ... FOR UPDATE and the closing UPDATE of
`touch`: a one-row write is BEGIN, this UPDATE, its INSERT/UPSERT/DELETE,
COMMIT.

On PostgreSQL the subqueries read the snapshot taken when the UPDATE started,
which may be older than the row lock it waited for; so they read only what
does not change under a worker's hands (the study, its taxonomy, the
document's segments and items). What the worker's own writes change (their
answers, scores, decisions) is read by the write's next statement, which runs
after the lock and sees every committed write. The one exception is a hint that
only picks a path, checked again after the lock: whether a retried add or
decision is stored already (protocols/span/save_statements.py).

Plain SQL that PostgreSQL and SQLite (3.35 or later, for RETURNING) run alike, but for the walk
through a page's JSON items (`page_document`), which each database does its own way.
Only table and column names from the models' _meta are put into the text
(quoted); every value is a parameter, hence the S608 exemptions.
"""

from dataclasses import dataclass
from datetime import UTC
from functools import cache

from django.db import connection
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from annotations.models import OPEN_STATUSES, Assignment
from studies.models import Category, Document, Segment, Study
from studies.spans import is_whole_number

from .refusals import TaskClosed, TaskNotFound, closed_reason

# The assignment's columns every write may need, in model order (Model.from_db wants that order);
# a column not read here is loaded (one more query) if a write touches it.
_ASSIGNMENT_FIELDS = [
    field
    for field in Assignment._meta.concrete_fields
    if field.name in {
        "id", "study", "document", "kind", "block", "status", "current_segment", "segments_visited",
        "started_at", "last_activity_at", "active_seconds", "activity_credited_to", "items", "arm",
    }
]  # fmt: skip
_STUDY_FIELDS = [field for field in Study._meta.concrete_fields if field.name in {"id", "protocol", "config"}]


def quoted(name):
    return connection.ops.quote_name(name)


def table(model):
    """The quoted table of `model`, for the subqueries a write adds."""
    return quoted(model._meta.db_table)


def column(model, name):
    """The quoted column of field `name` of `model`."""
    return quoted(model._meta.get_field(name).column)


def assignment_column(name):
    """A column of the assignment row being opened, for a correlated subquery."""
    return f"{table(Assignment)}.{column(Assignment, name)}"


def document_segment(name, document=None):
    """Read: column `name` of the segment whose index is the parameter, of the assignment's document
    or of `document` (SQL, e.g. `page_document()`); NULL when there is none, or on a page of several
    documents without `document`."""
    return (
        f"(SELECT g.{column(Segment, name)} FROM {table(Segment)} g"  # noqa: S608
        f" WHERE g.{column(Segment, 'document')} = {document or assignment_column('document')}"
        f" AND g.{column(Segment, 'index')} = %s)"
    )


def document_column(name, document=None):
    """Read: column `name` of the assignment's document, or of `document` (SQL)."""
    return (
        f"(SELECT d.{column(Document, name)} FROM {table(Document)} d"  # noqa: S608
        f" WHERE d.{column(Document, 'id')} = {document or assignment_column('document')})"
    )


def page_document():
    """SQL: the assignment's document, or on a page of several documents (its `items`, each
    {"position": place, "document": pk}) the one at the place that is the parameter.

    The one read whose text differs between the databases: each walks the JSON array its own way."""
    items, own = assignment_column("items"), assignment_column("document")
    if connection.vendor == "postgresql":
        placed = (
            f"SELECT (e.value ->> 'document')::bigint FROM jsonb_array_elements("  # noqa: S608
            f"CASE WHEN jsonb_typeof({items}) = 'array' THEN {items} END) e"
            f" WHERE e.value -> 'position' = to_jsonb(%s::integer) LIMIT 1"
        )
    else:
        placed = (
            f"SELECT json_extract(e.value, '$.document') FROM json_each({items}) e"  # noqa: S608
            f" WHERE json_type(e.value) = 'object' AND json_extract(e.value, '$.position') = %s LIMIT 1"
        )
    return f"COALESCE({own}, ({placed}))"


def study_category(name):
    """Read: column `name` of the category of the study's taxonomy whose key is the parameter."""
    return (
        f"(SELECT c.{column(Category, name)} FROM {table(Category)} c"  # noqa: S608
        f" JOIN {table(Study)} s ON c.{column(Category, 'taxonomy')} = s.{column(Study, 'taxonomy')}"
        f" WHERE s.{column(Study, 'id')} = {assignment_column('study')} AND c.{column(Category, 'key')} = %s)"
    )


# A PositiveIntegerField holds no more; a larger index names no segment (and must not reach PostgreSQL).
MAX_INDEX = 2**31 - 1


def index_param(value):
    """`value` as a segment index parameter: None unless a whole number a segment may have."""
    return value if is_whole_number(value) and 0 <= value <= MAX_INDEX else None


@cache
def _statement(vendor, reads):
    # The text depends on the backend (its quoting) and the write's reads: built once per process.
    assignment = table(Assignment)
    last_activity, started, status = (
        column(Assignment, name) for name in ("last_activity_at", "started_at", "status")
    )
    available_from = column(Assignment, "available_from")
    study_read = (
        f"(SELECT s.{{}} FROM {table(Study)} s WHERE s.{column(Study, 'id')} = {assignment_column('study')})"  # noqa: S608
    )
    returning = [
        *(quoted(field.column) for field in _ASSIGNMENT_FIELDS),
        *(study_read.format(quoted(field.column)) for field in _STUDY_FIELDS if not field.primary_key),
        *reads,
    ]
    return (
        f"UPDATE {assignment} SET {last_activity} = %s, {started} = COALESCE({started}, %s), {status} = %s"  # noqa: S608
        f" WHERE {column(Assignment, 'token')} = %s AND {status} IN (%s, %s)"
        f" AND ({available_from} IS NULL OR {available_from} <= %s)"
        f" RETURNING {', '.join(returning)}"
    )


def _python_value(field, value):
    """What the ORM would make of a raw column value (JSON arrives as text, SQLite's times as text)."""
    if value is None:
        return None
    if field.get_internal_type() == "JSONField":
        return field.from_db_value(value, None, connection)
    if field.get_internal_type() == "DateTimeField" and not hasattr(value, "tzinfo"):
        value = parse_datetime(value)
    if field.get_internal_type() == "DateTimeField" and timezone.is_naive(value):
        value = timezone.make_aware(value, UTC)
    return value


@dataclass(frozen=True)
class Opened:
    """The locked, touched assignment of a write (its study attached), and the write's own reads."""

    assignment: Assignment
    reads: tuple


def assignment_opened(*, token, reads=(), params=(), now=None):
    """Lock and touch the open assignment of `token`; None when no open assignment has it.

    `reads` are scalar subqueries (SQL text, see `column` and `assignment_column`)
    whose values come back in `Opened.reads`; `params` are their parameters.
    The assignment comes back as a model instance with its study (protocol,
    config) attached, built from the row without a query. Call it inside a
    transaction: the row stays locked until the end. `now` is the moment recorded
    as the activity (default: the clock's).
    """
    now = connection.ops.adapt_datetimefield_value(now or timezone.now())
    statement = _statement(connection.vendor, tuple(reads))
    with connection.cursor() as cursor:
        cursor.execute(
            statement,
            [
                now, now, Assignment.Status.IN_PROGRESS.value,
                token, *(status.value for status in OPEN_STATUSES), now, *params,
            ],
        )  # fmt: skip
        row = cursor.fetchone()
    if row is None:
        return None
    width = len(_ASSIGNMENT_FIELDS)
    values = [_python_value(field, value) for field, value in zip(_ASSIGNMENT_FIELDS, row, strict=False)]
    assignment = Assignment.from_db(connection.alias, [field.attname for field in _ASSIGNMENT_FIELDS], values)
    study_values = [assignment.study_id] + [
        _python_value(field, value) for field, value in zip(_STUDY_FIELDS[1:], row[width:], strict=False)
    ]
    assignment.study = Study.from_db(
        connection.alias, [field.attname for field in _STUDY_FIELDS], study_values
    )
    return Opened(assignment, tuple(row[width + len(_STUDY_FIELDS) - 1 :]))


def assignment_opened_or_refused(*, token, reads=(), params=(), now=None):
    """`assignment_opened`, or why not: TaskNotFound or TaskClosed (with the 409's reason).

    Only a refusal pays for a second read."""
    return opened_or_refused(
        token, lambda: assignment_opened(token=token, reads=reads, params=params, now=now)
    )


def opened_or_refused(token, open_once):
    """What `open_once()` opens for `token` (None: it found no open assignment), or why not:
    TaskNotFound or TaskClosed (with the 409's reason). Only a refusal pays for a second read."""
    if "\x00" in token:  # no token holds NUL, and PostgreSQL refuses to compare text with it
        raise TaskNotFound(token)
    for _attempt in range(2):
        opened = open_once()
        if opened is not None:
            return opened
        assignment = Assignment.objects.for_token(token).only("status", "available_from").first()
        if assignment is None:
            raise TaskNotFound(token)
        if (reason := closed_reason(assignment)) is not None:
            raise TaskClosed(reason)
        # Reopened between the two statements (by a researcher): open it again.
    raise TaskClosed("This assignment is changing right now; save again in a moment.")
