"""Segment texts of checked documents, kept on disk while the work files are checked against them.

A span names its document and segment; checking it reads that segment's text. Holding every
document's texts until the last span is checked made the import's memory grow with the study
(827 MB at 30,000 documents). Here each document's segments go to a temporary file as its record is
checked, and a span's check reads them back by the document's id; the few documents read last stay
in memory, because a work file usually gives a document's assignments one after another.
"""

import pickle
import tempfile
from collections import OrderedDict

# Documents whose texts stay in memory after being read back: an assignments file gives each
# document's annotators on neighbouring lines, so a handful covers them.
RECENT = 32


class SegmentTexts:
    """{document external id: its segment texts}, read from a temporary file; `meta(id)` its meta.

    Supports `in` and `[]` like the dict of texts it replaces; `add` stores a document's texts.
    The file is the process's own (unnamed, removed when closed or when the process ends).
    """

    def __init__(self):
        self._file = tempfile.TemporaryFile(prefix="falte-texts-")  # noqa: SIM115 - lives as long as the texts
        self._where = {}  # external id -> (offset, length): some 100 bytes per document
        self._recent = OrderedDict()
        self._size = RECENT

    def add(self, external_id, segments, meta=None):
        """Store a document's segment texts, and its meta (a protocol's checks may read sources there)."""
        data = pickle.dumps((tuple(segments), meta), protocol=pickle.HIGHEST_PROTOCOL)
        self._file.seek(0, 2)
        self._where[external_id] = (self._file.tell(), len(data))
        self._file.write(data)

    def __contains__(self, external_id):
        return external_id in self._where

    def __len__(self):
        return len(self._where)

    def __getitem__(self, external_id):
        """The document's segment texts."""
        return self._read(external_id)[0]

    def meta(self, external_id):
        """The document's meta, as `add` was given it."""
        return self._read(external_id)[1]

    def _read(self, external_id):
        stored = self._recent.get(external_id)
        if stored is not None:
            self._recent.move_to_end(external_id)
            return stored
        offset, length = self._where[external_id]
        self._file.seek(offset)
        stored = pickle.loads(self._file.read(length))  # noqa: S301 - the process's own file, written above
        self._recent[external_id] = stored
        if len(self._recent) > self._size:
            self._recent.popitem(last=False)
        return stored

    def close(self):
        self._file.close()
        self._where, self._recent = {}, OrderedDict()  # what was read is let go with the file
