"""An import's foreign keys checked once per referenced row instead of once per written row.

PostgreSQL checks every foreign key of every inserted row with a trigger: a look-up of the
referenced row, locked FOR KEY SHARE (deferred here, so at the commit). A bundle import of 2.7M
spans makes 8.1M such look-ups: 31% of the database's CPU for that import, 59% at 270,000 spans
(docs/benchmarks.md), although nearly every row they look up was made by the import itself.

Inside `references_checked_here`, where the database role may set it, the COPY runs with
`session_replication_role = replica`, under which PostgreSQL fires no foreign-key trigger. It is
set for this transaction only (SET LOCAL) and put back when the block ends: other sessions,
other studies and the rest of this transaction are checked as ever. What the triggers guarded
is guaranteed another way:

- rows this transaction made itself (the new study's documents, segments and assignments) are
  invisible to every other transaction until the commit, so none can delete them meanwhile;
- rows made before (the taxonomy's categories, perhaps shared with other studies) are each
  locked FOR KEY SHARE once, as the triggers would have locked them once per span, and counted:
  a missing one fails the import (its transaction rolls back) before the rows are sent.

The caller vouches for the first kind and names the second. A role that may not set the
parameter (it needs superuser or `GRANT SET ON PARAMETER session_replication_role`), and
SQLite, get the row-by-row checks. docs/decisions.md, "Imports: foreign keys checked once".
"""

from contextlib import contextmanager

from django.db import IntegrityError, connection
from psycopg.pq import TransactionStatus


class MissingReference(IntegrityError):
    """A row an import refers to is gone (deleted by someone else while the import ran): what the
    foreign-key check would have raised at the commit."""


def can_skip_row_checks():
    """Whether this connection's role may switch PostgreSQL's foreign-key triggers off for itself."""
    if connection.vendor != "postgresql":
        return False
    with connection.cursor() as cursor:
        if connection.pg_version >= 150000:
            cursor.execute("SELECT has_parameter_privilege('session_replication_role', 'SET')")
        else:
            cursor.execute("SELECT current_setting('is_superuser') = 'on'")
        return cursor.fetchone()[0]


@contextmanager
def references_checked_here(existing=()):
    """Within: rows written on this connection skip PostgreSQL's row-by-row foreign-key checks,
    where the role may; `existing` is (model, ids) of every row made before this transaction
    that the rows refer to, locked and counted here. Must run inside a transaction."""
    if not connection.in_atomic_block:
        raise RuntimeError("references_checked_here needs a transaction: its setting lasts until the commit")
    for model, ids in existing:
        _lock_existing(model, set(ids))
    if not can_skip_row_checks():
        yield
        return
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL session_replication_role = replica")
    try:
        yield
    finally:
        # After a failed statement the transaction accepts none until it rolls back, and the
        # rollback undoes the setting: a SET then would only hide the error that failed it.
        if connection.connection.info.transaction_status != TransactionStatus.INERROR:
            with connection.cursor() as cursor:
                cursor.execute("SET LOCAL session_replication_role = origin")


def _lock_existing(model, ids):
    """Lock `ids` of `model` against deletion and key changes until the commit, as the
    foreign-key triggers would; raise MissingReference when any is gone."""
    if not ids:
        return
    if connection.vendor == "postgresql":
        # FOR KEY SHARE, the triggers' own lock, which Django's select_for_update does not offer:
        # it keeps the rows from deletion without blocking other studies' writes that check them.
        table = connection.ops.quote_name(model._meta.db_table)
        key = connection.ops.quote_name(model._meta.pk.column)
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT {key} FROM {table} WHERE {key} = ANY(%s) FOR KEY SHARE", [sorted(ids)])  # noqa: S608 - names from the model
            found = {row[0] for row in cursor.fetchall()}
    else:
        found = set(model._default_manager.filter(pk__in=ids).values_list("pk", flat=True))
    missing = ids - found
    if missing:
        raise MissingReference(f"{model._meta.verbose_name} {sorted(missing)[0]} no longer exists")
