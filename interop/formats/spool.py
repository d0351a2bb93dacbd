"""Files a writer fills a line at a time, in whatever order its lines come (one file per annotator).

A corpus is written as it is walked (StudyCorpus reads a study a position at a time), so a
writer of one file per annotator appends to each as its lines come, rather than holding
every annotator's lines until the end. Only a few files are open at once: a study may have
more annotators than a process may open files.
"""

from collections import OrderedDict

OPEN_AT_ONCE = 32


class Files:
    """Append text to files by path; a path's first write starts it afresh (as write_text would)."""

    def __init__(self):
        self.order = []  # the paths in the order of their first line
        self.started = set()  # every path written to
        self._open = OrderedDict()

    def write(self, path, text):
        handle = self._open.pop(path, None)
        if handle is None:
            started = path in self.started
            if not started:
                self.order.append(path)
                self.started.add(path)
            if len(self._open) >= OPEN_AT_ONCE:
                self._open.popitem(last=False)[1].close()
            handle = open(path, "a" if started else "w", encoding="utf-8")  # noqa: SIM115 - closed by close()
        self._open[path] = handle  # the latest written last: the first closed is the least recent
        handle.write(text)

    def close(self):
        while self._open:
            self._open.popitem()[1].close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
