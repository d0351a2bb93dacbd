"""Pairwise-comparison metrics: two outputs of the same input side by side, pick one or a tie.

- :func:`pairwise_report`: the whole report of a :class:`PairwiseStudy` as a dict;
- :class:`Comparisons`: the judged pairs of one kind of choice, as arrays,
  which every metric below takes;
- :func:`win_rates`, :func:`bradley_terry`, :func:`average_rank`: system scores;
- :func:`pair_alpha`, :func:`agreement_pct`: agreement between annotators;
- :func:`win_rate_shr`: split-half reliability of the win rates;
- :func:`change_rate_pct`: test-retest change of a worker's choices.

A tie is half a win for each system everywhere (win rates, ranks,
Bradley-Terry, split-half reliability).
"""

from reports.metrics.pairwise.agreement import agreement_pct, change_rate_pct, pair_alpha
from reports.metrics.pairwise.bradley_terry import bradley_terry, fit_scores
from reports.metrics.pairwise.data import LEFT, RIGHT, TIE, Choice, Comparisons, Output, PairwiseStudy
from reports.metrics.pairwise.ranks import average_rank
from reports.metrics.pairwise.report import PAIRWISE, pairwise_report
from reports.metrics.pairwise.split_half import win_rate_shr
from reports.metrics.pairwise.win_rates import win_rates
from reports.metrics.ratings.data import MAIN, RETEST

__all__ = [
    "LEFT",
    "MAIN",
    "PAIRWISE",
    "RETEST",
    "RIGHT",
    "TIE",
    "Choice",
    "Comparisons",
    "Output",
    "PairwiseStudy",
    "agreement_pct",
    "average_rank",
    "bradley_terry",
    "change_rate_pct",
    "fit_scores",
    "pair_alpha",
    "pairwise_report",
    "win_rate_shr",
    "win_rates",
]
