"""Spans as arrays, and the ranges of units they touch on one line of (category, unit) positions."""

from itertools import repeat
from operator import attrgetter

import numpy as np

from reports.metrics.spans.ranges import expand, merge_ranges


class SpanArrays:
    """The primary spans of some annotations as arrays, checked as the people's report checks them.

    ``owners`` (annotation number), ``categories`` (category number),
    ``starts``/``ends`` (study coordinates); ``documents``: each
    annotation's document number.
    """

    def __init__(self, annotations, layout, numbers):
        self.documents = np.array([layout.document_index[a.document] for a in annotations], dtype=np.int64)
        spans = [span for annotation in annotations for span in annotation.spans]
        self.owners = np.repeat(np.arange(len(annotations)), [len(a.spans) for a in annotations])
        count = len(spans)
        self.categories = np.fromiter(
            map(numbers.get, map(attrgetter("category"), spans), repeat(-1)), np.int64, count
        )
        segments = np.fromiter(map(attrgetter("segment"), spans), np.int64, count)
        starts = np.fromiter(map(attrgetter("start"), spans), np.int64, count)
        ends = np.fromiter(map(attrgetter("end"), spans), np.int64, count)

        def refuse(wrong, message):
            if wrong.any():
                at = int(np.flatnonzero(wrong)[0])
                raise ValueError(f"{annotations[self.owners[at]].document}: {message(at, spans[at])}")

        refuse(self.categories < 0, lambda at, span: f"unknown category {span.category!r}")
        offsets = layout.segments.document_offsets
        first = offsets[self.documents][self.owners]
        refuse((segments < 0) | (segments >= offsets[self.documents + 1][self.owners] - first),
               lambda at, span: f"no segment {span.segment}")  # fmt: skip
        segments += first
        refuse((starts < 0) | (starts >= ends) | (ends > layout.segment_lengths[segments]),
               lambda at, span: f"span [{span.start}, {span.end}) is empty or outside its segment")  # fmt: skip
        starts, ends = starts + layout.segment_bases[segments], ends + layout.segment_bases[segments]
        # In study order: binary searches over sorted keys run several times faster.
        order = np.argsort(starts)
        self.owners, self.categories = self.owners[order], self.categories[order]
        self.starts, self.ends = starts[order], ends[order]

    def part(self, mask=slice(None)):
        """(owners, categories, starts, ends) of the spans in ``mask``."""
        return self.owners[mask], self.categories[mask], self.starts[mask], self.ends[mask]


def line_ranges(units, spans):
    """[lo, hi) of the units each span touches, on the line where category c's units start at c * (units + 1)."""
    _, categories, starts, ends = spans
    lo, hi = units.touched(starts, ends)
    shift = categories * (len(units) + 1)
    return lo + shift, hi + shift


def person_ranges(units, spans):
    """Each annotation's touched units on the line, merged: (owners, lo, hi), disjoint per owner."""
    lo, hi = line_ranges(units, spans.part())
    # Spans are in study order, so grouping them by owner and category keeps lo sorted within an owner.
    order = stable_order(spans.owners * (int(spans.categories.max(initial=0)) + 1) + spans.categories)
    return merge_sorted(spans.owners[order], lo[order], hi[order])


def stable_order(keys):
    """The stable sorting order of non-negative integer ``keys`` (by radix when they are small)."""
    return np.argsort(keys.astype(np.uint16) if keys.max(initial=0) < 1 << 16 else keys, kind="stable")


def merge_sorted(owners, lo, hi):
    """:func:`merge_ranges` for ranges already sorted by owner, then lo, so without its sort."""
    return merge_ranges(owners, lo, hi, presorted=True)


def character_union(layout, spans):
    """The characters any of ``spans`` covers, as disjoint [start, end) per category on a character line."""
    _, categories, starts, ends = spans
    order = stable_order(categories)
    shift = categories[order] * (study_length(layout) + 1)
    anyone = np.zeros(len(starts), dtype=np.int64)
    return merge_sorted(anyone, starts[order] + shift, ends[order] + shift)[1:]


def study_length(layout):
    bases, lengths = layout.segment_bases, layout.segment_lengths
    return int(bases[-1] + lengths[-1]) if len(bases) else 0


def shared_ranges(layout, spans, union):
    """Sentences on the line where one of ``spans`` and the ``union`` of a reference's spans share a character.

    Returns, per piece of a span that the union covers, the span's number
    and the [lo, hi) of the sentences the piece touches.
    """
    _, categories, starts, ends = spans
    order = stable_order(categories)  # sorted keys make the binary searches faster
    categories, starts, ends = categories[order], starts[order], ends[order]
    union_starts, union_ends = union
    shift = categories * (study_length(layout) + 1)
    first = np.searchsorted(union_ends, starts + shift, side="right")
    last = np.maximum(np.searchsorted(union_starts, ends + shift, side="left"), first)
    merged, span = expand(first, last)
    piece_starts = np.maximum(union_starts[merged] - shift[span], starts[span])
    piece_ends = np.minimum(union_ends[merged] - shift[span], ends[span])
    return order[span], *line_ranges(layout.sentences, (None, categories[span], piece_starts, piece_ends))
