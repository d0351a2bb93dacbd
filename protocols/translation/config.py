"""The translation protocols' options in a study's config (studies/config.py checks them), and
the readers the page, the task API and the report use, each with the protocol's default.

- `severities` (MQM): the severities a worker picks from, mildest first; default Neutral,
  Minor, Major (add Critical and give it a weight). ESA's are always Minor and Major.
- `weights` (MQM): {severities, categories, whole_segment} as reports/metrics/mqm.Weights
  reads them; a part left out keeps the common scheme (Major 5, Minor 1, Neutral 0, Minor
  Fluency/Punctuation 0.1, Non-translation 25).
- `max_errors_per_segment` (MQM, ESA): a cap on the errors of one segment (MQM practice: 5).
- `scale` (ESA, DA): {min, max, labels}; 0-100 by default, {min: 0, max: 6} for SQM.
- `score_warnings` (ESA): {low, high}. The page warns, without blocking, when a segment
  scores below `low` with no error marked, or above `high` with a Major error.
- `show_reference`: show each segment's reference translation (default false).
- `source_spans` (MQM, ESA): let workers mark an omission in the source (default true).
- `missing_marker` (MQM, ESA): offer the [missing] marker for an omission (default true).
- `ranking`: {test, resamples, alpha} of the report's ranking: `permutation` (paired
  approximate randomisation, the default), `wilcoxon` (signed-rank, paired) or `ranksum`
  (one-sided Wilcoxon rank-sum, unpaired: WMT's DA practice when systems are rated on
  different segments); 1,000 resamples and alpha 0.05 by default.
- `attention_every`: after every N main documents a worker gets a quality check through the
  join link (a degraded copy of a document they did: quality_checks.py).
- `attention_min_caught`: the share of a check's degraded segments a worker must catch, or it
  is flagged (default 0.5: with one degraded segment, that one).
- `attention_announced`: the instructions and the page tell the worker that quality checks
  exist (default false: silent).
- `assistance` (MQM, ESA): {share, seed}: draw workers into a suggestion arm, whose assignments
  start with a judge's errors, and a control arm (assistance/).
- `allocation` (DA, ESA): {policy, settled, stop_when, unchanged_for, budget}: spend the
  ratings where the ranking is uncertain and stop by itself (studies/allocation.py).
"""

from reports.metrics.mqm import Weights
from studies.allocation import allocation_problems
from studies.assistance import assistance_problems
from studies.config import ConfigProblem, flag, number, point_labels, simple, unknown, whole

from .keys import CONTRASTIVE, DA, ESA, MQM, scheme

MQM_SEVERITIES = ("Neutral", "Minor", "Major")
ESA_SEVERITIES = ("Minor", "Major")
MAX_SEVERITIES = 6
MAX_POINTS = 101  # 0-100
DEFAULT_SCALE = {MQM: None, ESA: (0, 100), DA: (0, 100)}
DEFAULT_WARNINGS = (33, 66)  # ESA's own scale: 0-33 broken or poor, 66-100 good


def severities_problems(value, path):
    if (
        not isinstance(value, list)
        or not 1 <= len(value) <= MAX_SEVERITIES
        or not all(isinstance(v, str) and 1 <= len(v.strip()) <= 32 for v in value)
    ):
        return [ConfigProblem(path, f"must be a list of 1 to {MAX_SEVERITIES} names, mildest first")]
    if len({v.strip().lower() for v in value}) != len(value):
        return [ConfigProblem(path, "names a severity twice")]
    if any(v.strip().lower() == "no-error" for v in value):
        return [ConfigProblem(path, "No-error is not a severity: a segment without errors has none")]
    return []


def _weight_map(value, path, what):
    if not isinstance(value, dict):
        return [ConfigProblem(path, f"must be a mapping from {what} to a weight")]
    problems = []
    for key, weight in value.items():
        if not isinstance(key, str) or not key.strip():
            problems.append(ConfigProblem(path, f"{key!r} is not a {what[:-1]}"))
        elif (message := number(weight, 0, 10_000)) is not None:
            problems.append(ConfigProblem((*path, key), message))
    return problems


def weights_problems(value, path):
    if not isinstance(value, dict):
        return [ConfigProblem(path, "must be a mapping {severities, categories, whole_segment}")]
    problems = unknown(value, ("severities", "categories", "whole_segment"), path)
    if "severities" in value:
        problems += _weight_map(value["severities"], (*path, "severities"), "severities")
    if "whole_segment" in value:
        problems += _weight_map(value["whole_segment"], (*path, "whole_segment"), "categories")
    if "categories" in value:
        categories = value["categories"]
        if not isinstance(categories, dict):
            problems.append(ConfigProblem((*path, "categories"), "must map a category to {severity: weight}"))
        else:
            for category, by_severity in categories.items():
                problems += _weight_map(by_severity, (*path, "categories", str(category)), "severities")
    return problems


def scale_problems(value, path):
    if not isinstance(value, dict):
        return [ConfigProblem(path, "must be a mapping {min, max, labels}")]
    problems = unknown(value, ("min", "max", "labels"), path)
    low, high = value.get("min", 0), value.get("max", 100)
    for key, point in (("min", low), ("max", high)):
        if (message := whole(point, 0, 100)) is not None:
            problems.append(ConfigProblem((*path, key), message))
    if not problems and not low < high:
        problems.append(ConfigProblem(path, f"min must be below max, not {low} to {high}"))
    if "labels" in value:
        problems += point_labels(
            value["labels"], *((low, high) if not problems else (None, None)), (*path, "labels")
        )
    return problems


