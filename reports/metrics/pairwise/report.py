"""The pairwise-comparison report: every metric of a :class:`PairwiseStudy` as a JSON-ready dict.

Scores, agreement and split-half reliability use the main choices (the
last one per annotator and pair); retest choices are used only for the
change rate. Undefined values are null with a sibling ``<key>_reason``.
"""

import numpy as np

from reports.metrics.nullable import put_value
from reports.metrics.pairwise.agreement import agreement_pct, change_rate_pct, pair_alpha
from reports.metrics.pairwise.bradley_terry import bradley_terry
from reports.metrics.pairwise.data import Comparisons
from reports.metrics.pairwise.ranks import average_rank
from reports.metrics.pairwise.split_half import win_rate_shr
from reports.metrics.pairwise.win_rates import win_rates
from reports.metrics.ranking import item_means, rank_systems
from reports.metrics.ratings.data import MAIN, RETEST

PAIRWISE = "pairwise"


def pairwise_report(study):
    """Every pairwise metric of ``study`` (a :class:`PairwiseStudy`) as a JSON-ready dict."""
    main = Comparisons(study, MAIN)
    report = {
        "protocol": PAIRWISE,
        "choices": len(main),
        "annotators": len(main.annotators),
        "blocks": len(np.unique(main.block)),
        "inputs": len(np.unique(main.input)),
        "pairs": len(np.unique(main.pair)),
        "ties": int(np.count_nonzero(main.first_score == 0.5)),
        "allow_ties": study.allow_ties,
    }
    if study.strength_max is not None:
        given = main.strength[~np.isnan(main.strength)]
        report["strength_counts"] = {
            str(level): int(np.count_nonzero(given == level)) for level in range(1, study.strength_max + 1)
        }
        report["decisive_choices_without_strength"] = int(
            np.count_nonzero(np.isnan(main.strength) & (main.first_score != 0.5))
        )

    rates = win_rates(main)
    report["win_rates"] = rates
    bt = bradley_terry(main, draws=study.bootstrap_draws, seed=study.seed)
    report["bradley_terry"] = bt
    report["average_rank"] = average_rank(main)

    alpha = pair_alpha(main)
    put_value(report, "alpha_nominal", alpha.alpha, alpha.reason)
    report["pairable_pairs"] = alpha.pairable_units // 2
    agreement = agreement_pct(main)
    put_value(report, "agreement_pct", agreement.pct, agreement.reason)
    report["agreement_pairs"] = agreement.pairs
    put_value(report, "shr", *win_rate_shr(main, splits=study.splits, seed=study.seed))
    change = change_rate_pct(main, Comparisons(study, RETEST))
    put_value(report, "change_rate_pct", change.pct, change.reason)
    report["retest_pairs"] = change.pairs

    report["system_scores"] = {}
    for system, entry in rates["systems"].items():
        scores = {}
        put_value(scores, "win_rate", entry["win_rate"], entry.get("win_rate_reason"))
        if bt["scores"] is None:
            put_value(scores, "bt", None, bt["scores_reason"])
        else:
            put_value(scores, "bt", bt["scores"][system]["score"], bt["scores"][system].get("score_reason"))
        scores["n"] = entry["comparisons"]
        report["system_scores"][system] = scores
    report["ranking"] = rank_systems(input_win_rates(main), seed=study.seed)
    return report


def input_win_rates(comparisons):
    """``{system: {input: win rate}}``: each system's (wins + ties / 2) / comparisons on each
    input, so the ranking compares two systems input by input."""
    systems = comparisons.systems
    first, second = comparisons.first_system.tolist(), comparisons.second_system.tolist()
    inputs, scores = comparisons.input.tolist(), comparisons.first_score.tolist()
    rows = [(systems[a], item, score) for a, item, score in zip(first, inputs, scores, strict=True)]
    rows += [(systems[b], item, 1.0 - score) for b, item, score in zip(second, inputs, scores, strict=True)]
    return item_means(rows, systems)
