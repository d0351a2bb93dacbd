"""The Likert and BWS options in a study's config (studies/config.py checks them)."""

from studies.allocation import allocation_problems
from studies.config import ConfigProblem, point_labels, simple, text, unknown, whole

LIKERT_MAX_POINTS = 11  # 0-10 or 1-10 at most: the keyboard gives a point per digit
BWS_MAX_TUPLE_SIZE = 9  # outputs are chosen with the keys 1-9
BWS_MAX_VALUE_SCALE = 9
BWS_TUPLES = ("by_input", "generated")


def scale_problems(value, path):
    if not isinstance(value, dict):
        return [ConfigProblem(path, "must be a mapping {min, max, labels}")]
    problems = unknown(value, ("min", "max", "labels"), path)
    low, high = value.get("min", 1), value.get("max", 5)
    for key, number in (("min", low), ("max", high)):
        if (message := whole(number, -100, 100)) is not None:
            problems.append(ConfigProblem((*path, key), message))
    if not problems and not 2 <= high - low + 1 <= LIKERT_MAX_POINTS:
        problems.append(
            ConfigProblem(
                path, f"must have from 2 to {LIKERT_MAX_POINTS} points (min below max), not {low} to {high}"
            )
        )
    if "labels" in value:
        bounds = (low, high) if not problems else (None, None)
        problems += point_labels(value["labels"], *bounds, (*path, "labels"))
    return problems


def bws_problems(value, path):
    if not isinstance(value, dict):
        return [
            ConfigProblem(
                path, "must be a mapping {tuple_size, tuples, appearances, value_scale, value_labels}"
            )
        ]
    checks = {
        "tuple_size": lambda v: whole(v, 2, BWS_MAX_TUPLE_SIZE),
        "tuples": lambda v: None if v in BWS_TUPLES else f"must be one of {', '.join(BWS_TUPLES)}",
        "appearances": lambda v: whole(v, 1, 100),
        "value_scale": lambda v: whole(v, 2, BWS_MAX_VALUE_SCALE),
    }
    problems = unknown(value, (*checks, "value_labels"), path)
    for key, check in checks.items():
        if key in value and (message := check(value[key])) is not None:
            problems.append(ConfigProblem((*path, key), message))
    if "value_labels" in value:
        value_scale = value.get("value_scale")
        if not isinstance(value_scale, int) or isinstance(value_scale, bool):
            problems.append(ConfigProblem((*path, "value_labels"), "needs a value_scale"))
        else:
            problems += point_labels(value["value_labels"], 1, value_scale, (*path, "value_labels"))
    return problems


# Adaptive allocation (studies/allocation.py) chooses the next block from each output's score so
# far: its mean rating (Likert), its best-minus-worst score (BWS).
LIKERT_OPTIONS = {"scale": scale_problems, "question": simple(text), "allocation": allocation_problems}
BWS_OPTIONS = {
    "bws": bws_problems,
    "tuple_size": simple(lambda v: whole(v, 2, BWS_MAX_TUPLE_SIZE)),
    "question": simple(text),
    "allocation": allocation_problems,
}
