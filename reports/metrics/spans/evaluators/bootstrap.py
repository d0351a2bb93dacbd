"""95% percentile bootstrap intervals over documents, the same draws for every evaluator and category."""

import numpy as np

from .scores import ratios
from .terms import SCORED

# Bootstrap draws held in memory at once (resamples x documents).
# A few MB, filled by a study of a few hundred documents already: small and large studies use the same.
_DRAWS_PER_BLOCK = 1 << 18  # keeps int32 draw numbers well inside range, and the memory flat


def bootstrap_bounds(rng, counts, references, resamples):
    """95% percentile bounds: [reference, evaluator, level, category or all, score, (low, high)].

    NaN where there is no interval: the reference has fewer than two
    documents, or the score is undefined in every resample. References
    with the same documents share their draws.
    """
    reference_count, evaluators, levels, categories, _, _ = counts.shape
    bounds = np.full((reference_count, evaluators, levels, categories + 1, len(SCORED), 2), np.nan)
    groups = {}
    for reference in range(reference_count):
        drawn = np.flatnonzero(references[reference])
        if len(drawn) >= 2 and resamples and evaluators:
            groups.setdefault(drawn.tobytes(), (drawn, []))[1].append(reference)
    for drawn, members in groups.values():
        values, columns = _distinct_rows(counts[members][..., drawn].reshape(-1, len(drawn)))
        # float32 sums integers exactly below 2**24, and twice as fast.
        exact = len(drawn) * int(values.max(initial=0)) < 1 << 24
        values = values.astype(np.float32 if exact else np.float64)
        # einsum rather than a matrix product: BLAS threads would compete with other work on the machine.
        sums = np.concatenate(
            [
                np.einsum("kd,dr->kr", values, block.astype(values.dtype, copy=False))
                for block in _draw(rng, len(drawn), resamples)
            ],
            axis=1,
        )
        sums = sums[columns].T.astype(np.float64)
        sums = sums.reshape(resamples, len(members), evaluators, levels, categories, 3)
        sums = np.concatenate([sums, sums.sum(axis=4, keepdims=True)], axis=4)
        bounds[members] = percentiles(np.stack(ratios(sums[..., 0], sums[..., 1], sums[..., 2]), axis=-1))
    return bounds


def _distinct_rows(rows):
    """The distinct rows, and for each row its distinct one's number.

    Many rows repeat (a reference's counts for every evaluator, say), and
    each distinct one needs resampling once.
    """
    numbers = {}
    which = np.array([numbers.setdefault(row.tobytes(), len(numbers)) for row in rows], dtype=np.int64)
    firsts = np.zeros(len(numbers), dtype=np.int64)
    firsts[which[::-1]] = np.arange(len(rows))[::-1]
    return rows[firsts], which


def _draw(rng, documents, resamples):
    """Resamples of ``documents`` documents with replacement, as how often each was drawn.

    Blocks of a (documents x resamples) matrix, so that summing per-document
    counts over every resample is one product per block.
    """
    block = max(1, _DRAWS_PER_BLOCK // documents)
    for start in range(0, resamples, block):  # a block at a time: one block in memory, whatever the study
        size = min(block, resamples - start)
        draws = rng.integers(0, documents, size=(size, documents), dtype=np.int32)
        draws *= size
        draws += np.arange(size, dtype=np.int32)[:, None]  # document * size + resample
        times = np.bincount(draws.ravel(), minlength=documents * size)
        del draws
        yield times.reshape(documents, size).astype(np.float32)


def percentiles(values, shares=(0.025, 0.975)):
    """Percentiles along the first axis leaving NaN out, interpolated linearly (numpy's default method).

    The last axis of the result holds one value per share; NaN where every value is NaN.
    """
    shape = values.shape[1:]
    ordered = np.ascontiguousarray(values.reshape(len(values), -1).T)
    ordered.sort(axis=1)  # NaN sorts last
    defined = np.count_nonzero(~np.isnan(ordered), axis=1)
    rows = np.arange(len(ordered))
    results = []
    for share in shares:
        position = np.maximum(defined - 1, 0) * share
        below = np.floor(position).astype(np.int64)
        above = np.minimum(below + 1, np.maximum(defined - 1, 0))
        low, high = ordered[rows, below], ordered[rows, above]
        results.append(low + (high - low) * (position - below))
    results = np.stack(results, axis=-1)
    results[defined == 0] = np.nan
    return results.reshape(*shape, len(shares))
