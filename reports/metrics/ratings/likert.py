"""The Likert-study report (Tang et al. 2022, following Steen & Markert 2021).

Scores, agreement, scale overlap and split-half reliability use the main
ratings; retest ratings are used only for test-retest. An annotator who
rated the same document twice with the same kind counts with the last
rating.
"""

from collections import defaultdict
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from reports.metrics.nullable import put_value
from reports.metrics.ranking import item_means, rank_stability, rank_systems, z_normalised
from reports.metrics.ratings.agreement import change_rate_pct, put_alpha
from reports.metrics.ratings.binarised import binarised_alpha
from reports.metrics.ratings.data import LIKERT, MAIN, RETEST, ItemTable
from reports.metrics.ratings.scores import block_system_totals, score_summary
from reports.metrics.ratings.split_half import split_half_reliability

NO_ANNOTATOR_PAIR = "no block has two annotators with ratings"
NO_RETEST_PAIR = "no retest rating matches a main rating of the same worker and document"
NOT_INTEGER_POINTS = "scores or scale bounds are not whole scale points"


def likert_report(study):
    """Every Likert metric of ``study`` (a :class:`RatingStudy`) as a JSON-ready dict."""
    table = ItemTable(study.items)
    main = _latest(study, table, MAIN)
    annotator_names = sorted({annotator for annotator, _ in main})
    annotator_numbers = {name: number for number, name in enumerate(annotator_names)}
    annotators = np.array([annotator_numbers[annotator] for annotator, _ in main], dtype=np.int64)
    items = np.array([table.number[document] for _, document in main], dtype=np.int64)
    scores = np.array(list(main.values()), dtype=np.float64)
    systems = table.system_of[items]

    report = {
        "protocol": LIKERT,
        "ratings": len(scores),
        "annotators": len(annotator_names),
        "blocks": len(np.unique(table.block_of[items])),
    }
    report["system_scores"] = {
        system: score_summary(scores[systems == number], "ratings")
        for number, system in enumerate(table.systems)
    }
    alpha = put_alpha(report, "alpha_ordinal", items, annotators, scores, "ordinal")
    put_alpha(report, "alpha_interval", items, annotators, scores, "interval")
    report["pairable_units"] = alpha.pairable_units
    put_value(report, "change_rate_pct", *change_rate_pct(items, scores))
    blocks = table.block_of[items]
    overlap = scale_overlap(blocks, annotators, scores)
    put_value(report, "scale_overlap", overlap.mean, overlap.reason)
    report["scale_overlap_pairs"] = overlap.pairs
    report["scale_overlap_zero_length_pairs"] = overlap.zero_length_pairs
    if _integer_scale(study, scores):
        points = scale_overlap(blocks, annotators, scores, integer_points=True)
        put_value(report, "scale_overlap_points", points.mean, points.reason)
    else:
        put_value(report, "scale_overlap_points", None, NOT_INTEGER_POINTS)
    report["binarised"] = binarised_alpha(items, annotators, scores, *_scale_bounds(study, scores))
    sums, counts = block_system_totals(table, items, scores)
    put_value(report, "shr", *split_half_reliability(sums, counts, splits=study.splits, seed=study.seed))
    if any(rating.kind == RETEST for rating in study.ratings):
        report["test_retest"] = retest_differences(main, _latest(study, table, RETEST))
    rated = [
        (table.systems[table.system_of[item]], study.items[item].input_id, annotator_names[annotator], score)
        for item, annotator, score in zip(items.tolist(), annotators.tolist(), scores.tolist(), strict=True)
    ]
    report["ranking"] = ranking_of(rated, table, seed=study.seed)
    # Each annotator's ratings standardised first (DA practice): a harsh and a lenient annotator
    # who order the outputs alike then count alike.
    report["ranking_z"] = ranking_of(z_normalised(rated), table, seed=study.seed)
    return report


def ranking_of(rated, table, *, seed):
    """The ranking of ``(system, input, annotator, score)`` rows, with its rank stability.

    The ranking's items are the inputs, which every system answered: a pair of systems
    is compared input by input, each output counting once (its mean over its annotators).
    """
    by_system = item_means(((system, input_id, score) for system, input_id, _, score in rated), table.systems)
    ranking = rank_systems(by_system, seed=seed)
    ranking["stability"] = rank_stability(rated, seed=seed)
    return ranking


def _latest(study, table, kind):
    """``{(annotator, document): score}`` of the ratings of ``kind``, the last one per pair.

    Ratings of other kinds (qualification, ...) are neither used nor checked.
    """
    latest = {}
    for rating in study.ratings:
        if rating.kind != kind:
            continue
        table.find(rating.document, rating.block)
        if not np.isfinite(rating.score):
            raise ValueError(f"{rating.document}: score {rating.score!r} is not a number")
        if study.scale_min is not None and rating.score < study.scale_min:
            raise ValueError(f"{rating.document}: score {rating.score} is below the scale")
        if study.scale_max is not None and rating.score > study.scale_max:
            raise ValueError(f"{rating.document}: score {rating.score} is above the scale")
        latest[(rating.annotator, rating.document)] = float(rating.score)
    return latest


