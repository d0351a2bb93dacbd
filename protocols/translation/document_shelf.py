"""A translation upload's segments kept on disk while the file is read, and given back one
document (one system's translation of one source document) at a time.

A document's rows may be anywhere in a CSV table, and every system's translation of a doc_id is
checked against the first one's sources: holding the rows in a dict until the last one was read
made the documents step's memory grow with the file. The reader puts each segment on a private
SQLite database in a temporary file (as interop/shelf.py does for other tools' exports), which
groups and orders them; what stays in memory is one document.
"""

import json
from dataclasses import dataclass, field

from bundles.scratch import scratch_database

from .keys import REFERENCES, SOURCES

SCHEMA = (
    # `position`: the order in which documents first appear; `line`: where, to name a problem.
    "CREATE TABLE translation (position INTEGER PRIMARY KEY, doc_id TEXT, system TEXT, line INTEGER,"
    " languages TEXT, UNIQUE (doc_id, system))",
    "CREATE INDEX translation_doc_id ON translation (doc_id, position)",
    # `place`: the segment's place in its document (seg_id, the row's line or the JSON index) as
    # text that sorts as the number (`_place`), so a seg_id beyond SQLite's 64-bit integers sorts too.
    "CREATE TABLE segment (translation INTEGER, place TEXT, line INTEGER, source TEXT, target TEXT,"
    " reference TEXT, PRIMARY KEY (translation, place)) WITHOUT ROWID",
)


@dataclass
class Translation:
    """One system's translation of one source document, as read: the line it starts on."""

    line: int
    doc_id: str
    system: str
    segments: list = field(default_factory=list)  # [(source, target, reference or "")]
    languages: dict = field(default_factory=dict)

    @property
    def external_id(self):
        return f"{self.doc_id}#{self.system}"

    def record(self):
        """The documents.jsonl record."""
        meta = {SOURCES: [source for source, _, _ in self.segments]}
        if any(reference for _, _, reference in self.segments):
            meta[REFERENCES] = [reference for _, _, reference in self.segments]
        meta.update(self.languages)
        return {"id": self.external_id, "input_id": self.doc_id, "system": self.system,
                "segments": [target for _, target, _ in self.segments], "meta": meta}  # fmt: skip


@dataclass(frozen=True)
class Shelved:
    """A document on the shelf: its position, its first line and the languages given so far."""

    position: int
    line: int
    languages: dict


class TranslationShelf:
    def __init__(self):
        self.db = scratch_database(SCHEMA)
        self.count = 0

    def find(self, doc_id, system):
        """The Shelved document (doc_id, system), or None."""
        row = self.db.execute(
            "SELECT position, line, languages FROM translation WHERE doc_id = ? AND system = ?",
            (doc_id, system),
        ).fetchone()
        return None if row is None else Shelved(row[0], row[1], json.loads(row[2]))

    def add(self, doc_id, system, line, languages=None):
        """A new document, first seen on `line`: its Shelved."""
        self.count += 1
        self.db.execute(
            "INSERT INTO translation VALUES (?, ?, ?, ?, ?)",
            (self.count, doc_id, system, line, json.dumps(languages or {})),
        )
        return Shelved(self.count, line, dict(languages or {}))

    def set_languages(self, shelved):
        self.db.execute(
            "UPDATE translation SET languages = ? WHERE position = ?",
            (json.dumps(shelved.languages), shelved.position),
        )

    def segment_line(self, shelved, number):
        """The line of the document's segment at place `number`, or None."""
        row = self.db.execute(
            "SELECT line FROM segment WHERE translation = ? AND place = ?", (shelved.position, _place(number))
        ).fetchone()
        return None if row is None else row[0]

    def add_segment(self, shelved, number, line, segment):
        """`segment` (source, target, reference) at place `number` (a whole number) of the document."""
        self.db.execute(
            "INSERT INTO segment VALUES (?, ?, ?, ?, ?, ?)",
            (shelved.position, _place(number), line, *segment),
        )

    def forget(self):
        """Drop every document: the file turned out not to be a table, and only that is said."""
        self.db.execute("DELETE FROM segment")
        self.db.execute("DELETE FROM translation")
        self.count = 0

    def translations(self):
        """Each document as a Translation, in the order of first appearance, its segments in their
        places; one document read at a time."""
        rows = self.db.execute(
            "SELECT position, doc_id, system, line, languages FROM translation ORDER BY position"
        )
        for position, doc_id, system, line, languages in rows:
            yield Translation(line, doc_id, system, self._segments(position), json.loads(languages))

    def first_of(self, translation):
        """The first Translation of `translation`'s doc_id (`translation` itself when it is)."""
        position, system, line = self.db.execute(
            "SELECT position, system, line FROM translation WHERE doc_id = ? ORDER BY position LIMIT 1",
            (translation.doc_id,),
        ).fetchone()
        if system == translation.system:
            return translation
        return Translation(line, translation.doc_id, system, self._segments(position))

    def _segments(self, position):
        rows = self.db.execute(
            "SELECT source, target, reference FROM segment WHERE translation = ? ORDER BY place", (position,)
        )
        return [tuple(row) for row in rows]

    def close(self):
        self.db.close()


def _place(number):
    """A whole number as text that sorts as the number: its count of digits, then its digits."""
    digits = str(number)
    return f"{len(digits):05d}{digits}"