def warnings_problems(value, path):
    if not isinstance(value, dict):
        return [ConfigProblem(path, "must be a mapping {low, high}")]
    problems = unknown(value, ("low", "high"), path)
    for key in ("low", "high"):
        if key in value and (message := number(value[key], 0, 100)) is not None:
            problems.append(ConfigProblem((*path, key), message))
    return problems


RANKING_TESTS = ("permutation", "wilcoxon", "ranksum")


def ranking_problems(value, path):
    if not isinstance(value, dict):
        return [ConfigProblem(path, "must be a mapping {test, resamples, alpha}")]
    problems = unknown(value, ("test", "resamples", "alpha"), path)
    if "test" in value and value["test"] not in RANKING_TESTS:
        problems.append(ConfigProblem((*path, "test"), f"must be one of {', '.join(RANKING_TESTS)}"))
    if "resamples" in value and (message := whole(value["resamples"], 100, 100_000)) is not None:
        problems.append(ConfigProblem((*path, "resamples"), message))
    if "alpha" in value and (message := number(value["alpha"], 0.0001, 0.2)) is not None:
        problems.append(ConfigProblem((*path, "alpha"), message))
    return problems


DEFAULT_MIN_CAUGHT = 0.5
_CHECKS = {
    "attention_every": simple(lambda v: whole(v, 1, 10_000)),
    "attention_min_caught": simple(lambda v: number(v, 0, 1)),
    "attention_announced": simple(flag),
}


_SPANS = {
    "max_errors_per_segment": simple(lambda v: whole(v, 1, 100)),
    "show_reference": simple(flag),
    "source_spans": simple(flag),
    "missing_marker": simple(flag),
}
OPTIONS = {
    MQM: {
        **_SPANS,
        "severities": severities_problems,
        "weights": weights_problems,
        "ranking": ranking_problems,
    },
    ESA: {
        **_SPANS,
        "scale": scale_problems,
        "score_warnings": warnings_problems,
        "ranking": ranking_problems,
    },
    DA: {"scale": scale_problems, "show_reference": simple(flag), "ranking": ranking_problems},
}
OPTIONS.update({key: OPTIONS[base] for key, base in CONTRASTIVE.items()})
# Quality checks come through the join link's stream of documents: a contrastive (block) study has none.
OPTIONS.update({key: {**OPTIONS[key], **_CHECKS} for key in (MQM, ESA, DA)})
# ESA-AI / MQM-AI arms (assistance/), drawn as a worker joins a document: not contrastive studies.
OPTIONS[MQM] = {**OPTIONS[MQM], "assistance": assistance_problems}
OPTIONS[ESA] = {**OPTIONS[ESA], "assistance": assistance_problems}
# Adaptive allocation (studies/allocation.py) needs one score per document: DA's and ESA's
# segment scores; a contrastive study hands out blocks, and MQM's score is its errors' weight.
OPTIONS[DA] = {**OPTIONS[DA], "allocation": allocation_problems}
OPTIONS[ESA] = {**OPTIONS[ESA], "allocation": allocation_problems}


# --- readers: each option with its default --------------------------------------------------


def severities(study):
    if scheme(study.protocol) == ESA:
        return list(ESA_SEVERITIES)
    if scheme(study.protocol) == MQM:
        return [s.strip() for s in study.config.get("severities", MQM_SEVERITIES)]
    return []


def weights(study):
    """The study's MQM weights (reports/metrics/mqm.Weights)."""
    return Weights.from_config(study.config.get("weights"))


def max_errors(study):
    return study.config.get("max_errors_per_segment")


def scale(study):
    """(min, max) of the segment score, or None for a protocol without one (MQM)."""
    default = DEFAULT_SCALE[scheme(study.protocol)]
    if default is None:
        return None
    value = study.config.get("scale") or {}
    return (value.get("min", default[0]), value.get("max", default[1]))


def scale_labels(study):
    labels = (study.config.get("scale") or {}).get("labels") or {}
    return {str(int(point)): text for point, text in labels.items()}


def score_warnings(study):
    """(low, high) for ESA, else None."""
    if scheme(study.protocol) != ESA:
        return None
    value = study.config.get("score_warnings") or {}
    return (value.get("low", DEFAULT_WARNINGS[0]), value.get("high", DEFAULT_WARNINGS[1]))


def show_reference(study):
    return bool(study.config.get("show_reference", False))


def source_spans(study):
    return scheme(study.protocol) in (MQM, ESA) and bool(study.config.get("source_spans", True))


def missing_marker(study):
    return scheme(study.protocol) in (MQM, ESA) and bool(study.config.get("missing_marker", True))


def ranking_settings(study):
    """Keyword arguments of reports.metrics.ranking.rank_systems from the study's `ranking`."""
    value = study.config.get("ranking") or {}
    return {
        "test": value.get("test", "permutation"),
        "resamples": value.get("resamples", 1000),
        "alpha": value.get("alpha", 0.05),
    }


def min_caught(study):
    """The share of a quality check's degraded segments a worker must catch (0-1)."""
    return float(study.config.get("attention_min_caught", DEFAULT_MIN_CAUGHT))


def checks_announced(study):
    """Whether the worker is told that quality checks exist."""
    return bool(study.config.get("attention_announced", False))
