"""Agreement of translation ratings (MQM, ESA, DA): on segment scores and on error spans.

A rated segment is one rater's judgment of one system's translation of one segment. Two
raters agree on a unit when they rated the same system's segment; the figures are:

- score agreement: Krippendorff's alpha (interval) over the units, and the mean Kendall tau
  (tau-b) between two raters' segment scores over the units they share (WMT's segment-level
  figure), over every pair of raters sharing at least MIN_SHARED units;
- span agreement, per severity and per top-level category: how far two raters mark the same
  characters with it, as an F1 over every pair of raters on every shared unit (micro-averaged:
  2 x characters both marked / (characters one marked + characters the other marked)). The
  [missing] marker counts as one position of its segment.
"""

from dataclasses import dataclass, field
from itertools import combinations

import numpy as np
from scipy import stats

from .alpha import alpha_from_triples

MIN_SHARED = 3  # a tau over fewer than three shared units says nothing


@dataclass(frozen=True)
class MarkedError:
    side: str  # target, source or missing
    start: int
    end: int
    category: str  # "" for ESA
    severity: str


@dataclass(frozen=True)
class RatedSegment:
    system: str
    document: str  # the source document (input id), shared by every system's translation of it
    segment: int
    rater: str
    score: float | None
    errors: tuple = field(default_factory=tuple)

    @property
    def unit(self):
        return (self.system, self.document, self.segment)


def marked_positions(errors, keep):
    """The (side, position) pairs the errors `keep` selects mark; [missing] is one position."""
    marked = set()
    for error in errors:
        if not keep(error):
            continue
        if error.side == "missing":
            marked.add(("missing", -1))
        else:
            marked.update((error.side, position) for position in range(error.start, error.end))
    return marked


def _units(rated):
    by_unit = {}
    for row in rated:
        by_unit.setdefault(row.unit, {})[row.rater] = row
    return {unit: raters for unit, raters in by_unit.items() if len(raters) >= 2}


def span_f1(rated, keep=lambda error: True, units=None):
    """(F1, characters marked in all) over every pair of raters of every shared unit, for the
    errors `keep` selects; F1 is None when no one marked anything. `units`: _units(rated), when
    the caller has them already."""
    both = marked = 0
    for raters in (units if units is not None else _units(rated)).values():
        for first, second in combinations(sorted(raters), 2):
            a = marked_positions(raters[first].errors, keep)
            b = marked_positions(raters[second].errors, keep)
            both += len(a & b)
            marked += len(a) + len(b)
    return (2 * both / marked if marked else None), marked


def top_category(category):
    return category.split("/")[0].strip()


def span_agreement(rated):
    """{"any": {...}, "severities": [...], "categories": [...]}: span F1 overall, per severity and
    per top-level category, each with the characters marked in all."""
    rated = list(rated)
    severities = sorted({e.severity for row in rated for e in row.errors})
    categories = sorted({top_category(e.category) for row in rated for e in row.errors if e.category})
    units = _units(rated)  # once for every entry: a 300,000-segment campaign groups in seconds

    def entry(name, keep):
        f1, marked = span_f1(rated, keep, units)
        return {"name": name, "f1": f1, "marked": marked}

    return {
        "any": entry("any error", lambda e: True),
        "severities": [entry(s, lambda e, s=s: e.severity == s) for s in severities],
        "categories": [entry(c, lambda e, c=c: top_category(e.category) == c) for c in categories],
    }


def score_agreement(rated):
    """Krippendorff's alpha (interval) and the mean pairwise Kendall tau of segment scores."""
    rows = [row for row in rated if row.score is not None]
    result = {"units": len(_units(rows)), "raters": len({row.rater for row in rows})}
    if result["units"] == 0:
        return {**result, "alpha": None, "tau": None, "reason": "no segment was scored by two raters"}
    units = [repr(row.unit) for row in rows]
    alpha = alpha_from_triples([row.rater for row in rows], units, [row.score for row in rows], "interval")
    result["alpha"] = alpha.alpha
    if alpha.alpha is None:
        result["alpha_reason"] = alpha.reason
    by_rater = {}
    for row in rows:
        by_rater.setdefault(row.rater, {})[row.unit] = row.score
    taus = []
    for first, second in combinations(sorted(by_rater), 2):
        shared = sorted(set(by_rater[first]) & set(by_rater[second]))
        if len(shared) < MIN_SHARED:
            continue
        tau = stats.kendalltau(
            [by_rater[first][u] for u in shared], [by_rater[second][u] for u in shared]
        ).statistic
        if not np.isnan(tau):
            taus.append(float(tau))
    result["tau"] = float(np.mean(taus)) if taus else None
    result["tau_pairs"] = len(taus)
    if not taus:
        result["tau_reason"] = f"no two raters share {MIN_SHARED} scored segments with varying scores"
    return result
