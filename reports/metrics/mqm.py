"""MQM scores (Freitag et al. 2021, "Experts, Errors, and Context"; ../shared/METRICS.md).

Each error a rater marks has a category (hierarchical, "Accuracy/Mistranslation") and a
severity. A segment's score, per rater, is the sum of its errors' weights (lower is
better); a rated segment with no error scores 0 and counts. A system's score is the mean
over the (segment, rater) pairs it was rated in.

The weights are the study's; the default is the common scheme: Major 5, Minor 1,
Neutral 0, Minor Fluency/Punctuation 0.1, and the whole-segment Non-translation 25
whatever its severity. A severity the weights do not name (e.g. Critical, which the
common scheme leaves to the study) is an error, never a silent 0.
"""

from dataclasses import dataclass, field

NO_ERROR = "no-error"


class WeightMissing(ValueError):
    """An error's severity has no weight in the scheme."""


def _name(text):
    return " ".join(str(text).strip().lower().split())


def is_no_error(category, severity):
    """A "No-error" line: the segment was rated and nothing was found (it scores 0 and counts)."""
    return NO_ERROR in (_name(category), _name(severity))


@dataclass(frozen=True)
class Weights:
    """The weight of an error: by (category, severity) when the scheme names the pair, by
    whole-segment category whatever the severity, else by severity."""

    severities: dict = field(default_factory=lambda: {"major": 5.0, "minor": 1.0, "neutral": 0.0})
    # {(category, severity): weight}; a category names its subcategories too ("fluency" covers
    # "fluency/spelling"), the most specific one wins.
    categories: dict = field(default_factory=lambda: {("fluency/punctuation", "minor"): 0.1})
    whole_segment: dict = field(default_factory=lambda: {"non-translation": 25.0})

    @classmethod
    def from_config(cls, config):
        """From a study's `mqm.weights` config: {"severities": {...}, "categories": {"Fluency/Punctuation":
        {"Minor": 0.1}}, "whole_segment": {"Non-translation": 25}}; parts left out keep the default."""
        default = cls()
        config = config or {}
        severities = {_name(k): float(v) for k, v in config.get("severities", default.severities).items()}
        if "categories" in config:
            categories = {
                (_name(category), _name(severity)): float(weight)
                for category, by_severity in config["categories"].items()
                for severity, weight in by_severity.items()
            }
        else:
            categories = default.categories
        whole = {_name(k): float(v) for k, v in config.get("whole_segment", default.whole_segment).items()}
        return cls(severities, categories, whole)

    def is_whole_segment(self, category):
        """Whether the category covers the whole segment (Non-translation): weighed whatever its severity."""
        return _name(category).rstrip("!") in self.whole_segment

    def weighs(self, severity):
        """The severity's own weight, or None when the scheme has none for it."""
        return self.severities.get(_name(severity))

    def weight(self, category, severity):
        if is_no_error(category, severity):
            return 0.0
        category, severity = _name(category).rstrip("!"), _name(severity)
        if category in self.whole_segment:
            return self.whole_segment[category]
        parts = category.split("/")
        for length in range(len(parts), 0, -1):
            found = self.categories.get(("/".join(parts[:length]), severity))
            if found is not None:
                return found
        if severity not in self.severities:
            raise WeightMissing(
                f"severity {severity!r} has no weight (the scheme weighs {', '.join(sorted(self.severities))})"
            )
        return self.severities[severity]

    def as_config(self):
        """The scheme as the report shows it (JSON-ready)."""
        return {
            "severities": dict(self.severities),
            "categories": [
                {"category": category, "severity": severity, "weight": weight}
                for (category, severity), weight in sorted(self.categories.items())
            ],
            "whole_segment": dict(self.whole_segment),
        }


@dataclass(frozen=True)
class Judgment:
    """One line of an MQM rating: an error (or "No-error") a rater gave a system's segment."""

    system: str
    document: str
    segment: str
    rater: str
    category: str
    severity: str


def segment_scores(judgments, weights=None):
    """{(system, document, segment, rater): score}: each rated segment's sum of weights."""
    weights = weights or Weights()
    scores = {}
    for judgment in judgments:
        key = (judgment.system, judgment.document, judgment.segment, judgment.rater)
        scores[key] = scores.get(key, 0.0) + weights.weight(judgment.category, judgment.severity)
    return scores


def system_scores(scores):
    """{system: (mean over its (segment, rater) pairs, pairs)}."""
    sums, counts = {}, {}
    for (system, *_), score in scores.items():
        sums[system] = sums.get(system, 0.0) + score
        counts[system] = counts.get(system, 0) + 1
    return {system: (sums[system] / counts[system], counts[system]) for system in sums}


def segment_items(scores):
    """(system, (document, segment), score) rows for the ranking: reports/metrics/ranking.item_means
    averages a segment's raters, so systems are compared segment by segment."""
    return ((system, (document, segment), score) for (system, document, segment, _), score in scores.items())


def severity_counts(judgments):
    """{system: {severity: errors}}, No-error lines left out."""
    counts = {}
    for judgment in judgments:
        by_severity = counts.setdefault(judgment.system, {})
        if is_no_error(judgment.category, judgment.severity):
            continue
        severity = judgment.severity.strip()
        by_severity[severity] = by_severity.get(severity, 0) + 1
    return counts


def category_points(judgments, weights=None):
    """{system: {top-level category: error points per rated (segment, rater)}}: how a system's
    MQM score splits by category ("Accuracy/Mistranslation" counts under "Accuracy"). Over a
    system's categories the parts add up to its score (system_scores)."""
    weights = weights or Weights()
    points, rated = {}, {}
    for judgment in judgments:
        rated.setdefault(judgment.system, set()).add((judgment.document, judgment.segment, judgment.rater))
        if is_no_error(judgment.category, judgment.severity):
            continue
        weight = weights.weight(judgment.category, judgment.severity)
        top = judgment.category.split("/")[0].strip() or "(none)"
        by_category = points.setdefault(judgment.system, {})
        by_category[top] = by_category.get(top, 0.0) + weight
    return {
        system: {category: total / len(rated[system]) for category, total in points.get(system, {}).items()}
        for system in rated
    }
