"""Checked work kept on disk between checking and writing.

A bundle is checked whole before anything is written (a malformed one writes nothing), so what
checking accepts must wait for the write. Millions of spans held as objects took gigabytes; here
they wait in a temporary file, pickled a batch at a time, and the write reads them back one batch
at a time. The file is the process's own (unnamed, removed when closed or when the process ends).
"""

import pickle
import tempfile

BATCH = 1000


class Spool:
    """A sequence of checked items written to a temporary file in batches of `batch`.

    Supports len() and truth like the list it replaces; `batches()` reads the items back in the
    order they were added, `batch` at a time.
    """

    def __init__(self, batch=BATCH):
        self.batch = batch
        self._file = None
        self._pending = []
        self._count = 0

    def append(self, item):
        self._pending.append(item)
        self._count += 1
        if len(self._pending) == self.batch:
            self._flush()

    def __len__(self):
        return self._count

    def _flush(self):
        if self._file is None:
            self._file = tempfile.TemporaryFile(prefix="falte-bundle-")  # noqa: SIM115 - lives as long as the spool
        pickle.dump(self._pending, self._file, protocol=pickle.HIGHEST_PROTOCOL)
        self._pending = []

    def batches(self):
        """Lists of at most `batch` items, in the order they were appended."""
        if self._file is not None:
            if self._pending:
                self._flush()
            self._file.seek(0)
            while True:
                try:
                    yield pickle.load(self._file)  # noqa: S301 - the process's own file, written above
                except EOFError:
                    break
        elif self._pending:
            yield self._pending

    def __iter__(self):
        for batch in self.batches():
            yield from batch

    def close(self):
        if self._file is not None:
            self._file.close()


class CheckedAssignments:
    """The assignments checking accepted, spooled to disk until the write, with what the write and
    the import's summary need of all of them gathered as they come: their workers (platform,
    annotator) and how many annotations they hold (`count(spec)`). Reading the spool back for those
    would unpickle the whole study once more.

    Supports append, len() and truth, and `batches()`, like the Spool it keeps; a protocol may store
    its specs in a leaner form by overriding `kept(spec)`.
    """

    def __init__(self, count, batch=BATCH):
        self.spool = Spool(batch=batch)
        self.count = count
        self.annotations = 0
        self.workers = set()  # (platform, annotator)

    def append(self, spec):
        self.annotations += self.count(spec)
        self.workers.add((spec.platform, spec.annotator))
        self.spool.append(self.kept(spec))

    def kept(self, spec):
        """What waits on disk of `spec`: the spec itself."""
        return spec

    def __len__(self):
        return len(self.spool)

    def batches(self):
        return self.spool.batches()
