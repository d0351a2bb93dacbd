"""Bradley-Terry scores of systems (Bradley & Terry 1952), with bootstrap intervals over inputs.

Model: system i beats system j with probability
sigma(theta_i - theta_j) = 1 / (1 + exp(theta_j - theta_i)). A system's
``score`` is its log-strength theta, centred so that the scores of the
compared systems have mean 0; ``strength`` = exp(score) (geometric mean 1)
and ``p_beats[a][b]`` = sigma(score_a - score_b).

Ties: half a win for each system, as in the win rates. The comparison
matrix ``c[i, j]`` (wins of i over j) gets 0.5 in both cells for a tie, and
the fit maximises sum_ij c[i, j] log sigma(theta_i - theta_j) with choix's
I-LSR on that dense matrix (Maystre & Grossglauser 2015), with a small
regularisation ``alpha`` (choix adds it to every rate of its Markov chain)
that keeps degenerate bootstrap draws finite and moves the estimate of
well-posed data by far less than 1e-3.

Existence: the maximum-likelihood scores exist, unique up to the shift,
only when the graph with an edge i -> j whenever i won (or tied) at least
once against j is strongly connected (Zermelo 1929; Ford 1957). Otherwise,
say when a system lost every comparison or the systems fall into groups
never compared with each other, the scores are null with a reason.

Intervals: nonparametric bootstrap over inputs. The inputs with
comparisons are drawn with replacement ``draws`` times (numpy
``default_rng(seed)``); a draw keeps every comparison of every drawn input,
as many times as it was drawn, and is fitted and centred like the data.
The interval is the percentile interval of the draws' scores. Draws whose
data break the existence condition are still fitted (``alpha`` keeps them
finite) and counted in ``degenerate_draws``: when they are more than a few
per cent, the interval's far ends are set by ``alpha`` rather than by the
data.
"""

import warnings

import choix
import numpy as np
from scipy.sparse.csgraph import connected_components

from reports.metrics.nullable import put_value

ALPHA = 1e-4
DRAWS = 1000
LEVEL = 0.95
TIE_RULE = "a tie is half a win for each system"
NO_COMPARISONS = "no comparisons"
TOO_FEW_SYSTEMS = "fewer than two systems have comparisons"
NOT_CONVERGED = "the Bradley-Terry fit did not converge"
NO_DRAWS = "no bootstrap draw was fitted"
# I-LSR stops when successive estimates differ by less than this (L1 norm).
_TOLERANCE = 1e-8
_MAX_ITERATIONS = 1000


def bradley_terry(comparisons, *, draws=DRAWS, seed=0, alpha=ALPHA, level=LEVEL):
    """Bradley-Terry scores of every system with ``level`` bootstrap percentile intervals.

    ``comparisons`` is a :class:`Comparisons` (the main choices). Returns
    ``{"scores": {system: {"score", "strength", "ci_low", "ci_high"}},
    "p_beats": {a: {b: p}}, ...}`` with the settings and the bootstrap
    counts: ``draws`` asked for, ``draws_used`` (draws that could be
    fitted), ``degenerate_draws`` (see the module). ``scores`` and
    ``p_beats`` are null with a ``_reason`` when the scores do not exist;
    a system without comparisons has null values of its own.
    """
    if not 0 < level < 1:
        raise ValueError(f"level must be between 0 and 1, not {level!r}")
    if draws < 0:
        raise ValueError("draws must not be negative")
    systems = comparisons.systems
    per_input = input_matrices(comparisons)
    totals = per_input.sum(axis=0)
    compared = np.flatnonzero((totals + totals.T).sum(axis=1) > 0)
    totals = totals[np.ix_(compared, compared)]
    names = [systems[number] for number in compared]
    result = {
        "tie_rule": TIE_RULE,
        "alpha": alpha,
        "level": level,
        "inputs": len(per_input),
        "systems_compared": len(compared),
        "draws": draws,
        "draws_used": 0,
        "degenerate_draws": 0,
    }
    reason = missing_scores_reason(totals, names)
    point = None if reason else fit_scores(totals, alpha)
    if point is None:
        reason = reason or NOT_CONVERGED
        put_value(result, "scores", None, reason)
        put_value(result, "p_beats", None, reason)
        return result

    samples, degenerate = _bootstrap(per_input[:, compared][:, :, compared], draws, seed, alpha)
    result["draws_used"] = len(samples)
    result["degenerate_draws"] = degenerate
    tail = 100 * (1 - level) / 2
    bounds = np.percentile(samples, [tail, 100 - tail], axis=0) if len(samples) else None
    position = {number: index for index, number in enumerate(compared)}
    scores = {}
    for number, system in enumerate(systems):
        index = position.get(number)
        entry = {}
        if index is None:
            for key in ("score", "strength", "ci_low", "ci_high"):
                put_value(entry, key, None, NO_COMPARISONS)
        else:
            entry = {"score": float(point[index]), "strength": float(np.exp(point[index]))}
            put_value(entry, "ci_low", None if bounds is None else float(bounds[0, index]), NO_DRAWS)
            put_value(entry, "ci_high", None if bounds is None else float(bounds[1, index]), NO_DRAWS)
        scores[system] = entry
    result["scores"] = scores
    result["p_beats"] = {
        name: {other: float(_sigmoid(point[i] - point[j])) for j, other in enumerate(names) if j != i}
        for i, name in enumerate(names)
    }
    return result


