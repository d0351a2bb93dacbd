"""Counting by pieces: cut the line wherever a mark begins or ends and tally each piece's state."""

import numpy as np

from .terms import REFERENCES


def every_unit(line, ends):
    """Whether to count on every unit of the line rather than sort the ends of the ranges."""
    return line <= ends


class Sweep:
    """Every category's units on one line, cut into pieces where any channel's range begins or ends.

    ``channels``: per channel, [lo, hi) ranges on the line (category c's
    units start at c * (units + 1), so no range reaches another category).
    Each kept piece has ``cover[channel, piece]``: how many of the
    channel's ranges cover it; its ``lengths`` in units; its ``documents``,
    ``categories`` and ``cells`` (``document * categories + category``).
    Pieces nothing covers are dropped.
    """

    def __init__(self, units, shape, channels):
        self.shape = shape
        line = shape[1] * (len(units) + 1)
        if every_unit(line, sum(2 * len(lo) for lo, _ in channels)):
            self._count_every_unit(line, channels)
        else:
            self._sweep(channels)
        self.categories, unit = np.divmod(self.starts, len(units) + 1)
        self.documents = units.per_unit(np.arange(shape[0]))[unit]
        self.cells = self.documents * shape[1] + self.categories

    def _count_every_unit(self, line, channels):
        """A line shorter than the list of range ends: count on every unit (difference arrays)."""
        cover = np.empty((len(channels), line), dtype=np.int32)
        for number, (lo, hi) in enumerate(channels):
            steps = np.bincount(lo, minlength=line + 1) - np.bincount(hi, minlength=line + 1)
            cover[number] = np.cumsum(steps[:line])
        covered = cover[0] > 0
        for row in cover[1:]:
            covered |= row > 0
        self.starts = np.flatnonzero(covered)
        self.lengths = np.ones(len(self.starts), dtype=np.int64)
        self.cover = cover[:, self.starts]

    def _sweep(self, channels):
        # One sortable code per range end: position, then channel, then whether it is the end.
        bits = (2 * len(channels) - 1).bit_length()
        codes = []
        for channel, (lo, hi) in enumerate(channels):
            keep = hi > lo
            codes += [(lo[keep] << bits) | (2 * channel), (hi[keep] << bits) | (2 * channel + 1)]
        codes = np.concatenate(codes)
        codes = np.sort(codes.astype(np.int32) if codes.max(initial=0) < 1 << 31 else codes)
        positions = codes >> bits
        step = (1 - 2 * (codes & 1)).astype(np.int32)
        channel = (codes & ((1 << bits) - 1)) >> 1
        # The state after the last event at a position holds up to the next position.
        last = np.flatnonzero(positions[1:] > positions[:-1])
        kept = last[np.cumsum(step)[last] > 0]
        self.cover = np.empty((len(channels), len(kept)), dtype=np.int32)
        for number in range(len(channels)):
            self.cover[number] = np.cumsum(np.where(channel == number, step, 0))[kept]
        self.starts = positions[kept].astype(np.int64)
        self.lengths = positions[kept + 1] - positions[kept]

    def tally(self, patterns, selections):
        """Units per [document, category, selection]: ``selections[p, s]`` says whether pattern p counts for s.

        ``patterns`` gives each piece a small number (bits of its state), so
        that one pass counts every piece once, whatever is asked of it; only
        the patterns that occur get a column.
        """
        present = np.flatnonzero(np.bincount(patterns, minlength=len(selections)))
        columns = np.zeros(len(selections), dtype=np.int64)
        columns[present] = np.arange(len(present))
        size = self.shape[0] * self.shape[1]
        table = np.bincount(
            self.cells * len(present) + columns[patterns], weights=self.lengths, minlength=size * len(present)
        ).reshape(size, len(present))
        # Column sums rather than a matrix product, which would start BLAS threads.
        totals = [table[:, chosen].sum(axis=1) for chosen in selections[present].T.astype(bool)]
        return np.stack(totals, axis=-1).astype(np.int64).reshape(*self.shape, len(totals))


def tallies(sweep, evaluators, shared=False):
    """Per document: [reference, evaluator, category, (predicted, reference, correct), document] units.

    With ``shared`` also [reference, evaluator, category, document] correct
    sentences where the spans share a character. Channels: the people (a
    count), the experts, each evaluator, then with ``shared`` each
    evaluator's units sharing a character with a person's span, and with a
    gold span.
    """
    documents, categories = sweep.shape
    people = sweep.cover[0]
    # Bits: 0 predicted, 1 union, 2 two_agree, 3 gold, 4 shared with a person, 5 shared with gold.
    common = (people >= 1) << 1 | (people >= 2) << 2 | (sweep.cover[1] > 0) << 3
    bits = np.arange(64 if shared else 16)[:, None] >> np.arange(6) & 1
    selections = [bits[:, 0]]
    for reference in range(len(REFERENCES)):
        selections += [bits[:, 1 + reference], bits[:, 0] & bits[:, 1 + reference]]
    selections += [bits[:, 4], bits[:, 4] & bits[:, 2], bits[:, 5]]
    selections = np.stack(selections, axis=1).astype(np.float64)
    counts = np.zeros((len(REFERENCES), evaluators, categories, 3, documents), dtype=np.int64)
    overlapping = np.zeros((len(REFERENCES), evaluators, categories, documents), dtype=np.int64)
    for evaluator in range(evaluators):
        patterns = common | (sweep.cover[2 + evaluator] > 0)
        if shared:
            patterns |= (sweep.cover[2 + evaluators + evaluator] > 0) << 4
            patterns |= (sweep.cover[2 + 2 * evaluators + evaluator] > 0) << 5
        table = sweep.tally(patterns, selections).transpose(2, 1, 0)
        for reference in range(len(REFERENCES)):
            counts[reference, evaluator, :, 0] = table[0]
            counts[reference, evaluator, :, 1:] = table[1 + 2 * reference : 3 + 2 * reference].transpose(
                1, 0, 2
            )
        overlapping[:, evaluator] = table[7:]
    return counts, overlapping
