"""Krippendorff's alpha for nominal, ordinal, interval and ratio data.

Definitions from Krippendorff (2011), "Computing Krippendorff's
Alpha-Reliability" (see METRICS.md). Everything goes through per-unit value
counts: ``counts[u, c]`` = how many coders gave value ``c`` to unit ``u``.

Coincidences. A unit with ``m_u`` values has ``n_uc * n_uk`` ordered pairs of
values (c, k) from different coders when c != k, and ``n_uc * (n_uc - 1)``
when c == k (a value is never paired with itself). Each pair is weighted by
``1 / (m_u - 1)``, so with ``w_u = 1 / (m_u - 1)``::

    o = sum_u w_u * (n_u n_u^T - diag(n_u))
      = C^T diag(w) C - diag(C^T w)

over the pairable units (m_u >= 2). That is one (V x units) @ (units x V)
matrix product per chunk of units: no per-pair loop and no
units x V x V array. Row sums of ``o`` are the value totals ``n_c`` (the
weights cancel: sum_k o_ck = sum_u n_uc (m_u - 1) w_u), kept exactly as
integers.

Units are processed in chunks so that temporaries stay a few megabytes
whatever the number of units; the only V x V arrays are ``o`` and the
distances.
"""

from dataclasses import dataclass

import numpy as np

LEVELS = ("nominal", "ordinal", "interval", "ratio")

NO_PAIRABLE_UNITS = "no pairable units"
ONE_VALUE = "only one value among pairable values"
NO_EXPECTED_DISAGREEMENT = "no expected disagreement between the pairable values"

# Cells (units x values) handled per chunk: about 2 MB of int64 per temporary.
_CHUNK_CELLS = 1 << 18
# Integer data spanning at most this many consecutive values is coded by
# subtraction instead of a sort; absent values cost one empty column each.
_MAX_OFFSET_GRID = 256


@dataclass(frozen=True)
class AlphaResult:
    """Alpha, or None with the reason it is undefined.

    ``pairable_units`` are the units with at least two values and
    ``pairable_values`` (Krippendorff's n) the values in them.
    """

    alpha: float | None
    reason: str | None
    level: str
    pairable_units: int
    pairable_values: int


class _Coincidences:
    """Accumulates the coincidence matrix over chunks of per-unit counts."""

    def __init__(self, size):
        self.matrix = np.zeros((size, size), dtype=np.float64)
        self.totals = np.zeros(size, dtype=np.int64)
        self.units = 0
        self.values = 0

    def add(self, counts, values_per_unit, weights=None):
        """Add units' value counts; ``weights[u]``: how many units have row u (default 1)."""
        pairable = values_per_unit >= 2
        if not pairable.any():
            return
        pairable_counts = counts[pairable]
        values_per_unit = values_per_unit[pairable]
        scale = 1.0 / (values_per_unit - 1.0)
        if weights is not None:
            weights = weights[pairable]
            scale *= weights
            self.totals += (pairable_counts * weights[:, None]).sum(axis=0, dtype=np.int64)
            self.units += int(weights.sum())
            self.values += int((values_per_unit * weights).sum())
        else:
            self.totals += pairable_counts.sum(axis=0, dtype=np.int64)
            self.units += len(values_per_unit)
            self.values += int(values_per_unit.sum())
        plain = pairable_counts.astype(np.float64)
        weighted = plain * scale[:, None]
        self.matrix += weighted.T @ plain
        self.matrix[np.diag_indices_from(self.matrix)] -= weighted.sum(axis=0)

    def result(self, values, level):
        def undefined(reason):
            return AlphaResult(None, reason, level, self.units, self.values)

        if self.units == 0:
            return undefined(NO_PAIRABLE_UNITS)
        present = self.totals > 0
        if present.sum() < 2:
            return undefined(ONE_VALUE)
        # Values that occur in no pairable unit have zero rows and columns;
        # dropping them also gives ordinal distances over the ranks present.
        totals = self.totals[present].astype(np.float64)
        observed = self.matrix[np.ix_(present, present)]
        distances = _distances(np.asarray(values, dtype=np.float64)[present], totals, level)
        expected_disagreement = totals @ distances @ totals
        if expected_disagreement <= 0:
            return undefined(NO_EXPECTED_DISAGREEMENT)
        observed_disagreement = float(np.sum(observed * distances))
        alpha = 1.0 - (self.values - 1) * observed_disagreement / expected_disagreement
        return AlphaResult(float(alpha), None, level, self.units, self.values)


def _distances(values, totals, level):
    """Squared distances d2(c, k) between the sorted distinct values."""
    if level == "nominal":
        return 1.0 - np.eye(len(values))
    if level == "ordinal":
        # sum_{g=c..k} n_g - (n_c + n_k) / 2 equals M_k - M_c with the
        # mid-rank position M_c = sum_{g<c} n_g + n_c / 2.
        positions = np.cumsum(totals) - totals / 2.0
        return np.subtract.outer(positions, positions) ** 2
    if level == "interval":
        return np.subtract.outer(values, values) ** 2
    sums = np.add.outer(values, values)
    differences = np.subtract.outer(values, values)
    ratio = np.divide(differences, sums, out=np.zeros_like(differences), where=sums != 0)
    return ratio**2


def _check_level(level):
    if level not in LEVELS:
        raise ValueError(f"level must be one of {', '.join(LEVELS)}, not {level!r}")
    return level


