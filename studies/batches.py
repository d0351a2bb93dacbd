"""Cutting a long stream of rows into lists of a fixed size, for the paths that read or write a
whole study a batch at a time (exports, bundles, other tools' formats). Python 3.12's
itertools.batched does this; the platform runs on 3.11."""


def batched(items, size):
    """Lists of `size` consecutive items of `items` (the last may be shorter), read lazily: only
    one list is held at a time."""
    batch = []
    for item in items:
        batch.append(item)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch
