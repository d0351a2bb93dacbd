"""A study's `config`: every option the platform reads, checked in one place.

The bundle import (study.yaml) and the admin's study form both ask
`config_problems`; whatever passes is safe for the code that reads the
config (joining, task pages, blocks, reports, scoring). A key the platform
does not read, or one meant for another protocol, is a problem too: a typo
would otherwise be ignored silently (docs/decisions.md).
"""

from dataclasses import dataclass
from urllib.parse import urlsplit

from studies.review_questions import check_questions

SPAN, LIKERT, BWS, REVIEW = "span", "likert", "bws", "review"
ALL = (SPAN, LIKERT, BWS, REVIEW)
RATING = (LIKERT, BWS)
MAX_URL_LENGTH = 2000
MAX_TEXT_LENGTH = 2000
LIKERT_MAX_POINTS = 11  # 0-10 or 1-10 at most: the keyboard gives a point per digit
BWS_MAX_TUPLE_SIZE = 9  # outputs are chosen with the keys 1-9
BWS_MAX_VALUE_SCALE = 9
BWS_TUPLES = ("by_input", "generated")


@dataclass(frozen=True)
class ConfigProblem:
    path: tuple  # the keys leading to the value, e.g. ("scale", "min"); a list index only finds the line
    message: str

    def __str__(self):
        return (
            f"config.{'.'.join(k for k in self.path if isinstance(k, str))}: {self.message}"
            if self.path
            else f"config: {self.message}"
        )


def is_http_url(value):
    """True for an absolute http(s) URL with a host, and nothing else (no javascript:, data:, //host)."""
    if not isinstance(value, str) or not value or len(value) > MAX_URL_LENGTH:
        return False
    if any(ord(char) < 33 or char == "\\" for char in value):  # white space, controls, backslashes
        return False
    try:
        parts = urlsplit(value)
    except ValueError:
        return False
    return parts.scheme in ("http", "https") and bool(parts.hostname)


def safe_http_url(value):
    """`value` when it is an absolute http(s) URL, else None: for every page that renders a configured URL."""
    return value if is_http_url(value) else None


def _whole(value, low, high):
    """A message when `value` is not a whole number in [low, high] (bool is not a number here)."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        return f"must be a whole number from {low:,} to {high:,}"
    return None


def _number(value, low, high):
    if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
        return f"must be a number from {low} to {high}"
    return None


def _text(value):
    if not isinstance(value, str) or len(value) > MAX_TEXT_LENGTH:
        return f"must be a text of at most {MAX_TEXT_LENGTH:,} characters"
    return None


def _url(value):
    if not is_http_url(value):
        return "must be an absolute http:// or https:// URL"
    return None


def _flag(value):
    return None if isinstance(value, bool) else "must be true or false"


def _point_labels(labels, low, high, path):
    """Labels of scale points: {point: text}, a point given as a whole number or its digits."""
    if not isinstance(labels, dict):
        return [ConfigProblem(path, "must be a mapping from a point of the scale to its label")]
    problems = []
    for point, label in labels.items():
        number = point if isinstance(point, int) and not isinstance(point, bool) else None
        if isinstance(point, str) and point.lstrip("-").isdigit():
            number = int(point)
        if number is None or (low is not None and not low <= number <= high):
            problems.append(ConfigProblem(path, f"{point!r} is not a point of the scale"))
        elif not isinstance(label, str) or len(label) > MAX_TEXT_LENGTH:
            problems.append(ConfigProblem(path, f"the label of {point} must be a text"))
    return problems


def _unknown(mapping, known, path):
    return [
        ConfigProblem(path, f"unknown option '{key}' (known: {', '.join(sorted(known))})")
        for key in mapping
        if key not in known
    ]


def _scale(value, path):
    if not isinstance(value, dict):
        return [ConfigProblem(path, "must be a mapping {min, max, labels}")]
    problems = _unknown(value, ("min", "max", "labels"), path)
    low, high = value.get("min", 1), value.get("max", 5)
    for key, number in (("min", low), ("max", high)):
        if (message := _whole(number, -100, 100)) is not None:
            problems.append(ConfigProblem((*path, key), message))
    if not problems and not 2 <= high - low + 1 <= LIKERT_MAX_POINTS:
        problems.append(
            ConfigProblem(
                path, f"must have from 2 to {LIKERT_MAX_POINTS} points (min below max), not {low} to {high}"
            )
        )
    if "labels" in value:
        bounds = (low, high) if not problems else (None, None)
        problems += _point_labels(value["labels"], *bounds, (*path, "labels"))
    return problems


def _bws(value, path):
    if not isinstance(value, dict):
        return [
            ConfigProblem(
                path, "must be a mapping {tuple_size, tuples, appearances, value_scale, value_labels}"
            )
        ]
    checks = {
        "tuple_size": lambda v: _whole(v, 2, BWS_MAX_TUPLE_SIZE),
        "tuples": lambda v: None if v in BWS_TUPLES else f"must be one of {', '.join(BWS_TUPLES)}",
        "appearances": lambda v: _whole(v, 1, 100),
        "value_scale": lambda v: _whole(v, 2, BWS_MAX_VALUE_SCALE),
    }
    problems = _unknown(value, (*checks, "value_labels"), path)
    for key, check in checks.items():
        if key in value and (message := check(value[key])) is not None:
            problems.append(ConfigProblem((*path, key), message))
    if "value_labels" in value:
        value_scale = value.get("value_scale")
        if not isinstance(value_scale, int) or isinstance(value_scale, bool):
            problems.append(ConfigProblem((*path, "value_labels"), "needs a value_scale"))
        else:
            problems += _point_labels(value["value_labels"], 1, value_scale, (*path, "value_labels"))
    return problems


def _ui(value, path):
    if not isinstance(value, dict):
        return [ConfigProblem(path, "must be a mapping, e.g. {coreference_cue: false}")]
    problems = _unknown(value, ("coreference_cue",), path)
    if "coreference_cue" in value and (message := _flag(value["coreference_cue"])) is not None:
        problems.append(ConfigProblem((*path, "coreference_cue"), message))
    return problems


def _questions(value, path):
    return [
        ConfigProblem(path if index is None else (*path, index), message)
        for index, message in check_questions(value)
    ]


def _simple(check):
    def nested(value, path):
        message = check(value)
        return [] if message is None else [ConfigProblem(path, message)]

    return nested


@dataclass(frozen=True)
class Option:
    protocols: tuple
    check: object  # (value, path) -> [ConfigProblem]


# Every key the platform reads from a study's config (grep `config.get(` to keep it so).
OPTIONS = {
    "sentences_per_segment": Option(ALL, _simple(lambda v: _whole(v, 1, 100))),
    "release_after_minutes": Option(ALL, _simple(lambda v: _whole(v, 1, 525_600))),
    "prolific_completion_url": Option(ALL, _simple(_url)),
    "attention_every": Option((SPAN,), _simple(lambda v: _whole(v, 1, 10_000))),
    "attention_min_f1": Option((SPAN,), _simple(lambda v: _number(v, 0, 1))),
    "ui": Option((SPAN,), _ui),
    "scale": Option((LIKERT,), _scale),
    "question": Option(RATING, _simple(_text)),
    "retest_after_days": Option(RATING, _simple(lambda v: _whole(v, 0, 3650))),
    "announce_retest": Option(RATING, _simple(_flag)),
    "seed": Option(RATING, _simple(lambda v: _whole(v, 0, 2**63 - 1))),
    "bws": Option((BWS,), _bws),
    "tuple_size": Option((BWS,), _simple(lambda v: _whole(v, 2, BWS_MAX_TUPLE_SIZE))),
    "questions": Option((REVIEW,), _questions),
}


def config_problems(config, *, protocol):
    """Every problem of a study's `config` for a study of `protocol`, as ConfigProblems.

    An empty list means the platform can read every option it holds.
    """
    if config is None:
        return []
    if not isinstance(config, dict):
        return [ConfigProblem((), "must be a mapping of options")]
    problems = []
    for key, value in config.items():
        option = OPTIONS.get(key)
        if option is None:
            known = sorted(name for name, option in OPTIONS.items() if protocol in option.protocols)
            problems.append(
                ConfigProblem((), f"unknown option '{key}' (a {protocol} study reads {', '.join(known)})")
            )
        elif protocol not in option.protocols:
            problems.append(
                ConfigProblem((str(key),), f"is for {' and '.join(option.protocols)} studies, not {protocol}")
            )
        else:
            problems += option.check(value, (str(key),))
    return problems
