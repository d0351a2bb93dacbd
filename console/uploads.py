"""An uploaded file copied to disk a chunk at a time (Django's UploadedFile.chunks()), so that the
documents step never holds a whole upload: its documents are then read from the copy one by one."""

import codecs

from bundles.problems import BundleInvalid, Problem


def upload_copied(upload, path, *, text=False):
    """Copy `upload` (a Django UploadedFile) to `path`; with `text`, BundleInvalid names the file
    and the first byte that is not UTF-8, as a whole-file decode would name it."""
    check = _UTF8Check(upload.name) if text else None
    with open(path, "wb") as handle:
        for chunk in upload.chunks():
            handle.write(chunk)
            if check is not None:
                check.feed(chunk)
    if check is not None:
        check.feed(b"", final=True)
    return path


class _UTF8Check:
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
