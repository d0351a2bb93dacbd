"""ESA-AI and MQM-AI against a control arm: what a judge's pre-filled errors did to the people.

In the suggestion arm each worker's assignment starts with the judge's errors of its
document (the suggestions) and the worker removes those they disagree with; the control
arm starts empty. Both arms rate the same documents. From the submitted assignments:

- **Per arm**: raters, rated segments, errors per rated segment by severity, the mean
  segment score (ESA's score, or the MQM score from the weights).
- **Kept suggestions**: of the suggestions shown (each suggestion once per assignment
  that received it), the share still there at submit, overall and per severity. A
  suggestion is *confirmed* when at least half of the control arm's raters of its
  document marked at least half of its characters (any severity, the same side; the
  [missing] marker counts as one character); the kept rates of confirmed and of
  unconfirmed suggestions are given apart. A careful worker keeps the first and removes
  the second: the kept rate of unconfirmed suggestions is the share of the judge's
  errors that people took over although independent people did not see them (the
  anchoring figure). Suggestions of documents no control rater submitted are neither.
- **Overlap with the suggestions**, per arm: the share of the suggested characters the
  arm's people marked (with any severity), and the share of the people's marked
  characters that were suggested, over every (segment, person) pair. The control arm's
  figure is what independent people share with the judge; the difference, suggestions
  minus control, is how far showing the errors moved the people towards the judge.
- **Differences** (suggestions minus control) of the overlap and of the mean segment
  score, each with a 95% percentile bootstrap interval over the documents (translations)
  both arms rated, resampled with replacement (seeded).
- **Rankings**: Kendall's tau-b between the two arms' system scores on the units both
  arms scored (reports/metrics/judge.py): do the arms rank the systems alike?
"""

from dataclasses import dataclass

import numpy as np

from .judge import kendall_tau_b, pair_table, pairwise_accuracy
from .translation import marked_positions

SUGGESTIONS = "suggestions"
CONTROL = "control"
ARMS = (SUGGESTIONS, CONTROL)


@dataclass(frozen=True)
class Suggested:
    """One suggestion: its key, its unit (system, document, segment) and the error it shows."""

    key: object
    unit: tuple
    error: object  # a MarkedError


@dataclass(frozen=True)
class Outcome:
    """What one suggestion-arm assignment did with one suggestion it received."""

    suggestion: object
    rater: str
    kept: bool


def _all(error):
    return True


def _characters(error):
    return marked_positions((error,), _all)


def _per_rated_segment(rows, severities):
    counts = dict.fromkeys(severities, 0)
    for row in rows:
        for error in row.errors:
            counts[error.severity] = counts.get(error.severity, 0) + 1
    return {severity: count / len(rows) for severity, count in counts.items()} if rows else {}


def arm_figures(rows, severities):
    scores = [row.score for row in rows if row.score is not None]
    return {
        "raters": len({row.rater for row in rows}),
        "segments_rated": len(rows),
        "errors_per_segment": _per_rated_segment(rows, severities),
        "mean_score": float(np.mean(scores)) if scores else None,
    }


def confirmed(suggestions, control):
    """{suggestion key: True (confirmed), False} for the suggestions whose document a control
    rater submitted; see the module docstring."""
    by_unit = {}
    for row in control:
        by_unit.setdefault(row.unit, []).append(row)
    raters_of = {}
    for row in control:
        raters_of.setdefault(row.unit[:2], set()).add(row.rater)
    verdicts = {}
    for suggestion in suggestions:
        raters = raters_of.get(suggestion.unit[:2])
        if not raters:
            continue
        wanted = _characters(suggestion.error)
        agreeing = sum(
            1
            for row in by_unit.get(suggestion.unit, ())
            if 2 * len(wanted & marked_positions(row.errors, _all)) >= len(wanted)
        )
        verdicts[suggestion.key] = 2 * agreeing >= len(raters)
    return verdicts


def _rate(outcomes):
    kept = sum(1 for outcome in outcomes if outcome.kept)
    return {"shown": len(outcomes), "kept": kept, "rate": kept / len(outcomes) if outcomes else None}


def kept_suggestions(suggestions, outcomes, control):
    """The kept rates: overall, per severity, for confirmed and unconfirmed suggestions."""
    severity_of = {s.key: s.error.severity for s in suggestions}
    verdicts = confirmed(suggestions, control)
    result = _rate(outcomes)
    result["severities"] = {
        severity: _rate([o for o in outcomes if severity_of.get(o.suggestion) == severity])
        for severity in sorted(set(severity_of.values()))
    }
    result["confirmed"] = _rate([o for o in outcomes if verdicts.get(o.suggestion) is True])
    result["unconfirmed"] = _rate([o for o in outcomes if verdicts.get(o.suggestion) is False])
    result["unknown"] = sum(1 for o in outcomes if o.suggestion not in verdicts)
    return result


