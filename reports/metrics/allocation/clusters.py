"""The `clusters` policy: spend where the ranking's significance clusters are in doubt, not only
its order.

`uncertain` stops spending on a pair once its *order* is clear, long before the pair is
*significant*; a cluster boundary needs every pair across it significant, so the clusters come
late. This policy sees only the ratings so far (live studies run it, through
annotations/services/allocation.doubt_of) and asks, per pair of systems, from the items both
were rated on (n of the plan's N; mean difference m, spread s):

- will the pair be significant at the end of its plan? The plan's mean difference is about
  normal around m with variance s^2 / n (1 - n / N) (finite population), and the pair is
  significant at the end when it exceeds t s / sqrt(N), t the paired t test's two-sided
  critical value (paired randomisation, the ranking's test, follows the t test);
- is the pair's *decision* in doubt: the probability that its significance now is not its
  significance at the end. Significant now means |m| above t s / sqrt(n) by MARGIN standard
  errors, on at least twice the `fewest_items` randomisation needs: a system far ahead of the
  rest is clear by the normal approximation after a warm-up of 5 items, but randomisation over
  5 items cannot give p below 1/16, and over 8 its p moves in coarse steps, so it would sit in
  everyone's cluster. A pair that cannot become significant with what is left of its plan, and
  a pair significant now that will stay so, are not in doubt; nor is a pair with all its items.

A pair's decision counts where a boundary may fall or go: at each position of the current order
(by the means so far) the doubt that a boundary falls there at the end (the product of the
chances of the pairs across) when none falls now, or that it goes when one falls now; a pair's
decision counts as much as the most doubtful position it lies across. The next item goes to the
pair with the most doubt, of its order (doubt.order_doubt, as under `uncertain`) or of its
decision; ties drawn at random. When no pair's doubt is above `settled`, the rest in the
uniform order.
"""

import numpy as np
from scipy import special, stats

from .doubt import SETTLED, _variance, done_sums, doubt_from_sums, most_doubtful_pair
from .policies import pair_by_pair_order

# A pair counts as significant now only with this many standard errors to spare: the ranking's
# test is paired randomisation, whose p on a few items moves in coarse steps (8 items: 2/256,
# then 18/256, ...) and with its resamples, so a pair just past the t test's threshold is often
# not significant by it, and a policy that stops there leaves a boundary to chance.
MARGIN = 0.5


def fewest_items(alpha):
    """The fewest shared items on which paired randomisation can find a pair significant: its p is
    at least 2 / 2^n (all n signs as observed, or all flipped)."""
    return int(np.floor(np.log2(2 / alpha))) + 1


_CRITICAL = {}  # alpha -> the t test's two-sided critical values, by degrees of freedom


def t_critical(alpha, degrees):
    """stats.t.isf(alpha / 2, degrees), the same numbers, read from a table per alpha where the
    degrees are whole (they are counts of items): a replay asks for them at every cell it buys,
    and scipy's distribution machinery cost more than the rest of the policy's arithmetic."""
    degrees = np.asarray(degrees, dtype=float)
    whole = np.isfinite(degrees).all() and (degrees == np.floor(degrees)).all() and (degrees >= 1).all()
    if not whole:
        return stats.t.isf(alpha / 2, degrees)
    table = _CRITICAL.get(alpha)
    largest = int(degrees.max(initial=1))
    if table is None or largest >= len(table):
        size = max(2 * largest, 1024)
        table = np.concatenate(([np.nan], stats.t.isf(alpha / 2, np.arange(1, size))))
        _CRITICAL[alpha] = table
    return table[degrees.astype(int)]


