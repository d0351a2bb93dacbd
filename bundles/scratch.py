"""A scratch database for a reader that must gather a file's rows before it can give them back in
another order (other tools' annotations, a translation table's rows by document), without
holding them in memory."""

import sqlite3


def scratch_database(schema):
    """A private SQLite database in a temporary file, removed when closed, with the tables of
    `schema` (CREATE statements) and one transaction open. Its pages stay in SQLite's small cache
    (2 MB by default) and go to the file beyond that; no journal, since nothing outlives it."""
    db = sqlite3.connect("", isolation_level=None)
    db.execute("PRAGMA journal_mode=OFF")
    for statement in schema:
        db.execute(statement)
    db.execute("BEGIN")
    return db