def _overlap_counts(suggestions, rows):
    """{document: [suggested characters, people's characters, both]} over (segment, person) pairs."""
    suggested = {}
    for suggestion in suggestions:
        suggested.setdefault(suggestion.unit, set()).update(_characters(suggestion.error))
    counts = {}
    for row in rows:
        theirs = marked_positions(row.errors, _all)
        mine = suggested.get(row.unit, set())
        entry = counts.setdefault(row.unit[:2], [0, 0, 0])
        entry[0] += len(mine)
        entry[1] += len(theirs)
        entry[2] += len(mine & theirs)
    return counts


def _overlap(totals):
    suggested, marked, both = totals
    return {
        "suggested_marked": both / suggested if suggested else None,
        "marked_suggested": both / marked if marked else None,
        "suggested_characters": int(suggested),
        "marked_characters": int(marked),
        "both_characters": int(both),
    }


def _ratio_difference(first, second, *, resamples, seed):
    """The difference of two pooled ratios, first arm minus second, with its bootstrap interval.

    `first` and `second` are documents x 2 arrays (numerator, denominator) over the same
    documents; each resample draws documents with replacement and pools both arms over them.
    """
    if not len(first):
        return {"value": None, "documents": 0, "value_reason": "no document was rated in both arms"}
    with np.errstate(invalid="ignore", divide="ignore"):
        value = first[:, 0].sum() / first[:, 1].sum() - second[:, 0].sum() / second[:, 1].sum()
    entry = {"value": None if np.isnan(value) else float(value), "documents": len(first)}
    if entry["value"] is None:
        entry["value_reason"] = "an arm has nothing to divide by on these documents"
        return entry
    rng = np.random.default_rng(seed)
    documents = len(first)
    draws = rng.integers(0, documents, size=(resamples, documents))
    weights = np.stack([np.bincount(draw, minlength=documents) for draw in draws]).astype(np.float64)
    drawn_first, drawn_second = weights @ first, weights @ second
    with np.errstate(invalid="ignore", divide="ignore"):
        differences = drawn_first[:, 0] / drawn_first[:, 1] - drawn_second[:, 0] / drawn_second[:, 1]
    differences = differences[np.isfinite(differences)]
    if differences.size:
        entry["interval"] = [float(v) for v in np.percentile(differences, [2.5, 97.5])]
    return entry


def _score_sums(rows):
    """{document: [sum of segment scores, scores]}."""
    by_document = {}
    for row in rows:
        if row.score is not None:
            entry = by_document.setdefault(row.unit[:2], [0.0, 0])
            entry[0] += row.score
            entry[1] += 1
    return by_document


def _system_means(rows, units):
    sums = {}
    for row in rows:
        if row.score is not None and row.unit in units:
            entry = sums.setdefault(row.system, [0.0, 0])
            entry[0] += row.score
            entry[1] += 1
    return {system: total / count for system, (total, count) in sums.items()}


def assistance_comparison(arms, suggestions, outcomes, *, severities=(), resamples=1000, seed=0):
    """The comparison of the arms: `arms` is {"suggestions": [RatedSegment], "control": [...]},
    `suggestions` [Suggested], `outcomes` [Outcome] of the submitted suggestion-arm assignments."""
    rows = {arm: list(arms.get(arm, ())) for arm in ARMS}
    result = {"arms": {arm: arm_figures(rows[arm], severities) for arm in ARMS}}
    result["kept"] = kept_suggestions(suggestions, outcomes, rows[CONTROL])
    counts = {arm: _overlap_counts(suggestions, rows[arm]) for arm in ARMS}
    result["overlap"] = {
        arm: _overlap(np.sum(list(counts[arm].values()) or [[0, 0, 0]], axis=0)) for arm in ARMS
    }
    # Both-marked over suggested characters, per document of each arm; then the segment scores.
    shared = sorted(set(counts[SUGGESTIONS]) & set(counts[CONTROL]), key=str)
    overlap = [np.array([[counts[arm][d][2], counts[arm][d][0]] for d in shared], dtype=np.float64).reshape(-1, 2)
               for arm in (SUGGESTIONS, CONTROL)]  # fmt: skip
    sums = {arm: _score_sums(rows[arm]) for arm in ARMS}
    scored = sorted(set(sums[SUGGESTIONS]) & set(sums[CONTROL]), key=str)
    scores = [
        np.array([sums[arm][d] for d in scored], dtype=np.float64).reshape(-1, 2)
        for arm in (SUGGESTIONS, CONTROL)
    ]
    result["differences"] = {
        "suggested_marked": _ratio_difference(*overlap, resamples=resamples, seed=seed),
        "mean_score": _ratio_difference(*scores, resamples=resamples, seed=seed),
    }
    units = {row.unit for row in rows[SUGGESTIONS] if row.score is not None} & {
        row.unit for row in rows[CONTROL] if row.score is not None
    }
    pairs = pair_table(_system_means(rows[SUGGESTIONS], units), _system_means(rows[CONTROL], units))
    result["rankings"] = {
        "pairs": len(pairs),
        "tau": kendall_tau_b(pairs),
        "pairwise_accuracy": pairwise_accuracy(pairs),
    }
    if result["rankings"]["tau"] is None:
        result["rankings"]["tau_reason"] = (
            "fewer than two systems scored by both arms" if not pairs else "an arm scores every system alike"
        )
    return result
