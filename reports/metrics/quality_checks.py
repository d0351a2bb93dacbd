"""Quality checks of translation raters (WMT's "bad references"; docs/metrics.md, "Quality checks").

A quality check is a degraded copy of a translation: in one or more of its segments a phrase
was replaced by a phrase of another segment, or dropped. Its injected error is gold: a known
span that a careful rater marks (MQM, ESA) and that lowers the segment's score (ESA, DA) or
raises its MQM score.

- `mann_whitney_u`: the Mann-Whitney U test, exact or asymptotic, as scipy.stats.mannwhitneyu
  computes it (its "auto" choice of method, tie correction, continuity correction);
- `detected`: whether a rater's marked errors catch an injected error;
- `check_caught`: one degraded segment's verdict, by the protocol's rule;
- `rater_reliability`: per rater, a one-sided Mann-Whitney U test of their scores of the
  degraded segments against their scores of the same segments' originals (WMT practice: a
  reliable rater scores the degraded ones significantly lower; p < 0.05 passes), the share of
  degraded segments scored worse than their original, and the detection rate.

Pure Python: no Django, no scipy (the tests check it against scipy).
"""

import math
from dataclasses import dataclass
from functools import lru_cache

ALPHA = 0.05
EXACT_MAX = 8  # scipy's "auto": exact when either sample has at most 8 values and nothing is tied
ALTERNATIVES = ("less", "greater", "two-sided")
DETECTED, DETECTED_OR_WORSE, WORSE = "detected", "detected_or_worse", "worse"
RULES = (DETECTED, DETECTED_OR_WORSE, WORSE)


# --- the Mann-Whitney U test ------------------------------------------------------------------


