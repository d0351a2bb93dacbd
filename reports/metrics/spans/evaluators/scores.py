"""Precision, recall and F1 with their intervals, as report JSON."""

import numpy as np

from reports.metrics.nullable import put_value

from .terms import LEVELS, NEEDS, REFERENCES, SCORED


def ratios(predicted, reference, correct):
    """Precision, recall and F1 of count arrays; NaN where undefined."""
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = np.where(predicted > 0, correct / predicted, np.nan)
        recall = np.where(reference > 0, correct / reference, np.nan)
        total = precision + recall
        f1 = np.where(total > 0, 2 * precision * recall / total, np.where(np.isnan(total), np.nan, 0.0))
    return precision, recall, f1


def evaluator_figures(counts, overlapping, compared, bounds, resamples):
    """Per category and then for all: {level: {reference: scores}} of one evaluator."""
    totals = counts.sum(axis=-1)
    totals = np.concatenate([totals, totals.sum(axis=2, keepdims=True)], axis=2)
    overlaps = overlapping.sum(axis=-1)
    overlaps = np.concatenate([overlaps, overlaps.sum(axis=1, keepdims=True)], axis=1)
    figures = []
    for column in range(totals.shape[2]):
        entry = {}
        for level, level_name in enumerate(LEVELS):
            entry[level_name] = {}
            for reference, name in enumerate(REFERENCES):
                documents = int(compared[reference])
                scores = _scores(level_name, totals[reference, level, column].tolist(), documents, name)
                if level_name == "sentence":
                    correct = scores["correct"]
                    overlap = int(overlaps[reference, column]) / correct if correct else None
                    put_value(scores, "overlap", overlap, "no correctly marked sentence")
                _intervals(scores, bounds[reference, level, column], documents, resamples)
                entry[level_name][name] = scores
        figures.append(entry)
    return figures


def _scores(unit, totals, documents, reference_name):
    """Counts, precision, recall and F1, each undefined one null with its reason."""
    predicted, reference, correct = totals
    result = {"predicted": predicted, "reference": reference, "correct": correct}
    if documents:
        precision_reason = f"the evaluator marked no {unit}"
        recall_reason = f"the reference marks no {unit}"
        f1_reason = "precision or recall is undefined"
    else:
        precision_reason = recall_reason = f1_reason = (
            f"no document has the evaluator's annotation and {NEEDS[reference_name]}"
        )
    precision = correct / predicted if predicted else None
    recall = correct / reference if reference else None
    put_value(result, "precision", precision, precision_reason)
    put_value(result, "recall", recall, recall_reason)
    if precision is None or recall is None:
        f1 = None
    else:
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    put_value(result, "f1", f1, f1_reason)
    return result


def _intervals(scores, bounds, documents, resamples):
    """Add ``<score>_interval``: [low, high], or null with the reason there is none."""
    for name, (low, high) in zip(SCORED, bounds.tolist(), strict=True):
        if documents < 2:
            put_value(scores, f"{name}_interval", None, "fewer than two compared documents")
        elif not resamples:
            put_value(scores, f"{name}_interval", None, "no resamples were asked for")
        elif low != low:  # NaN
            put_value(scores, f"{name}_interval", None, f"{name} is undefined in every resample")
        else:
            scores[f"{name}_interval"] = [low, high]
