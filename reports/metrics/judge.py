"""A judge (an LLM evaluator) against the people of a translation study (MQM, ESA).

Both come as RatedSegment rows (reports/metrics/translation.py): the judge is one more
rater, kept apart. A *unit* is one system's translation of one segment; the judge is
compared on the units it and at least one person rated.

- **Error spans**, per severity, per category and for any error: precision, recall and
  F1 of the judge's marked characters against each person's, on every unit both rated,
  micro-averaged over the (unit, person) pairs: precision = characters both marked /
  characters the judge marked, recall = characters both marked / characters the person
  marked. With one person per unit (as in WMT's MQM data) this is the judge against
  that person; with several, against a person drawn at random. A character counts
  where both marked it with the same severity (category); the [missing] marker is one
  position of its segment, and a source-side span counts in the source.
- **System level**: each system's score over the units compared (the judge's mean; the
  people's mean over their (unit, person) scores), then over every pair of systems
  whether the judge orders them as the people do. From that one table of pairs:
  Kendall's tau-b between the two sets of system scores, and *pairwise accuracy*
  (Kocmi et al. 2021, "To Ship or Not to Ship"): the share of pairs the judge orders
  as the people do. A pair the people score alike counts as agreed only when the
  judge scores it alike too (and the other way round); a tie is ordered neither way.
- **Segment level**: Kendall's tau-b between the judge's segment scores and the
  people's mean per unit, over every unit compared (WMT's "no grouping" variant).
"""

from dataclasses import dataclass
from itertools import combinations

import numpy as np
from scipy import stats

from .translation import marked_positions

ANY = "any error"


@dataclass(frozen=True)
class SpanCounts:
    """Characters the judge marked, the people marked, and both marked, summed over pairs."""

    judge: int = 0
    people: int = 0
    both: int = 0
    pairs: int = 0

    def __add__(self, other):
        return SpanCounts(self.judge + other.judge, self.people + other.people, self.both + other.both,
                          self.pairs + other.pairs)  # fmt: skip

    def figures(self):
        precision = self.both / self.judge if self.judge else None
        recall = self.both / self.people if self.people else None
        marked = self.judge + self.people
        return {
            "precision": precision,
            "recall": recall,
            "f1": 2 * self.both / marked if marked else None,
            "judge_characters": self.judge,
            "people_characters": self.people,
            "both_characters": self.both,
            "pairs": self.pairs,
        }


def _by_unit(rows):
    by_unit = {}
    for row in rows:
        by_unit.setdefault(row.unit, []).append(row)
    return by_unit


def span_counts(judge, people, keep=lambda error: True):
    """SpanCounts of the judge's rows against the people's, for the errors `keep` selects."""
    people_by_unit = _by_unit(people)
    total = SpanCounts()
    for row in judge:
        mine = marked_positions(row.errors, keep)
        for person in people_by_unit.get(row.unit, ()):
            theirs = marked_positions(person.errors, keep)
            total += SpanCounts(len(mine), len(theirs), len(mine & theirs), 1)
    return total


def span_comparison(judge, people):
    """{"units", "any", "severities": [...], "categories": [...]}: the judge's spans against the
    people's overall, per severity and per category (as the taxonomy labels it), each entry
    with precision, recall, F1 and the characters behind them; a figure with nothing to
    divide by is None, with a reason."""
    judge, people = list(judge), list(people)
    units = set(_by_unit(people))
    judge = [row for row in judge if row.unit in units]
    severities = sorted({e.severity for row in judge + _shared(people, judge) for e in row.errors})
    categories = sorted(
        {e.category for row in judge + _shared(people, judge) for e in row.errors if e.category}
    )

    def entry(name, keep):
        figures = span_counts(judge, people, keep).figures()
        _reasons(figures)
        return {"name": name, **figures}

    return {
        "units": len(judge),
        "any": entry(ANY, lambda e: True),
        "severities": [entry(s, lambda e, s=s: e.severity == s) for s in severities],
        "categories": [entry(c, lambda e, c=c: e.category == c) for c in categories],
    }


def _shared(people, judge):
    judged = {row.unit for row in judge}
    return [row for row in people if row.unit in judged]


def _reasons(figures):
    if not figures["pairs"]:
        reason = "no segment was rated by the judge and a person"
        for name in ("precision", "recall", "f1"):
            figures[f"{name}_reason"] = reason
        return
    if figures["precision"] is None:
        figures["precision_reason"] = "the judge marked none"
    if figures["recall"] is None:
        figures["recall_reason"] = "the people marked none"
    if figures["f1"] is None:
        figures["f1_reason"] = "neither marked any"


def _sign(value, tolerance=1e-12):
    return 0 if abs(value) <= tolerance else (1 if value > 0 else -1)


