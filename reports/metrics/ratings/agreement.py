"""Agreement between annotators of a rating study: alpha and change rate over units.

Input everywhere: parallel arrays (unit, annotator, value) with at most one
value per annotator and unit.
"""

import numpy as np

from reports.metrics.alpha import alpha_from_triples
from reports.metrics.nullable import put_value

NO_REPEATED_UNIT = "no unit has two or more judgments"


def put_alpha(report, key, units, annotators, values, level):
    """Set ``report[key]`` to Krippendorff's alpha at ``level`` (null + reason when undefined)."""
    result = alpha_from_triples(annotators, units, values, level)
    put_value(report, key, result.alpha, result.reason)
    return result


def change_rate_pct(units, values):
    """% of units with two or more values whose values are not all the same.

    Tang et al. (2022): how often annotators change their mind about a unit.
    Returns ``(pct, None)``, or ``(None, reason)`` when no unit has two values.
    """
    units = np.asarray(units, dtype=np.int64)
    values = np.asarray(values, dtype=np.float64)
    if not units.size:
        return None, NO_REPEATED_UNIT
    order = np.lexsort((values, units))
    units, values = units[order], values[order]
    starts = np.flatnonzero(np.r_[True, units[1:] != units[:-1]])
    ends = np.r_[starts[1:], len(units)] - 1
    repeated = ends > starts
    if not repeated.any():
        return None, NO_REPEATED_UNIT
    # Values are sorted within a unit: they all agree when the first equals the last.
    changed = repeated & (values[starts] != values[ends])
    return 100.0 * np.count_nonzero(changed) / np.count_nonzero(repeated), None
