"""Cutting a long stream of rows into lists of a fixed size, for the paths that read or write a
whole study a batch at a time (exports, bundles, other tools' formats). Python 3.12's
itertools.batched does this; the platform runs on 3.11. by_index() keeps the reads of such a
batch to index lookups on PostgreSQL."""

from contextlib import contextmanager

from django.db import connection, transaction


def batched(items, size):
    """Lists of `size` consecutive items of `items` (the last may be shorter), read lazily: only
    one list is held at a time."""
    batch = []
    for item in items:
        batch.append(item)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


@contextmanager
def by_index():
    """A batch's reads, each keyed by the batch's own rows (primary keys, foreign keys), done as
    index lookups on PostgreSQL.

    PostgreSQL plans each statement alone: for a key list of a few thousand rows it may price one
    scan of the whole table below the index lookups (statistics not yet gathered after an import,
    or rows stored together that it takes for scattered), and a path that sends a statement per
    batch then scans the whole table once per batch, a cost that grows with the square of the
    study. Turning sequential scans off for the batch's transaction leaves the planner every
    other choice; the setting is put back as it was, for a caller's own transaction.
    (docs/decisions.md, "The MQM TSV export reads each batch by index".)"""
    if connection.vendor != "postgresql":
        yield
        return
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SELECT current_setting('enable_seqscan')")
        (before,) = cursor.fetchone()
        cursor.execute("SELECT set_config('enable_seqscan', 'off', true)")
        yield
        # Not on an error: the rollback puts the setting back by itself.
        cursor.execute("SELECT set_config('enable_seqscan', %s, true)", [before])
