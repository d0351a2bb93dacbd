"""The Best-Worst Scaling report (Kiritchenko & Mohammad 2016, 2017; Tang et al. 2022).

Scores, agreement and split-half reliability use the main judgments;
retest judgments are used only for test-retest. A tuple is its set of
documents, whatever order they were shown in; an annotator who judged the
same tuple twice with the same kind counts with the last judgment.

Agreement codes each document of a judged tuple as worst 0 < middle 1 <
best 2. The unit is (tuple, document): the same document judged by several
annotators within the same tuple. A document that appears in several tuples
is as many units, so every annotator gives a unit one code and each code
is read against the same competitors.
"""

from collections import defaultdict

import numpy as np

from reports.metrics.nullable import put_value
from reports.metrics.ranking import item_means, rank_systems
from reports.metrics.ratings.agreement import change_rate_pct, put_alpha
from reports.metrics.ratings.data import BWS, MAIN, RETEST, ItemTable
from reports.metrics.ratings.scores import block_system_totals, score_summary
from reports.metrics.ratings.split_half import split_half_reliability

WORST, MIDDLE, BEST = 0, 1, 2
NO_RETEST_PAIR = "no retest judgment matches a main judgment of the same worker and tuple"
NO_VALUE_SCALE = "the study asks for no value"


def bws_report(study):
    """Every BWS metric of ``study`` (a :class:`RatingStudy`) as a JSON-ready dict."""
    table = ItemTable(study.items)
    value_max = _value_scale(study)
    main = _latest(study, table, MAIN, value_max)
    counting, value, appearances = item_scores(main.values(), table, value_max)
    ranks = item_average_ranks(main.values(), table)
    scored = np.flatnonzero(appearances > 0)
    systems = table.system_of[scored]

    report = {
        "protocol": BWS,
        "judgments": len(main),
        "annotators": len({annotator for annotator, _ in main}),
        "blocks": len(np.unique(table.block_of[scored])),
        "judgments_without_value": sum(judgment.value is None for judgment in main.values()),
    }
    no_value = NO_VALUE_SCALE if value_max is None else "no judged outputs with a value"
    report["system_scores"] = {}
    for number, system in enumerate(table.systems):
        entry = score_summary(counting[scored][systems == number], "judged outputs")
        put_value(entry, "counting", entry["mean"], entry.get("mean_reason"))
        values = value[scored][systems == number]
        values = values[~np.isnan(values)]
        put_value(entry, "value", float(values.mean()) if values.size else None, no_value)
        system_ranks = ranks[scored][systems == number]
        put_value(
            entry,
            "average_rank",
            float(system_ranks.mean()) if system_ranks.size else None,
            "no judged outputs",
        )
        report["system_scores"][system] = entry

    units, annotators, codes = judgment_codes(main)
    alpha = put_alpha(report, "alpha_ordinal", units, annotators, codes, "ordinal")
    report["pairable_units"] = alpha.pairable_units
    put_value(report, "change_rate_pct", *change_rate_pct(units, codes))
    sums, counts = block_system_totals(table, scored, counting[scored])
    put_value(report, "shr", *split_half_reliability(sums, counts, splits=study.splits, seed=study.seed))
    if any(judgment.kind == RETEST for judgment in study.judgments):
        report["test_retest"] = retest_changes(main, _latest(study, table, RETEST, value_max))
    # Ranked by counting score, input by input (each output is one system's answer to one input).
    by_system = item_means(
        (
            (table.systems[table.system_of[number]], study.items[number].input_id, float(counting[number]))
            for number in scored.tolist()
        ),
        table.systems,
    )
    report["ranking"] = rank_systems(by_system, seed=study.seed)
    return report


def _value_scale(study):
    """The top of the value scale: ``value_max``, else the largest value given (None if none)."""
    if study.value_max is not None:
        return study.value_max
    used = (j.value for j in study.judgments if j.kind in (MAIN, RETEST) and j.value is not None)
    return max(used, default=None)


def _latest(study, table, kind, value_max):
    """``{(annotator, tuple): judgment}`` of the judgments of ``kind``, the last one per pair.

    Judgments of other kinds (qualification, ...) are neither used nor checked.
    """
    latest = {}
    for judgment in study.judgments:
        if judgment.kind == kind:
            _check(judgment, table, value_max)
            latest[(judgment.annotator, frozenset(judgment.documents))] = judgment
    return latest


def _check(judgment, table, value_max):
    documents = tuple(judgment.documents)
    label = f"judgment of {judgment.annotator!r} over {documents!r}"
    if len(documents) < 2 or len(set(documents)) < len(documents):
        raise ValueError(f"{label}: a tuple needs two or more distinct documents")
    for document in documents:
        table.find(document, judgment.block)
    if judgment.best not in documents or judgment.worst not in documents:
        raise ValueError(f"{label}: best and worst must be documents of the tuple")
    if judgment.best == judgment.worst:
        raise ValueError(f"{label}: best and worst are the same document")
    if judgment.value is not None and not 1 <= judgment.value <= value_max:
        raise ValueError(f"{label}: value {judgment.value} is outside 1..{value_max}")


