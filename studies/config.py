"""A study's `config`: every option the platform reads, checked in one place.

The bundle import (study.yaml) and the admin's study form both ask
`config_problems`; whatever passes is safe for the code that reads the
config (joining, task pages, blocks, reports, scoring). A key the platform
does not read, or one meant for another protocol, is a problem too: a typo
would otherwise be ignored silently (docs/decisions.md).
"""

import re
from dataclasses import dataclass
from urllib.parse import urlsplit

from studies import extensions, protocols

ALL = "all"  # an option every study reads
BLOCKS = "blocks"  # an option of every block study (Protocol.works_on == "block")
MAX_URL_LENGTH = 2000
MAX_TEXT_LENGTH = 2000
SLUG = re.compile(r"[A-Za-z0-9_-]{1,64}")


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


def whole(value, low, high):
    """A message when `value` is not a whole number in [low, high] (bool is not a number here)."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        return f"must be a whole number from {low:,} to {high:,}"
    return None


def number(value, low, high):
    if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
        return f"must be a number from {low} to {high}"
    return None


def text(value):
    if not isinstance(value, str) or len(value) > MAX_TEXT_LENGTH:
        return f"must be a text of at most {MAX_TEXT_LENGTH:,} characters"
    return None


def url(value):
    if not is_http_url(value):
        return "must be an absolute http:// or https:// URL"
    return None


def flag(value):
    return None if isinstance(value, bool) else "must be true or false"


def worker_rules(value, path):
    """The `workers` option: a pool shared with other studies, an allow-list, excluded studies."""
    if not isinstance(value, dict):
        return [ConfigProblem(path, "must be a mapping: pool, max_per_pool, allow, exclude_studies")]
    problems = unknown(value, ("pool", "max_per_pool", "allow", "exclude_studies"), path)
    if "pool" in value and not (isinstance(value["pool"], str) and SLUG.fullmatch(value["pool"])):
        problems.append(ConfigProblem((*path, "pool"), "must be a name of letters, digits, '-' and '_'"))
    if "max_per_pool" in value:
        if "pool" not in value:
            problems.append(ConfigProblem((*path, "max_per_pool"), "needs workers.pool"))
        elif message := whole(value["max_per_pool"], 1, 100_000):
            problems.append(ConfigProblem((*path, "max_per_pool"), message))
    for name, what in (("allow", "platform ids"), ("exclude_studies", "study slugs")):
        items = value.get(name, [])
        if not isinstance(items, list) or not all(
            isinstance(item, str) and item.strip() and len(item) <= 255 for item in items
        ):
            problems.append(ConfigProblem((*path, name), f"must be a list of {what}"))
    return problems


def point_labels(labels, low, high, path):
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


def unknown(mapping, known, path):
    return [
        ConfigProblem(path, f"unknown option '{key}' (known: {', '.join(sorted(known))})")
        for key in mapping
        if key not in known
    ]


SETUP_STEPS = ("documents", "categories", "annotators", "preview")


def setup_record(value, path):
    """The console's `setup`: {"done": [steps], "step": str, "qualification": bool, "launched": bool}."""
    if not isinstance(value, dict):
        return [ConfigProblem(path, "must be a mapping")]
    problems = unknown(value, ("done", "step", "qualification", "launched"), path)
    done = value.get("done", [])
    if not isinstance(done, list) or any(step not in SETUP_STEPS for step in done):
        problems.append(ConfigProblem((*path, "done"), f"must be a list of {', '.join(SETUP_STEPS)}"))
    for name in ("qualification", "launched"):
        if name in value and not isinstance(value[name], bool):
            problems.append(ConfigProblem((*path, name), "must be true or false"))
    return problems


def simple(check):
    def nested(value, path):
        message = check(value)
        return [] if message is None else [ConfigProblem(path, message)]

    return nested


@dataclass(frozen=True)
class Option:
    studies: str  # ALL or BLOCKS
    check: object  # (value, path) -> [ConfigProblem]


# The keys the core reads from a study's config; a protocol's own keys are its
# Protocol.config_options (grep `config.get(` to keep both so).
OPTIONS = {
    "sentences_per_segment": Option(ALL, simple(lambda v: whole(v, 1, 100))),
    "release_after_minutes": Option(ALL, simple(lambda v: whole(v, 1, 525_600))),
    "prolific_completion_url": Option(ALL, simple(url)),
    "workers": Option(ALL, worker_rules),
    # The researcher console's record of the new-study flow, and the study's stage (console/).
    "setup": Option(ALL, lambda v, path: setup_record(v, path)),
    "stage": Option(ALL, simple(lambda v: None if v in ("pilot", "main") else "must be 'pilot' or 'main'")),
    "retest_after_days": Option(BLOCKS, simple(lambda v: whole(v, 0, 3650))),
    "announce_retest": Option(BLOCKS, simple(flag)),
    "seed": Option(BLOCKS, simple(lambda v: whole(v, 0, 2**63 - 1))),
}


def _checks_for(protocol):
    """{option: check} of a study of `protocol`: the core's, the extensions' and the protocol's own."""
    works_on = protocol.works_on if protocol is not None else None
    checks = {
        name: option.check
        for name, option in OPTIONS.items()
        if option.studies == ALL or (option.studies == BLOCKS and works_on == "block")
    }
    for extension in extensions.registered():
        checks.update(extension.config_options)
    if protocol is not None:
        checks.update(protocol.config_options)
    return checks


def _listed(names):
    """'a', 'a and b', 'a, b and c'."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _readers_of(key):
    """The protocols whose studies read option `key`."""
    return [p.key for p in protocols.registered() if key in _checks_for(p)]


def config_problems(config, *, protocol):
    """Every problem of a study's `config` for a study of `protocol`, as ConfigProblems.

    An empty list means the platform can read every option it holds.
    """
    if config is None:
        return []
    if not isinstance(config, dict):
        return [ConfigProblem((), "must be a mapping of options")]
    try:
        checks = _checks_for(protocols.get(protocol))
    except protocols.UnknownProtocol:
        checks = _checks_for(None)
    problems = []
    for key, value in config.items():
        check = checks.get(key)
        readers = _readers_of(key) if check is None else []
        if check is not None:
            problems += check(value, (str(key),))
        elif readers:
            problems.append(ConfigProblem((str(key),), f"is for {_listed(readers)} studies, not {protocol}"))
        else:
            problems.append(
                ConfigProblem(
                    (), f"unknown option '{key}' (a {protocol} study reads {', '.join(sorted(checks))})"
                )
            )
    return problems
