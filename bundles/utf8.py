"""The first byte of a file that is not UTF-8, found a chunk at a time, so that a file read later a
line at a time is named as a whole-file decode named it: the file, and the byte."""

import codecs

from .problems import BundleInvalid, Problem

CHUNK = 1 << 16


class UTF8Check:
    """Decodes the chunks only to find the first byte that is not UTF-8. Its offset counts from the
    start of the file, or after the byte-order mark when there is one: what bytes.decode("utf-8-sig")
    reports, so the message is the one a whole-file decode gave."""

    def __init__(self, name):
        self.name = name
        self._decoder = codecs.getincrementaldecoder("utf-8")()
        self._fed = 0
        self._head = b""  # the first bytes, until there are enough to tell a byte-order mark

    def feed(self, chunk, *, final=False):
        if len(self._head) < len(codecs.BOM_UTF8):
            self._head += chunk[: len(codecs.BOM_UTF8) - len(self._head)]
        pending = len(self._decoder.buffer)  # an incomplete character left by the previous chunk
        try:
            self._decoder.decode(chunk, final)
        except UnicodeDecodeError as error:
            at = self._fed - pending + error.start
            if self._head == codecs.BOM_UTF8:
                at -= len(codecs.BOM_UTF8)
            raise BundleInvalid(
                [Problem(self.name, 0, f"not UTF-8 text ({error.reason} at byte {at})")]
            ) from None
        self._fed += len(chunk)


def check_utf8_file(path, name):
    """BundleInvalid naming `name` and the first byte of the file at `path` that is not UTF-8."""
    check = UTF8Check(name)
    with open(path, "rb") as handle:
        while chunk := handle.read(CHUNK):
            check.feed(chunk)
    check.feed(b"", final=True)
