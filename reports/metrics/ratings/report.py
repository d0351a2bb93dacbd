"""The rating-study report: Likert or BWS, by the study's protocol.

Key layout: DESIGN.md "Report JSON"; definitions and choices: METRICS.md
and docs/metrics.md ("Rating studies").
"""

from reports.metrics.ratings.bws import bws_report
from reports.metrics.ratings.data import BWS, LIKERT
from reports.metrics.ratings.likert import likert_report


def rating_report(study):
    """Every metric of a Likert or BWS ``study`` (a :class:`RatingStudy`) as a JSON-ready dict."""
    if study.protocol == LIKERT:
        return likert_report(study)
    if study.protocol == BWS:
        return bws_report(study)
    raise ValueError(f"protocol must be {LIKERT!r} or {BWS!r}, not {study.protocol!r}")