def _integer_scale(study, scores):
    bounds = [bound for bound in (study.scale_min, study.scale_max) if bound is not None]
    return all(float(value).is_integer() for value in bounds) and bool(np.all(scores == np.round(scores)))


def _scale_bounds(study, scores):
    """The scale's lowest and highest point: the study's bounds, else the scores' own."""
    low = study.scale_min if study.scale_min is not None else (scores.min() if scores.size else None)
    high = study.scale_max if study.scale_max is not None else (scores.max() if scores.size else None)
    return low, high


def range_overlap(first, second, integer_points=False):
    """Scale overlap of two closed rating ranges ``(low, high)`` (Tang et al. 2022, Table 4).

    The length of their overlap divided by the length of the overall range
    of both, from the lower low to the higher high, lengths being
    ``high - low``: [1, 3] against [2, 5] gives 1/4, disjoint ranges give 0.
    When the overall range has length 0 (both are one and the same single
    point) the ratio is 1.

    With ``integer_points`` (not the paper's figure) a range is the set of
    scale points it covers, so every length gets + 1: [1, 3] against [2, 5]
    gives 2/5 and [3, 3] against [2, 4] gives 1/3.
    """
    pad = 1.0 if integer_points else 0.0
    overlap = max(0.0, min(first[1], second[1]) - max(first[0], second[0]) + pad)
    overall = max(first[1], second[1]) - min(first[0], second[0]) + pad
    if overall == 0:
        return 1.0
    return overlap / overall


@dataclass(frozen=True)
class ScaleOverlap:
    """Mean overlap over ``pairs`` (block, annotator pair) combinations, or None with ``reason``.

    ``zero_length_pairs``: pairs whose overall range has length 0, counted as 1.
    """

    mean: float | None
    reason: str | None
    pairs: int
    zero_length_pairs: int


def scale_overlap(blocks, annotators, scores, integer_points=False):
    """Mean of :func:`range_overlap` over every pair of annotators within every block.

    An annotator's range in a block is [min, max] of their ratings there.
    The mean is pooled over all (block, pair) combinations (Tang et al. 2022
    give one mean over pairs and blocks). ``mean`` is None with a reason when
    no block has two annotators.
    """
    ranges = {}
    for block, annotator, score in zip(blocks.tolist(), annotators.tolist(), scores.tolist(), strict=True):
        low, high = ranges.get((block, annotator), (score, score))
        ranges[(block, annotator)] = (min(low, score), max(high, score))
    by_block = defaultdict(list)
    for (block, _), scale_range in sorted(ranges.items()):
        by_block[block].append(scale_range)
    pairs = [pair for block_ranges in by_block.values() for pair in combinations(block_ranges, 2)]
    if not pairs:
        return ScaleOverlap(None, NO_ANNOTATOR_PAIR, 0, 0)
    ratios = [range_overlap(first, second, integer_points) for first, second in pairs]
    zero_length = 0
    if not integer_points:
        zero_length = sum(first == second and first[0] == first[1] for first, second in pairs)
    return ScaleOverlap(float(np.mean(ratios)), None, len(pairs), zero_length)


def retest_differences(main, retest):
    """Test-retest change of Likert ratings (Tang et al. 2022).

    ``main`` and ``retest`` map (annotator, document) to a score; a pair is a
    document rated by the same worker in both. ``mean_abs_change_pooled``
    is the paper's "average change of rating": mean |first - second| over
    all pairs. ``mean_abs_diff`` is the same per worker, then averaged over
    workers, so every worker weighs the same however many pairs they have.
    """
    differences = defaultdict(list)
    for (annotator, document), second in retest.items():
        first = main.get((annotator, document))
        if first is not None:
            differences[annotator].append(abs(first - second))
    by_worker = {
        worker: {"mean_abs_diff": float(np.mean(differences[worker])), "pairs": len(differences[worker])}
        for worker in sorted(differences)
    }
    pooled = [difference for worker in by_worker for difference in differences[worker]]
    result = {}
    put_value(result, "mean_abs_change_pooled", float(np.mean(pooled)) if pooled else None, NO_RETEST_PAIR)
    mean = float(np.mean([entry["mean_abs_diff"] for entry in by_worker.values()])) if by_worker else None
    put_value(result, "mean_abs_diff", mean, NO_RETEST_PAIR)
    result["workers"] = len(by_worker)
    result["pairs"] = len(pooled)
    result["by_worker"] = by_worker
    return result
