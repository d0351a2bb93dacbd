"""Agreement between annotators on the same pair, and change between a worker's main and retest choice.

A judgment's value is the document that won, or a tie, whatever side the
document was shown on: "left" for (d1, d2) and "right" for (d2, d1) are
the same value, d1.

Alpha. Units are pairs; but coding a value by its document id, as it
first seems natural, breaks Krippendorff's chance model: expected
disagreement pools values over all units, and the documents of different
pairs never match, so it comes out near 1 and two annotators picking at
random would score an alpha near 0.5. The value is therefore coded
relative to the pair, "its first document won" / tie / "its second
document won", and every pair enters once in each orientation (the
second as a mirrored unit). The expected disagreement is then that of
annotators who pick either document of a pair equally often at random
and tie at the observed rate, whatever order the pair's documents are
taken in; random picks give alpha near 0. Observed agreement is
unchanged: two annotators agree on a pair exactly when they agree on the
document (or tie).
"""

from dataclasses import dataclass

import numpy as np

from reports.metrics.alpha import alpha_from_triples
from reports.metrics.ratings.agreement import change_rate_pct as changed_units_pct

NO_REPEATED_PAIR = "no pair was judged by two or more annotators"
NO_RETEST_PAIR = "no retest choice matches a main choice of the same worker and pair"


def pair_alpha(comparisons):
    """Nominal Krippendorff's alpha of the winners of the pairs (see the module); an AlphaResult.

    Every pair enters twice (once mirrored), so the result's
    ``pairable_units`` and ``pairable_values`` count each pair and value
    twice.
    """
    pair = comparisons.pair
    return alpha_from_triples(
        np.concatenate([comparisons.annotator, comparisons.annotator]),
        np.concatenate([pair, -1 - pair]),
        np.concatenate([comparisons.first_score, 1.0 - comparisons.first_score]),
        "nominal",
    )


@dataclass(frozen=True)
class PairAgreement:
    """% of the ``pairs`` judged by two or more annotators on which all of them agree."""

    pct: float | None
    reason: str | None
    pairs: int


def agreement_pct(comparisons):
    """% of pairs with two or more annotators whose annotators all chose the same winner (or a tie)."""
    _, judgments = np.unique(comparisons.pair, return_counts=True)
    repeated = int(np.count_nonzero(judgments >= 2))
    if not repeated:
        return PairAgreement(None, NO_REPEATED_PAIR, 0)
    changed, _ = changed_units_pct(comparisons.pair, comparisons.first_score)
    return PairAgreement(100.0 - changed, None, repeated)


@dataclass(frozen=True)
class RetestChange:
    """% of the ``pairs`` (worker, pair) judged in both main and retest whose winner changed."""

    pct: float | None
    reason: str | None
    pairs: int
    changed: int


def change_rate_pct(main, retest):
    """Test-retest change of pairwise choices: the share of a worker's re-judged pairs with a new winner.

    ``main`` and ``retest`` are the :class:`Comparisons` of the study's main
    and retest choices. A (worker, pair) counts when the worker judged the
    pair in both, whatever sides it was shown on each time; its winner
    changed when the document that won differs, or one of the two choices
    is a tie and the other is not.
    """
    first = {
        (main.annotators[annotator], pair): score
        for annotator, pair, score in zip(main.annotator, main.pair, main.first_score, strict=True)
    }
    matched = changed = 0
    for annotator, pair, score in zip(retest.annotator, retest.pair, retest.first_score, strict=True):
        before = first.get((retest.annotators[annotator], pair))
        if before is not None:
            matched += 1
            changed += int(before != score)
    if not matched:
        return RetestChange(None, NO_RETEST_PAIR, 0, 0)
    return RetestChange(100.0 * changed / matched, None, matched, changed)