def input_matrices(comparisons):
    """Inputs x systems x systems: ``c[u, i, j]`` = wins of i over j in input u, a tie 0.5 each way.

    Only the inputs with comparisons are kept, in order of their numbers.
    """
    size = len(comparisons.systems)
    inputs, numbered = np.unique(comparisons.input, return_inverse=True)
    cells = numbered * size * size
    score = comparisons.first_score
    first, second = comparisons.first_system, comparisons.second_system
    won = np.bincount(
        np.concatenate([cells + first * size + second, cells + second * size + first]),
        weights=np.concatenate([score, 1.0 - score]),
        minlength=len(inputs) * size * size,
    )
    return won.reshape(len(inputs), size, size)


def missing_scores_reason(won, names):
    """Why the ML scores of the ``won`` matrix (wins of row over column) do not exist, or None."""
    if len(names) < 2:
        return TOO_FEW_SYSTEMS
    groups, labels = connected_components(won + won.T > 0, directed=False)
    if groups > 1:
        parts = " | ".join(", ".join(_members(names, labels, group)) for group in range(groups))
        return f"the systems fall into groups never compared with each other: {parts}"
    beats = won > 0
    groups, labels = connected_components(beats, directed=True, connection="strong")
    if groups == 1:
        return None
    winners, losers, losing_groups = [], [], []
    for group in range(groups):
        inside = labels == group
        members = _members(names, labels, group)
        if not beats[np.ix_(inside, ~inside)].any():
            (losers if len(members) == 1 else losing_groups).append(members)
        elif not beats[np.ix_(~inside, inside)].any() and len(members) == 1:
            winners.append(members)
    # Single systems say it best; a group that never beat the rest is named only when no single system is.
    problems = [f"{members[0]} won every comparison" for members in sorted(winners)]
    problems += [f"{members[0]} lost every comparison" for members in sorted(losers)]
    if not problems:
        problems = [
            f"{', '.join(members)} lost every comparison against the other systems"
            for members in sorted(losing_groups)
        ]
    return "no Bradley-Terry scores exist: " + "; ".join(problems)


def scores_exist(won):
    """Do the ML scores of ``won`` exist: two or more systems and a strongly connected win graph?"""
    return len(won) >= 2 and connected_components(won > 0, directed=True, connection="strong")[0] == 1


def fit_scores(won, alpha=ALPHA):
    """Centred log-strengths maximising the (regularised) Bradley-Terry likelihood of ``won``, or None."""
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            scores = choix.ilsr_pairwise_dense(
                np.asarray(won, dtype=np.float64), alpha=alpha, max_iter=_MAX_ITERATIONS, tol=_TOLERANCE
            )
    except (RuntimeError, ValueError, np.linalg.LinAlgError):
        return None
    if not np.all(np.isfinite(scores)):
        return None
    return scores - scores.mean()


def _bootstrap(per_input, draws, seed, alpha):
    """Centred scores of ``draws`` resamples of the inputs, and how many of them were degenerate."""
    rng = np.random.default_rng(seed)
    inputs, size = per_input.shape[0], per_input.shape[1]
    flat = per_input.reshape(inputs, size * size)
    samples, degenerate = [], 0
    for _ in range(draws):
        weights = np.bincount(rng.integers(0, inputs, inputs), minlength=inputs)
        won = (weights @ flat).reshape(size, size)
        if not scores_exist(won):
            degenerate += 1
        scores = fit_scores(won, alpha)
        if scores is not None:
            samples.append(scores)
    return np.array(samples).reshape(len(samples), size), degenerate


def _members(names, labels, group):
    return [str(names[index]) for index in np.flatnonzero(labels == group)]


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))