def _ranks(values):
    """Average ranks (1-based) of `values`, and the sizes of their groups of ties."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    ties = []
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        ties.append(j - i + 1)
        i = j + 1
    return ranks, ties


@lru_cache(maxsize=256)
def _u_counts(n1, n2):
    """How many of the C(n1 + n2, n1) orderings give U = 0, 1, ..., n1 * n2 (no ties)."""
    # counts[m][u] for the first sample's size m, built up over the second sample's size.
    previous = [[1] + [0] * (n1 * n2) for _ in range(n1 + 1)]  # n2 = 0: U is 0
    for size2 in range(1, n2 + 1):
        current = [[1] + [0] * (n1 * n2)]  # m = 0: U is 0
        for m in range(1, n1 + 1):
            # The largest value is the second sample's (U as before) or the first's (U + size2).
            row = [
                previous[m][u] + (current[m - 1][u - size2] if u >= size2 else 0) for u in range(n1 * n2 + 1)
            ]
            current.append(row)
        previous = current
    return tuple(previous[n1])


def _exact_sf(u, n1, n2):
    """P(U >= u) under the null hypothesis, no ties."""
    counts = _u_counts(n1, n2)
    total = math.comb(n1 + n2, n1)
    u = max(0, int(u))  # scipy's integer statistic
    return sum(counts[u:]) / total


def _normal_sf(z):
    return 0.5 * math.erfc(z / math.sqrt(2))


def _asymptotic_sf(u, n1, n2, ties, continuity):
    """P(U >= u), the normal approximation with the tie correction (scipy's _get_mwu_z)."""
    n = n1 + n2
    tie_term = sum(t**3 - t for t in ties)
    variance = n1 * n2 / 12 * ((n + 1) - tie_term / (n * (n - 1)))
    numerator = u - n1 * n2 / 2 - (0.5 if continuity else 0.0)
    if variance <= 0:  # every value tied: nothing tells the samples apart
        return 1.0 if numerator <= 0 else 0.0
    return _normal_sf(numerator / math.sqrt(variance))


@dataclass(frozen=True)
class UTest:
    statistic: float  # U of the first sample: the number of (x, y) pairs with x > y, a tie counting 1/2
    p: float
    method: str  # exact or asymptotic


def mann_whitney_u(x, y, alternative="two-sided", method="auto", continuity=True):
    """The Mann-Whitney U test of samples `x` and `y`, as scipy.stats.mannwhitneyu(x, y,
    use_continuity=continuity, alternative=alternative, method=method) computes it:

    - "less": x is stochastically less than y; "greater": x greater; "two-sided": either;
    - method "auto" is exact when either sample has at most 8 values and no value is tied, else
      asymptotic (a normal approximation with the tie correction and, by default, the
      continuity correction).

    An asymptotic test of samples whose every value is tied has p = 1 (scipy's too, with the
    continuity correction)."""
    x, y = [float(v) for v in x], [float(v) for v in y]
    if not x or not y:
        raise ValueError("both samples need at least one value")
    if any(math.isnan(v) for v in (*x, *y)):
        raise ValueError("the samples must not hold NaN")
    if alternative not in ALTERNATIVES:
        raise ValueError(f"alternative must be one of {', '.join(ALTERNATIVES)}")
    if method not in ("auto", "exact", "asymptotic"):
        raise ValueError("method must be auto, exact or asymptotic")
    n1, n2 = len(x), len(y)
    ranks, ties = _ranks(x + y)
    u1 = sum(ranks[:n1]) - n1 * (n1 + 1) / 2
    u2 = n1 * n2 - u1
    if alternative == "greater":
        u, factor = u1, 1
    elif alternative == "less":
        u, factor = u2, 1  # by symmetry, the survival function of U2
    else:
        u, factor = max(u1, u2), 2
    if method == "auto":
        method = "asymptotic" if (n1 > EXACT_MAX and n2 > EXACT_MAX) or any(t > 1 for t in ties) else "exact"
    p = _exact_sf(u, n1, n2) if method == "exact" else _asymptotic_sf(u, n1, n2, ties, continuity)
    return UTest(statistic=u1, p=min(1.0, max(0.0, p * factor)), method=method)


# --- one degraded segment ------------------------------------------------------------------


@dataclass(frozen=True)
class Injected:
    """An injected error in a degraded segment's text (code points, end exclusive).

    `start`, `end`: the text that changed (empty for a dropped phrase: the place it was);
    `window_start`, `window_end`: where a marked error counts as catching it (the inserted
    phrase; for a drop, the words on either side of the gap); `mode`: replace or drop."""

    start: int
    end: int
    window_start: int
    window_end: int
    mode: str = "replace"


def detected(errors, injected):
    """True when one of `errors` (objects with side, start, end, severity) catches `injected`:
    a span of the translation overlapping its window; for a dropped phrase also a span of the
    source or the [missing] marker (an omission). A Neutral error (MQM: not an error) does not."""
    for error in errors:
        if str(error.severity).strip().lower() == "neutral":
            continue
        if error.side == "target":
            if max(error.start, injected.window_start) < min(error.end, injected.window_end):
                return True
        elif injected.mode == "drop" and error.side in ("source", "missing"):
            return True
    return False


def worse(original, degraded, higher_is_better=True):
    """True when the degraded segment scored worse than its original, None when either is unscored."""
    if original is None or degraded is None:
        return None
    return degraded < original if higher_is_better else degraded > original


def check_caught(rule, *, was_detected=None, was_worse=None):
    """One degraded segment's verdict: True (caught), False (missed) or None (cannot tell).

    `rule` is "detected" (MQM: the injected span marked), "detected_or_worse" (ESA: marked, or
    the segment scored lower than its original) or "worse" (DA: scored lower than its original)."""
    if rule == DETECTED:
        return was_detected
    if rule == WORSE:
        return was_worse
    if rule == DETECTED_OR_WORSE:
        if was_detected or was_worse:
            return True
        if was_detected is None and was_worse is None:
            return None
        return False
    raise ValueError(f"rule must be one of {', '.join(RULES)}")


def check_verdict(caught, min_caught):
    """(passed, judged, caught count) of one check over its degraded segments' verdicts:
    passed is None when no segment could be judged, else whether the share caught reaches
    `min_caught`."""
    judged = [c for c in caught if c is not None]
    hits = sum(1 for c in judged if c)
    if not judged:
        return None, 0, 0
    return hits / len(judged) >= min_caught, len(judged), hits


# --- per rater ---------------------------------------------------------------------------


@dataclass(frozen=True)
class CheckedSegment:
    """One rater's judgment of one degraded segment: its score, their score of the same segment
    of the original (None when they did not rate it), and whether they marked the injected error
    (None for a protocol without spans)."""

    rater: str
    degraded: float | None
    original: float | None
    detected: bool | None = None


def lowest_p(n_degraded, n_original, alternative="less"):
    """The smallest p the test can give for these sample sizes (degraded all worse, no ties)."""
    degraded = list(range(n_degraded))
    original = list(range(n_degraded, n_degraded + n_original))
    if alternative == "greater":
        degraded, original = original, degraded
    return mann_whitney_u(degraded, original, alternative).p


def rater_reliability(checked, *, higher_is_better=True, alpha=ALPHA):
    """Per rater (sorted): the one-sided Mann-Whitney U test of their scores of degraded segments
    against their scores of the same segments' originals, over the segments they scored both of.

    Each entry: rater; pairs; u (U of the degraded scores) and p, None without a pair; passed
    (p < alpha); reachable (whether as many pairs can give p < alpha at all: fewer than four
    cannot); method; worse_share (the share of pairs whose degraded segment scored worse);
    segments (degraded segments rated); detected and detection_rate over those whose spans were
    checked (None for a protocol without spans)."""
    alternative = "less" if higher_is_better else "greater"
    by_rater = {}
    for row in checked:
        by_rater.setdefault(row.rater, []).append(row)
    result = []
    for rater in sorted(by_rater):
        rows = by_rater[rater]
        pairs = [(r.degraded, r.original) for r in rows if r.degraded is not None and r.original is not None]
        spans = [r.detected for r in rows if r.detected is not None]
        entry = {
            "rater": rater,
            "segments": len(rows),
            "pairs": len(pairs),
            "u": None,
            "p": None,
            "method": None,
            "passed": False,
            "reachable": False,
            "worse_share": None,
            "detected": sum(spans) if spans else None,
            "detection_rate": sum(spans) / len(spans) if spans else None,
        }
        if pairs:
            degraded = [d for d, _ in pairs]
            original = [o for _, o in pairs]
            test = mann_whitney_u(degraded, original, alternative)
            entry.update(
                u=test.statistic,
                p=test.p,
                method=test.method,
                passed=test.p < alpha,
                reachable=lowest_p(len(degraded), len(original), alternative) < alpha,
                worse_share=sum(1 for d, o in pairs if worse(o, d, higher_is_better)) / len(pairs),
            )
        result.append(entry)
    return result