def _chunk_units(size):
    return max(1024, _CHUNK_CELLS // max(size, 1))


def krippendorff_alpha(data, level="nominal"):
    """Krippendorff's alpha of a coders x units array, NaN marking a missing value.

    The layout of the ``krippendorff`` package's ``reliability_data``. Returns
    an :class:`AlphaResult`; alpha is None (never 1.0 or NaN) when there is no
    pairable unit or the pairable values show no variation.
    """
    level = _check_level(level)
    data = np.asarray(data, dtype=np.float64)
    if data.ndim != 2:
        raise ValueError("data must be a coders x units array")
    lowest = np.fmin.reduce(data, axis=None) if data.size else np.nan
    if np.isnan(lowest):
        return _Coincidences(0).result([], level)
    highest = np.fmax.reduce(data, axis=None)
    if not (np.isfinite(lowest) and np.isfinite(highest)):
        raise ValueError("values must be finite (NaN marks a missing value)")
    if lowest.is_integer() and highest.is_integer() and highest - lowest < _MAX_OFFSET_GRID:
        grid = np.arange(lowest, highest + 1.0)
        accumulated = _accumulate(data, grid, offset=lowest)
        if accumulated is not None:
            return accumulated.result(grid, level)
    grid = _distinct_values(data)
    return _accumulate(data, grid, offset=None).result(grid, level)


def _distinct_values(data):
    step = _chunk_units(data.shape[0])
    pieces = [np.unique(data[:, start : start + step]) for start in range(0, data.shape[1], step)]
    values = np.unique(np.concatenate(pieces))
    return values[~np.isnan(values)]


def _accumulate(data, grid, offset):
    """Coincidences of ``data`` coded against ``grid``.

    With ``offset`` the codes are ``value - offset`` (consecutive integers);
    returns None if a value turns out not to be an integer. Otherwise codes
    come from a binary search in the sorted distinct values. Either way a
    missing value gets the extra code ``len(grid)``.
    """
    coders, units = data.shape
    size = len(grid)
    width = size + 1
    accumulated = _Coincidences(size)
    step = _chunk_units(width)
    unit_offsets = np.arange(step, dtype=np.intp) * width
    for start in range(0, units, step):
        block = data[:, start : start + step]
        chunk = block.shape[1]
        if offset is None:
            codes = np.searchsorted(grid, block)  # NaN sorts last: code `size`
        else:
            shifted = block - offset
            shifted[np.isnan(shifted)] = size
            codes = shifted.astype(np.intp)
            if not np.array_equal(codes, shifted):
                return None
        codes += unit_offsets[:chunk]
        counts = np.bincount(codes.ravel(), minlength=chunk * width).reshape(chunk, width)
        accumulated.add(counts[:, :size], coders - counts[:, size])
    return accumulated


def alpha_from_counts(counts, values=None, level="nominal", weights=None):
    """Alpha from a units x V matrix of how many coders gave value ``values[v]`` to each unit.

    The fast path for data that is already counted (token-level alpha of a
    span study builds ``[[coders - marked, marked], ...]`` directly).
    ``values`` defaults to 0..V-1; they must be distinct and finite, in any
    order. ``weights``, if given, says how many units have each row, so that
    units with the same counts can be passed once.
    """
    level = _check_level(level)
    counts = np.asarray(counts)
    if counts.ndim != 2:
        raise ValueError("counts must be a units x values matrix")
    if counts.size and (not np.issubdtype(counts.dtype, np.integer) or counts.min() < 0):
        raise ValueError("counts must be non-negative integers")
    if weights is not None:
        weights = np.asarray(weights, dtype=np.int64)
        if weights.shape != counts.shape[:1] or (weights.size and weights.min() < 0):
            raise ValueError("weights must give one non-negative count per row of counts")
    size = counts.shape[1]
    values = np.arange(size, dtype=np.float64) if values is None else np.asarray(values, dtype=np.float64)
    if values.shape != (size,):
        raise ValueError("values must give one value per column of counts")
    if not np.all(np.isfinite(values)):
        raise ValueError("values must be finite")
    order = np.argsort(values, kind="stable")
    values = values[order]
    if np.any(values[1:] == values[:-1]):
        raise ValueError("values must be distinct")
    accumulated = _Coincidences(size)
    step = _chunk_units(size)
    for start in range(0, counts.shape[0], step):
        chunk = counts[start : start + step][:, order]
        # Column by column: numpy's row sums are slow on a few columns.
        values_per_unit = np.zeros(len(chunk), dtype=np.int64)
        for column in chunk.T:
            values_per_unit += column
        chunk_weights = None if weights is None else weights[start : start + step]
        accumulated.add(chunk, values_per_unit, chunk_weights)
    return accumulated.result(values, level)


def alpha_from_triples(coders, units, values, level="nominal"):
    """Alpha from parallel sequences of (coder, unit, value); NaN values are missing.

    Coders and units may be any sortable labels. A coder may give a unit at
    most one value.
    """
    coders = np.asarray(coders)
    units = np.asarray(units)
    values = np.asarray(values, dtype=np.float64)
    if not (coders.shape == units.shape == values.shape) or values.ndim != 1:
        raise ValueError("coders, units and values must be sequences of equal length")
    given = ~np.isnan(values)
    coders, units, values = coders[given], units[given], values[given]
    _, coder_codes = np.unique(coders, return_inverse=True)
    unit_labels, unit_codes = np.unique(units, return_inverse=True)
    pairs = unit_codes.astype(np.int64) * (coder_codes.max(initial=0) + 1) + coder_codes
    if len(np.unique(pairs)) < len(pairs):
        raise ValueError("a coder gave more than one value to the same unit")
    distinct, value_codes = np.unique(values, return_inverse=True)
    size = max(len(distinct), 1)
    counts = np.bincount(unit_codes * size + value_codes, minlength=len(unit_labels) * size)
    return alpha_from_counts(
        counts.reshape(len(unit_labels), size), distinct if len(distinct) else None, level
    )
