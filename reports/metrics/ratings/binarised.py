"""Likert ratings turned into good / bad at the threshold that agrees best (Goyal et al. 2022, SNaC 4.4).

A rating is good when it is at least the threshold ``t``, else bad. Every
threshold between the scale's points is tried, and the report keeps the one
whose binary nominal Krippendorff's alpha over units is highest.
"""

import numpy as np

from reports.metrics.alpha import alpha_from_triples

NO_RATINGS = "no ratings"
ONE_POINT = "the scale has a single point, so there is no threshold to try"
NO_DEFINED_THRESHOLD = "alpha is undefined at every threshold"


def thresholds(scores, low, high):
    """The thresholds to try, ascending.

    On a scale of whole points ``low..high`` (and whole scores): low + 1 ..
    high, each splitting the scale between two neighbouring points. With
    scores off whole points: every distinct score above the lowest one, so
    each cut between two observed scores is tried once.
    """
    scores = np.asarray(scores, dtype=np.float64)
    if low is None or high is None:
        return []
    whole = float(low).is_integer() and float(high).is_integer() and bool(np.all(scores == np.round(scores)))
    if whole:
        return [float(point) for point in range(int(low) + 1, int(high) + 1)]
    distinct = np.unique(scores)
    return [float(value) for value in distinct[1:]]


def _label(threshold):
    return str(int(threshold)) if threshold.is_integer() else repr(threshold)


def binarised_alpha(units, annotators, scores, low, high):
    """The best good/bad threshold of Likert ``scores`` and its nominal alpha, as a JSON-ready dict.

    ``units``, ``annotators`` and ``scores`` are parallel arrays with at most
    one score per annotator and unit; ``low`` and ``high`` are the scale's
    lowest and highest points. Returns ``threshold`` and ``alpha`` (null +
    ``alpha_reason`` when no threshold gives a defined alpha),
    ``by_threshold`` (threshold -> alpha, null where undefined; keys are the
    thresholds as strings, "3" or "2.5") and ``by_threshold_reasons`` for
    the undefined ones. Ties go to the lowest threshold.
    """
    scores = np.asarray(scores, dtype=np.float64)
    result = {"threshold": None, "alpha": None}
    if not scores.size:
        result["alpha_reason"] = NO_RATINGS
        result["by_threshold"] = {}
        return result
    tried = thresholds(scores, low, high)
    by_threshold, reasons = {}, {}
    best, best_alpha = None, None
    for threshold in tried:
        good = (scores >= threshold).astype(np.float64)
        alpha = alpha_from_triples(annotators, units, good, "nominal")
        by_threshold[_label(threshold)] = alpha.alpha
        if alpha.alpha is None:
            reasons[_label(threshold)] = alpha.reason
        elif best_alpha is None or alpha.alpha > best_alpha:
            best, best_alpha = threshold, alpha.alpha
    if best is not None:
        result["threshold"] = int(best) if best.is_integer() else best
        result["alpha"] = best_alpha
    elif not tried:
        result["alpha_reason"] = ONE_POINT
    elif len(set(reasons.values())) == 1:
        result["alpha_reason"] = next(iter(reasons.values()))
    else:
        result["alpha_reason"] = NO_DEFINED_THRESHOLD
    result["by_threshold"] = by_threshold
    if reasons:
        result["by_threshold_reasons"] = reasons
    return result
