"""A model-assisted study's checked suggestions (suggestions.jsonl), kept on disk between checking
and writing.

Checking asks three things of every suggestion before anything is written: is this (document,
position) given already, and on which line; what does the suggestion a worker's decision or
pre-filled error names look like; which positions has a document. Held as a dict of every
suggestion with its texts, that grew with the study; here the suggestions wait in a private
temporary SQLite database (bundles/scratch.py) that answers those questions, and the write reads
them back a batch at a time, in the order they were added.
"""

import pickle

from .scratch import scratch_database

# Suggestions per batch of the write: their documents and segments are read in one query each,
# within the parameters one SQLite query takes.
BATCH = 500

SCHEMA = (
    "CREATE TABLE suggestion (number INTEGER PRIMARY KEY, document TEXT NOT NULL, position INTEGER NOT NULL,"
    " line INTEGER, item BLOB NOT NULL, UNIQUE (document, position))",
)


class CheckedSuggestions:
    """Checked suggestions by (document external id, position), each with what the protocol keeps
    of it (`item`, pickled) and its line.

    Supports len(), truth, `in` and get() of a (document, position) key, like the dict it replaces.
    The temporary database goes with the object: its connection closes, and SQLite removes the
    file, when the import lets go of the checked work.
    """

    def __init__(self):
        self._db = scratch_database(SCHEMA)
        self._count = 0

    def add(self, document, position, line, item):
        """Store `item` (checking asked first whether the key is taken: `line_of`)."""
        self._db.execute(
            "INSERT INTO suggestion (number, document, position, line, item) VALUES (?, ?, ?, ?, ?)",
            (self._count, document, position, line, pickle.dumps(item, protocol=pickle.HIGHEST_PROTOCOL)),
        )
        self._count += 1

    def line_of(self, document, position):
        """The line of the stored suggestion with this key, or None when there is none."""
        row = self._db.execute(
            "SELECT line FROM suggestion WHERE document = ? AND position = ?", (document, position)
        ).fetchone()
        return None if row is None else row[0]

    def __contains__(self, key):
        document, position = key
        return self.line_of(document, position) is not None

    def get(self, key, default=None):
        """The item stored under (document, position), or `default`."""
        row = self._db.execute(
            "SELECT item FROM suggestion WHERE document = ? AND position = ?", key
        ).fetchone()
        return default if row is None else _loads(row[0])

    def positions_of(self, document):
        """The positions of `document`'s suggestions, as a set."""
        rows = self._db.execute("SELECT position FROM suggestion WHERE document = ?", (document,))
        return {position for (position,) in rows}

    def __len__(self):
        return self._count

    def batches(self, size=None):
        """Lists of at most `size` items (BATCH), in the order they were added."""
        size = size or BATCH
        for begin in range(0, self._count, size):
            rows = self._db.execute(
                "SELECT item FROM suggestion WHERE number >= ? AND number < ? ORDER BY number",
                (begin, begin + size),
            )
            yield [_loads(item) for (item,) in rows]


class PositionsByDocument:
    """{document: the positions of its suggestions}, read from CheckedSuggestions on look-up
    (get(document, default)), for checks that ask whether a document has a suggestion."""

    def __init__(self, suggestions):
        self._suggestions = suggestions
        self._last = (None, None)  # a line's errors name one document: read its positions once

    def get(self, document, default=None):
        if self._last[0] != document:
            self._last = (document, self._suggestions.positions_of(document))
        positions = self._last[1]
        return positions if positions else default


def _loads(data):
    return pickle.loads(data)  # noqa: S301 - the import's own database, written above