def pair_table(judge_scores, people_scores):
    """Every pair of the systems both score, with the sign of each one's difference (first minus
    second): [(first, second, judge sign, people sign)], systems in sorted order."""
    systems = sorted(set(judge_scores) & set(people_scores), key=str)
    return [
        (a, b, _sign(judge_scores[a] - judge_scores[b]), _sign(people_scores[a] - people_scores[b]))
        for a, b in combinations(systems, 2)
    ]


def kendall_tau_b(pairs):
    """Kendall's tau-b from a pair_table: (concordant - discordant) / sqrt((n0 - ties of the judge)
    x (n0 - ties of the people)); None when either side scores every system alike."""
    concordant = sum(1 for *_, j, p in pairs if j * p > 0)
    discordant = sum(1 for *_, j, p in pairs if j * p < 0)
    judge_untied = sum(1 for *_, j, _ in pairs if j != 0)
    people_untied = sum(1 for *_, p in pairs if p != 0)
    if not judge_untied or not people_untied:
        return None
    return (concordant - discordant) / float(np.sqrt(judge_untied * people_untied))


def pairwise_accuracy(pairs):
    """The share of pairs the judge orders as the people do (a tie agrees only with a tie)."""
    return sum(1 for *_, j, p in pairs if j == p) / len(pairs) if pairs else None


def _means(rows):
    sums, counts = {}, {}
    for key, value in rows:
        sums[key] = sums.get(key, 0.0) + value
        counts[key] = counts.get(key, 0) + 1
    return {key: sums[key] / counts[key] for key in sums}


def system_agreement(judge, people, *, higher_is_better):
    """The judge's system scores and ranking beside the people's, on the units both scored;
    Kendall's tau-b and pairwise accuracy, and the pairs the judge orders otherwise."""
    judged = {row.unit: row.score for row in judge if row.score is not None}
    scored = [row for row in people if row.score is not None and row.unit in judged]
    units = {row.unit for row in scored}
    judge_scores = _means((unit[0], judged[unit]) for unit in units)
    people_scores = _means((row.system, row.score) for row in scored)
    pairs = pair_table(judge_scores, people_scores)
    sign = 1 if higher_is_better else -1
    result = {
        "units": len(units),
        "systems": [
            {
                "system": system,
                "people": people_scores[system],
                "judge": judge_scores[system],
                "people_rank": _rank(people_scores, system, sign),
                "judge_rank": _rank(judge_scores, system, sign),
            }
            for system in sorted(people_scores, key=lambda s: (-sign * people_scores[s], str(s)))
        ],  # fmt: skip
        "pairs": len(pairs),
        "agreeing": sum(1 for *_, j, p in pairs if j == p),
        "tau": kendall_tau_b(pairs),
        "pairwise_accuracy": pairwise_accuracy(pairs),
        "disagreeing": [_disagreement(a, b, j, p, sign) for a, b, j, p in pairs if j != p],
    }
    if len(pairs) == 0:
        result["tau_reason"] = result["pairwise_accuracy_reason"] = (
            "fewer than two systems scored by both the judge and the people"
        )
    elif result["tau"] is None:
        result["tau_reason"] = "the judge or the people score every system alike"
    return result


def _rank(scores, system, sign):
    """1 + how many systems are better (equal scores share a rank)."""
    return 1 + sum(1 for other in scores.values() if sign * (other - scores[system]) > 1e-12)


def _disagreement(first, second, judge_sign, people_sign, sign):
    """A pair the judge orders otherwise, the people's better system first: which one each side
    finds better ("first", "second") or "tied"."""
    if sign * people_sign < 0:
        first, second, judge_sign, people_sign = second, first, -judge_sign, -people_sign

    def better(difference_sign):
        return "tied" if difference_sign == 0 else ("first" if sign * difference_sign > 0 else "second")

    return {"first": first, "second": second, "people": better(people_sign), "judge": better(judge_sign)}


def segment_tau(judge, people):
    """Kendall's tau-b (scipy) between the judge's segment scores and the people's mean per unit."""
    judged = {row.unit: row.score for row in judge if row.score is not None}
    means = _means((row.unit, row.score) for row in people if row.score is not None and row.unit in judged)
    units = sorted(means, key=str)
    result = {"units": len(units), "tau": None}
    if len(units) < 2:
        result["tau_reason"] = "fewer than two segments scored by both the judge and the people"
        return result
    tau = stats.kendalltau([judged[u] for u in units], [means[u] for u in units]).statistic
    if np.isnan(tau):
        result["tau_reason"] = "the judge or the people give every segment the same score"
    else:
        result["tau"] = float(tau)
    return result


def judge_comparison(judge, people, *, higher_is_better):
    """Everything above for one judge: {"spans", "systems", "segments"}."""
    judge, people = list(judge), list(people)
    return {
        "spans": span_comparison(judge, people),
        "systems": system_agreement(judge, people, higher_is_better=higher_is_better),
        "segments": segment_tau(judge, people),
    }
