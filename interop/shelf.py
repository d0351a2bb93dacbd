"""A corpus kept on disk while its files are read, and given back a document at a time.

doccano, Potato and factgenie export one file per annotator (or per campaign), and the
same document comes in several of them: its annotations are gathered from every file
before any can be written. Holding the documents' texts and the annotations in dicts
until the last file is read made the import's memory grow with the study, so a reader
puts each document and annotation on a `Shelf` as it reads them: a private SQLite
database in a temporary file, removed when it is closed (or when the process ends).
What stays in memory is only what the whole corpus decides (parts.Survey: labels, links,
models), as for the Label Studio import (interop/formats/label_studio/reading.py).

`parts()` gives each document with every annotation of it, in the order documents were
first read and annotations read (parts.py); `corpus()` the whole Corpus, as a reader
holding it all gave it, for what needs the file whole (a review import, the documents
step).
"""

import json
import pickle

from bundles.scratch import scratch_database

from . import corpus as c
from .links import LinkPlanning
from .parts import Parts, Survey

SCHEMA = (
    # `position`: the order of first reading; `file`, `line`: where, to name a later difference.
    "CREATE TABLE document (id TEXT PRIMARY KEY, position INTEGER, file TEXT, line INTEGER, data BLOB)",
    "CREATE TABLE annotation (position INTEGER PRIMARY KEY, document TEXT, annotator TEXT, kind TEXT, data BLOB)",
    "CREATE INDEX annotation_document ON annotation (document, position)",
    # Texts a file names by a key rather than gives (factgenie's outputs files).
    "CREATE TABLE given_text (key TEXT PRIMARY KEY, text TEXT)",
)


class Shelf(Parts):
    """Documents and annotations as a reader adds them; `labels` and `link_labels` the reader
    keeps in order (they grow with the taxonomy, not with the study), `notes` what it says."""

    def __init__(self):
        self.db = scratch_database(SCHEMA)
        self.labels, self.link_labels, self.notes = [], [], []
        self.documents = 0
        self._labels_used = {}  # labels of the regions, in their order, beside the reader's
        self._models = {}
        self._planning = LinkPlanning()
        self._survey = None

    def known(self, identifier):
        """(Document, file, line where it was first read) of the document `identifier`, or None."""
        row = self.db.execute("SELECT data, file, line FROM document WHERE id = ?", (identifier,)).fetchone()
        if row is None:
            return None
        return _loaded(row[0]), row[1], row[2]

    def add_document(self, document, file_name, line):
        self.documents += 1
        self.db.execute(
            "INSERT INTO document VALUES (?, ?, ?, ?, ?)",
            (document.id, self.documents, file_name, line, _dumped(document)),
        )

    def add_given_text(self, key, text):
        """A text that records name by `key` (a tuple of strings); a later one of the same key wins."""
        self.db.execute("INSERT OR REPLACE INTO given_text VALUES (?, ?)", (json.dumps(key), text))

    def given_text(self, key):
        row = self.db.execute("SELECT text FROM given_text WHERE key = ?", (json.dumps(key),)).fetchone()
        return None if row is None else row[0]

    def add_annotation(self, annotation):
        """An annotation read whole (its regions and links placed): the survey takes what it needs."""
        self.db.execute(
            "INSERT INTO annotation (document, annotator, kind, data) VALUES (?, ?, ?, ?)",
            (annotation.document, annotation.annotator, annotation.kind, _dumped(annotation)),
        )
        self._labels_used.update(dict.fromkeys(region.label for region in annotation.regions))
        if annotation.kind == c.MODEL:
            self._models.setdefault(annotation.annotator)
        self._planning.add(annotation)

    @property
    def survey(self):
        if self._survey is None:
            (most,) = self.db.execute(
                "SELECT MAX(people) FROM (SELECT COUNT(DISTINCT annotator) AS people FROM annotation"
                " WHERE kind = ? GROUP BY document)",
                (c.MAIN,),
            ).fetchone()
            labels = list(dict.fromkeys([*self.labels, *self._labels_used]))
            self._survey = Survey(labels=labels, plan=self._planning.plan(), models=list(self._models),
                                  annotators_per_document=most or 0, notes=self.notes)  # fmt: skip
        return self._survey

    def parts(self):
        """([document], [its annotations]) of each document, in the order they were first read."""
        for document_id, data in self.db.execute("SELECT id, data FROM document ORDER BY position"):
            annotations = self.db.execute(
                "SELECT data FROM annotation WHERE document = ? ORDER BY position", (document_id,)
            )
            yield [_loaded(data)], [_loaded(row[0]) for row in annotations]

    def corpus(self):
        """The whole Corpus: documents in the order first read, annotations in the order read."""
        documents = self.db.execute("SELECT data FROM document ORDER BY position")
        annotations = self.db.execute("SELECT data FROM annotation ORDER BY position")
        return c.Corpus(documents=[_loaded(row[0]) for row in documents],
                        annotations=[_loaded(row[0]) for row in annotations],
                        labels=list(self.labels), link_labels=list(self.link_labels), notes=list(self.notes))  # fmt: skip

    def close(self):
        self.db.close()


def _dumped(item):
    return pickle.dumps(item, protocol=pickle.HIGHEST_PROTOCOL)


def _loaded(data):
    return pickle.loads(data)  # noqa: S301 - the process's own temporary database, written above