def item_scores(judgments, table, value_max):
    """Per item: counting score, value score and number of appearances (main judgments).

    Counting (Kiritchenko & Mohammad): (#best - #worst) / #appearances.
    Value: each judgment weighs its best and worst pick by its value over
    the top of the value scale, ``value / value_max``, so (sum of best
    weights - sum of worst weights) / #appearances in judgments with a
    value, also in [-1, 1]. A judgment without a value is missing for the
    value score: it counts neither as a pick nor as an appearance there.
    Items never judged score 0 and have 0 appearances; callers leave them
    out. An item judged only without values has value NaN.
    """
    size = len(table.number)
    appearances = np.zeros(size, dtype=np.int64)
    valued = np.zeros(size, dtype=np.int64)
    counted = np.zeros(size, dtype=np.float64)
    weighted = np.zeros(size, dtype=np.float64)
    for judgment in judgments:
        numbers = [table.number[document] for document in judgment.documents]
        appearances[numbers] += 1
        best, worst = table.number[judgment.best], table.number[judgment.worst]
        counted[best] += 1.0
        counted[worst] -= 1.0
        if judgment.value is not None:
            valued[numbers] += 1
            weight = judgment.value / value_max
            weighted[best] += weight
            weighted[worst] -= weight
    counting = np.divide(counted, appearances, out=np.zeros(size), where=appearances > 0)
    value = np.divide(weighted, valued, out=np.full(size, np.nan), where=valued > 0)
    return counting, value, appearances


def item_average_ranks(judgments, table):
    """Per item: the mean rank (1 = best) it got in the tuples that show it; NaN if none.

    In a tuple of n only best and worst are picked, so the best ranks 1,
    the worst n, and the n - 2 others share the ranks between: each gets
    their mean, (n + 1) / 2 (in a 4-tuple, 2.5).
    """
    size = len(table.number)
    appearances = np.zeros(size, dtype=np.int64)
    rank_sums = np.zeros(size, dtype=np.float64)
    for judgment in judgments:
        n = len(judgment.documents)
        for document in judgment.documents:
            number = table.number[document]
            appearances[number] += 1
            if document == judgment.best:
                rank_sums[number] += 1.0
            elif document == judgment.worst:
                rank_sums[number] += n
            else:
                rank_sums[number] += (n + 1) / 2
    return np.divide(rank_sums, appearances, out=np.full(size, np.nan), where=appearances > 0)


def judgment_codes(latest):
    """Parallel arrays (unit, annotator, code) of ``{(annotator, tuple): judgment}``.

    Unit = (tuple, document), numbered in order of first appearance; code:
    worst 0, middle 1, best 2.
    """
    unit_numbers, annotator_numbers = {}, {}
    units, annotators, codes = [], [], []
    for (annotator, tuple_key), judgment in latest.items():
        coder = annotator_numbers.setdefault(annotator, len(annotator_numbers))
        for document in judgment.documents:
            units.append(unit_numbers.setdefault((tuple_key, document), len(unit_numbers)))
            annotators.append(coder)
            if document == judgment.best:
                codes.append(BEST)
            elif document == judgment.worst:
                codes.append(WORST)
            else:
                codes.append(MIDDLE)
    return (
        np.array(units, dtype=np.int64),
        np.array(annotators, dtype=np.int64),
        np.array(codes, dtype=np.float64),
    )


def retest_changes(main, retest):
    """Share of retest judgments whose best or worst pick differs from the worker's main judgment.

    A retest judgment is matched to the main judgment of the same worker over
    the same tuple (the same set of documents). ``changed_pct`` pools all
    matched pairs; ``best_changed_pct`` and ``worst_changed_pct`` count each
    pick on its own.
    """
    pairs = defaultdict(list)
    for key, second in retest.items():
        first = main.get(key)
        if first is not None:
            pairs[key[0]].append((first.best != second.best, first.worst != second.worst))
    matched = [pair for worker_pairs in pairs.values() for pair in worker_pairs]
    result = {}

    def percent(flags):
        return 100.0 * sum(flags) / len(flags) if flags else None

    put_value(result, "changed_pct", percent([best or worst for best, worst in matched]), NO_RETEST_PAIR)
    put_value(result, "best_changed_pct", percent([best for best, _ in matched]), NO_RETEST_PAIR)
    put_value(result, "worst_changed_pct", percent([worst for _, worst in matched]), NO_RETEST_PAIR)
    result["workers"] = len(pairs)
    result["pairs"] = len(matched)
    result["by_worker"] = {
        worker: {
            "changed_pct": percent([best or worst for best, worst in pairs[worker]]),
            "pairs": len(pairs[worker]),
        }
        for worker in sorted(pairs)
    }
    return result
