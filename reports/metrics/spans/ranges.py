"""Vectorised operations on ranges of unit indices [lo, hi) held by owners (annotations)."""

import numpy as np


def merge_ranges(owners, lo, hi, *, presorted=False):
    """Merge each owner's overlapping or touching ranges; empty ranges are dropped.

    Returns (owners, lo, hi) of disjoint ranges, sorted by owner then start.
    An owner's ranges are shifted by ``owner * (largest index + 1)`` so that one
    running maximum over all of them never carries across owners.
    ``presorted``: the ranges already come sorted by owner, then lo (no sort).
    """
    keep = hi > lo
    owners, lo, hi = owners[keep], lo[keep], hi[keep]
    if not len(lo):
        return owners, lo, hi
    if not presorted:
        order = np.lexsort((lo, owners))
        owners, lo, hi = owners[order], lo[order], hi[order]
    shift = owners.astype(np.int64) * (int(hi.max()) + 1)
    reach = np.maximum.accumulate(hi + shift)
    first = np.ones(len(lo), dtype=bool)
    first[1:] = lo[1:] + shift[1:] > reach[:-1]
    starts = np.flatnonzero(first)
    lasts = np.append(starts[1:] - 1, len(lo) - 1)
    return owners[starts], lo[starts], reach[lasts] - shift[lasts]


def cover_counts(lo, hi, size):
    """How many of the ranges cover each of ``size`` units (difference array + cumsum)."""
    steps = np.bincount(lo, minlength=size + 1)
    steps -= np.bincount(hi, minlength=size + 1)
    return np.cumsum(steps[:size])


def distinct_cover(owners, lo, hi, size):
    """How many distinct owners have a range covering each of ``size`` units."""
    _, lo, hi = merge_ranges(owners, lo, hi)
    return cover_counts(lo, hi, size)


def expand(lo, hi):
    """All indices of the ranges, and for each the position of its range."""
    lengths = hi - lo
    which = np.repeat(np.arange(len(lo)), lengths)
    firsts = np.cumsum(lengths) - lengths
    return lo[which] + np.arange(int(lengths.sum())) - firsts[which], which


def components(starts, ends):
    """Connected components of overlapping ranges (sharing at least one position).

    Returns, per range, its component number, and the [start, end) extent of
    every component. Ranges in different documents or segments never overlap
    in study coordinates, so one sweep serves the whole study.
    """
    if not len(starts):
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty
    order = np.argsort(starts, kind="stable")
    sorted_starts, sorted_ends = starts[order], ends[order]
    reach = np.maximum.accumulate(sorted_ends)
    first = np.ones(len(starts), dtype=bool)
    first[1:] = sorted_starts[1:] >= reach[:-1]
    numbers = np.cumsum(first) - 1
    component = np.empty(len(starts), dtype=np.int64)
    component[order] = numbers
    firsts = np.flatnonzero(first)
    lasts = np.append(firsts[1:] - 1, len(starts) - 1)
    return component, sorted_starts[firsts], reach[lasts]
