"""An uploaded file copied to disk a chunk at a time (Django's UploadedFile.chunks()), so that the
documents step never holds a whole upload: its documents are then read from the copy one by one."""

from bundles.utf8 import UTF8Check


def upload_copied(upload, path, *, text=False):
    """Copy `upload` (a Django UploadedFile) to `path`; with `text`, BundleInvalid names the file
    and the first byte that is not UTF-8, as a whole-file decode would name it."""
    check = UTF8Check(upload.name) if text else None
    with open(path, "wb") as handle:
        for chunk in upload.chunks():
            handle.write(chunk)
            if check is not None:
                check.feed(chunk)
    if check is not None:
        check.feed(b"", final=True)
    return path
