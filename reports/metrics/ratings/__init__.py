"""Rating-study metrics: Likert and Best-Worst Scaling (Tang et al. 2022).

- :func:`rating_report`: the whole report of a :class:`RatingStudy` as a dict;
- :func:`split_half_reliability`: SHR from block x system score totals;
- :func:`item_scores`: BWS counting and value scores per item;
- :func:`range_overlap`: the scale-overlap ratio of two rating ranges.
"""

from reports.metrics.ratings.bws import item_scores
from reports.metrics.ratings.data import BWS, LIKERT, MAIN, RETEST, Item, Judgment, Rating, RatingStudy
from reports.metrics.ratings.likert import range_overlap
from reports.metrics.ratings.report import rating_report
from reports.metrics.ratings.split_half import all_splits, random_splits, split_count, split_half_reliability

__all__ = [
    "BWS",
    "LIKERT",
    "MAIN",
    "RETEST",
    "Item",
    "Judgment",
    "Rating",
    "RatingStudy",
    "all_splits",
    "item_scores",
    "random_splits",
    "range_overlap",
    "rating_report",
    "split_count",
    "split_half_reliability",
]
