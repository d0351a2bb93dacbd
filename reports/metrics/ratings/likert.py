"""The Likert-study report (Tang et al. 2022, following Steen & Markert 2021).

Scores, agreement, scale overlap and split-half reliability use the main
ratings; retest ratings are used only for test-retest. An annotator who
rated the same document twice with the same kind counts with the last
rating.
"""

from collections import defaultdict
from itertools import combinations

import numpy as np

from reports.metrics.nullable import put_value
from reports.metrics.ratings.agreement import change_rate_pct, put_alpha
from reports.metrics.ratings.data import LIKERT, MAIN, RETEST, ItemTable
from reports.metrics.ratings.scores import block_system_totals, score_summary
from reports.metrics.ratings.split_half import split_half_reliability

NO_ANNOTATOR_PAIR = "no block has two annotators with ratings"
NO_RETEST_PAIR = "no retest rating matches a main rating of the same worker and document"


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
    overlap, reason, pairs = scale_overlap(
        table.block_of[items], annotators, scores, integer_points=_integer_scale(study, scores)
    )
    put_value(report, "scale_overlap", overlap, reason)
    report["scale_overlap_pairs"] = pairs
    sums, counts = block_system_totals(table, items, scores)
    put_value(report, "shr", *split_half_reliability(sums, counts, splits=study.splits, seed=study.seed))
    if any(rating.kind == RETEST for rating in study.ratings):
        report["test_retest"] = retest_differences(main, _latest(study, table, RETEST))
    return report


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


def range_overlap(first, second, integer_points):
    """|overlap| / |union| of two closed rating ranges ``(low, high)``.

    With ``integer_points`` a range is the set of scale points it covers, so
    its length is ``high - low + 1`` and a single-point range has length 1:
    [3, 3] against [2, 4] gives 1/3. Otherwise lengths are ``high - low``; a
    single point then has length 0, so two equal single points give 1 and a
    single point against any other range gives 0.
    """
    pad = 1.0 if integer_points else 0.0
    overlap = max(0.0, min(first[1], second[1]) - max(first[0], second[0]) + pad)
    union = (first[1] - first[0] + pad) + (second[1] - second[0] + pad) - overlap
    if union == 0:
        return 1.0
    return overlap / union


def scale_overlap(blocks, annotators, scores, integer_points):
    """Mean of :func:`range_overlap` over every pair of annotators within every block.

    An annotator's range in a block is [min, max] of their ratings there.
    The mean is pooled over all (block, pair) combinations. Returns
    ``(mean, None, pairs)``, or ``(None, reason, 0)`` when no block has two
    annotators.
    """
    ranges = {}
    for block, annotator, score in zip(blocks.tolist(), annotators.tolist(), scores.tolist(), strict=True):
        low, high = ranges.get((block, annotator), (score, score))
        ranges[(block, annotator)] = (min(low, score), max(high, score))
    by_block = defaultdict(list)
    for (block, _), scale_range in sorted(ranges.items()):
        by_block[block].append(scale_range)
    ratios = [
        range_overlap(first, second, integer_points)
        for block_ranges in by_block.values()
        for first, second in combinations(block_ranges, 2)
    ]
    if not ratios:
        return None, NO_ANNOTATOR_PAIR, 0
    return float(np.mean(ratios)), None, len(ratios)


def retest_differences(main, retest):
    """Mean |first - second| per worker over documents rated in both main and retest, then over workers.

    ``main`` and ``retest`` map (annotator, document) to a score.
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
    result = {}
    mean = float(np.mean([entry["mean_abs_diff"] for entry in by_worker.values()])) if by_worker else None
    put_value(result, "mean_abs_diff", mean, NO_RETEST_PAIR)
    result["workers"] = len(by_worker)
    result["pairs"] = sum(entry["pairs"] for entry in by_worker.values())
    result["by_worker"] = by_worker
    return result