def significance_threshold(spread, items, alpha):
    """The mean difference over `items` shared items above which the pair is significant: the
    paired t test's, which paired randomisation follows; on a few items the normal one's would
    call a wide gap significant long before the randomisation test can."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return t_critical(alpha, np.maximum(items - 1, 1)) * spread / np.sqrt(items)


def decision_doubt(sums, *, alpha=0.05):
    """(doubt, significant at the end) as systems x systems matrices, from `pair_sums`:
    the probability that the pair's significance now is not its significance at the end of its
    plan, and the probability that it is significant then (module docstring)."""
    shared, difference, squares, shared_planned = (
        np.asarray(sums[key], dtype=float) for key in ("shared", "difference", "squares", "shared_planned")
    )
    shared_done, _count_done = done_sums(sums)
    with np.errstate(invalid="ignore", divide="ignore"):
        gap = np.abs(difference / shared)
        spread = np.sqrt(_variance(shared, difference, squares))
        clear = significance_threshold(spread, shared, alpha) + MARGIN * spread / np.sqrt(shared)
        now = (gap > clear) & (shared >= 2 * fewest_items(alpha))
        threshold = significance_threshold(spread, shared_planned, alpha)
        left = spread * np.sqrt(np.clip(1 - shared_done / np.maximum(shared_planned, 1), 0, 1) / shared)
        at_end = np.where(
            left > 1e-12,
            # special.ndtr: stats.norm's cdf (and sf of the negated argument) without its checks.
            special.ndtr((gap - threshold) / left) + special.ndtr((-threshold - gap) / left),
            (gap > threshold).astype(float),
        )
    at_end = np.where(shared > 1, np.nan_to_num(at_end, nan=0.0), 0.0)
    # All its planned ratings: the decision is the plan's (the margin no longer applies).
    doubt = np.where((shared > 1) & (shared_done < shared_planned), np.where(now, 1 - at_end, at_end), 0.0)
    np.fill_diagonal(doubt, 0.0)
    np.fill_diagonal(at_end, 0.0)
    return doubt, at_end, np.where(shared > 1, now, False)


def boundary_doubt(means, at_end, now, *, higher_is_better=True):
    """Systems x systems matrix: for each pair, the most doubt over the positions of the current
    order it lies across, that a boundary falls there at the end of the plan (every pair across
    significant; the product of their chances) when none falls now, or that none falls at the
    end when one falls now (every pair across significant now)."""
    scored = np.flatnonzero(~np.isnan(means))
    order = scored[np.argsort(-means[scored] if higher_is_better else means[scored], kind="stable")]
    doubt = np.zeros(at_end.shape)
    for position in range(1, len(order)):
        block = np.ix_(order[:position], order[position:])
        boundary = at_end[block].prod()
        doubt[block] = np.maximum(doubt[block], 1 - boundary if now[block].all() else boundary)
    return np.maximum(doubt, doubt.T)


def cluster_doubt_from_sums(sums, *, alpha=0.05, higher_is_better=True):
    """Systems x systems matrix (symmetric) of the `clusters` policy's doubt, from `pair_sums` (or
    the lists a live study stores of them): a pair's order doubt (doubt.order_doubt), or its
    significance decision's doubt where the boundary it may make or unmake is in doubt, whichever
    is more."""
    total, count = (np.asarray(sums[key], dtype=float) for key in ("total", "count"))
    decision, at_end, now = decision_doubt(sums, alpha=alpha)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = total / count
    position = boundary_doubt(means, at_end, now, higher_is_better=higher_is_better)
    # A pair's decision counts as much as the boundary it may make or unmake is in doubt.
    return np.maximum(doubt_from_sums(sums), np.minimum(decision, position))


def clusters_order(scores, rng, *, warmup=5, settled=SETTLED, alpha=0.05, higher_is_better=True):
    """Cells in the order the `clusters` policy buys them (module docstring): after each pair, the
    pair whose order or significance decision is most in doubt (the decision only where a boundary
    may fall), until no doubt is above `settled`."""
    return pair_by_pair_order(
        scores,
        rng,
        lambda sums: most_doubtful_pair(
            cluster_doubt_from_sums(sums, alpha=alpha, higher_is_better=higher_is_better),
            rng,
            settled=settled,
        ),
        warmup=warmup,
    )
