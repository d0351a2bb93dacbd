"""The documents checking accepted, kept on disk between checking and writing.

A bundle is checked whole before anything is written, so what the checks of the work files and
the write need of every document (its id, line, block, input, system, kind and texts' digest) must
wait somewhere. Held as objects it was about 0.5 KB a document: a 200,000-document Likert study
(one-segment summaries) grew the import by 100 MB. Here the documents wait in a temporary SQLite
database (the standard library's; unnamed, removed when closed), which also answers the questions
checking asks of all of them: is this id taken, which documents are in this block, which outputs
of one input have the same text.
"""

import dataclasses
import operator
import pickle
import sqlite3
from collections import OrderedDict, namedtuple

from .specs import DocumentSpec

# Blocks whose documents stay in memory after a look-up: an assignments file gives a block's
# workers on neighbouring lines, so a handful covers them.
RECENT_BLOCKS = 64

# What a block's look-up gives of each of its documents: read from the columns (the queries below
# name them in this order), not unpickled.
Member = namedtuple("Member", "position external_id line input_id system")

SCHEMA = """
CREATE TABLE document (
    position INTEGER PRIMARY KEY,
    external_id TEXT NOT NULL UNIQUE,
    line INTEGER,
    block TEXT,
    input_id TEXT,
    system TEXT,
    digest BLOB,
    spec BLOB NOT NULL
);
CREATE INDEX document_block ON document (block, position);
"""


class CheckedDocuments:
    """The checked DocumentSpecs of one import, in the order they were added.

    Iterates, and supports len(), truth and `in` (an external id), like the list it replaces; each
    iteration reads the specs back from disk, one at a time. `get` reads one by its id.
    """

    def __init__(self):
        # "" opens a private database in a temporary file; its pages spill there past a small cache.
        self._db = sqlite3.connect("", isolation_level=None)
        self._db.executescript(SCHEMA)
        self._db.execute("BEGIN")  # one transaction: nothing is synced to disk per document
        self._count = 0

    def add(self, spec):
        """Store `spec` (checking asked first whether its id is taken: `in`)."""
        self._db.execute(
            "INSERT INTO document (position, external_id, line, block, input_id, system, digest, spec)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (self._count, spec.external_id, spec.line, spec.block, spec.input_id, spec.system, spec.digest,
             _dumps(spec)),
        )  # fmt: skip
        self._count += 1

    def __contains__(self, external_id):
        return (
            self._db.execute("SELECT 1 FROM document WHERE external_id = ?", (external_id,)).fetchone()
            is not None
        )

    def get(self, external_id):
        """The stored DocumentSpec with this id, or None."""
        row = self._db.execute("SELECT spec FROM document WHERE external_id = ?", (external_id,)).fetchone()
        return None if row is None else _spec(row[0])

    def line_of(self, external_id):
        """The line of the stored document with this id (None: on a line it shares)."""
        (line,) = self._db.execute(
            "SELECT line FROM document WHERE external_id = ?", (external_id,)
        ).fetchone()
        return line

    def __len__(self):
        return self._count

    def __iter__(self):
        for (data,) in self._db.execute("SELECT spec FROM document ORDER BY position"):
            yield _spec(data)

    def by_block(self):
        """(block, [its Members in file order]) for every block, blocks in the order of their first
        document; documents without a block are left out."""
        rows = self._db.execute(
            "SELECT d.block, d.position, d.external_id, d.line, d.input_id, d.system FROM document d"
            " JOIN (SELECT block, MIN(position) AS first FROM document WHERE block <> '' GROUP BY block) b"
            " ON b.block = d.block ORDER BY b.first, d.position"
        )
        block, members = None, []
        for name, *member in rows:
            if name != block and members:
                yield block, members
                members = []
            block = name
            members.append(Member(*member))
        if members:
            yield block, members

    def blocks(self, shape=None):
        """{block: shape(its Members in file order)}, read on look-up (BlockMembers); `shape`
        defaults to the set of their external ids, and may return None (no such block)."""
        return BlockMembers(self._db, shape or (lambda members: {member.external_id for member in members}))

    def identical_outputs(self):
        """(later, first) DocumentSpec pairs: outputs for the same input with the same text (digest)
        and a different system, `first` the earliest such document, in the order of `later`."""
        rows = self._db.execute(
            "SELECT later.spec, first.spec FROM"
            " (SELECT input_id, digest, MIN(position) AS position FROM document"
            "  WHERE input_id <> '' GROUP BY input_id, digest HAVING COUNT(*) > 1) firsts"
            " JOIN document first ON first.position = firsts.position"
            " JOIN document later ON later.input_id = firsts.input_id AND later.digest = firsts.digest"
            "  AND later.position > firsts.position AND later.system IS NOT first.system"
            " ORDER BY later.position"
        )
        for later, first in rows:
            yield _spec(later), _spec(first)

    def close(self):
        self._db.close()


class BlockMembers:
    """{block: what a shape makes of its documents}, read from a CheckedDocuments on look-up; the
    blocks read last stay in memory. Supports `in`, `[]` and get()."""

    def __init__(self, db, shape):
        self._db = db
        self._shape = shape
        self._recent = OrderedDict()

    def __contains__(self, block):
        return self._members(block) is not None

    def __getitem__(self, block):
        members = self._members(block)
        if members is None:
            raise KeyError(block)
        return members

    def get(self, block, default=None):
        members = self._members(block)
        return default if members is None else members

    def _members(self, block):
        if block in self._recent:
            self._recent.move_to_end(block)
            return self._recent[block]
        rows = self._db.execute(
            "SELECT position, external_id, line, input_id, system FROM document WHERE block = ? ORDER BY position",
            (block,),
        )
        found = [Member(*row) for row in rows]
        members = self._shape(found) if found else None
        self._recent[block] = members
        if len(self._recent) > RECENT_BLOCKS:
            self._recent.popitem(last=False)
        return members


# A spec is stored as the tuple of its fields: a fifth of the time to pickle and unpickle of the
# dataclass itself, and under half its bytes.
_fields = operator.attrgetter(*(field.name for field in dataclasses.fields(DocumentSpec)))


def _dumps(spec):
    return pickle.dumps(_fields(spec), protocol=pickle.HIGHEST_PROTOCOL)


def _spec(data):
    return DocumentSpec(*pickle.loads(data))  # noqa: S301 - the import's own database, written above
