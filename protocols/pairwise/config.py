"""The pairwise options of a study's config: checked here (studies/config.py asks), read here.

    pairs:      {design: all | covering, min_pairs: N}   default: all pairs of every input
    allow_ties: true | false                              default: true ("about the same")
    strength:   {max: 2..5, labels: {1: "slightly", 2: "clearly"}}   absent: no strength asked
    question:   the question above the pair
    allocation: {policy, settled, stop_when, unchanged_for, budget}   the next block from the pairs'
                doubt, and stopping rules (studies/allocation.py; each output's share of wins)

The core adds `seed`, `retest_after_days` and `announce_retest` for every block study.
"""

from studies.allocation import allocation_problems
from studies.config import ConfigProblem, flag, point_labels, simple, text, unknown, whole
from studies.spans import is_whole_number

from .keys import LEFT, RIGHT, TIE

ALL_PAIRS = "all"
COVERING = "covering"
DESIGNS = (ALL_PAIRS, COVERING)
MAX_MIN_PAIRS = 100
# Strength grades are picked with the digit keys; past 5 a grade no longer says "how clearly".
STRENGTH_MAX = (2, 5)
DEFAULT_QUESTION = "Which output is better?"


def pairs_problems(value, path):
    if not isinstance(value, dict):
        return [ConfigProblem(path, "must be a mapping {design: all|covering, min_pairs: N}")]
    problems = unknown(value, ("design", "min_pairs"), path)
    design = value.get("design", ALL_PAIRS)
    if design not in DESIGNS:
        problems.append(ConfigProblem((*path, "design"), f"must be one of {', '.join(DESIGNS)}"))
    elif design == COVERING and "min_pairs" not in value:
        problems.append(
            ConfigProblem(path, "design covering needs min_pairs: the pairs every output appears in")
        )
    elif design == ALL_PAIRS and "min_pairs" in value:
        problems.append(ConfigProblem((*path, "min_pairs"), "is for design: covering (all pairs has none)"))
    if "min_pairs" in value and (message := whole(value["min_pairs"], 1, MAX_MIN_PAIRS)) is not None:
        problems.append(ConfigProblem((*path, "min_pairs"), message))
    return problems


def strength_problems(value, path):
    if not isinstance(value, dict):
        return [ConfigProblem(path, "must be a mapping {max, labels}")]
    problems = unknown(value, ("max", "labels"), path)
    if "max" not in value:
        problems.append(ConfigProblem(path, "needs max: the number of strength grades (e.g. 2)"))
        return problems
    high = value["max"]
    if (message := whole(high, *STRENGTH_MAX)) is not None:
        problems.append(ConfigProblem((*path, "max"), message))
        return problems
    if "labels" in value:
        problems += point_labels(value["labels"], 1, high, (*path, "labels"))
    return problems


OPTIONS = {
    "pairs": pairs_problems,
    "allow_ties": simple(flag),
    "strength": strength_problems,
    "question": simple(text),
    "allocation": allocation_problems,
}


# --- reading a checked config ---------------------------------------------------------------


def allow_ties(study):
    return study.config.get("allow_ties", True)


def choices(study):
    """The answers a pair takes in this study."""
    return (LEFT, RIGHT, TIE) if allow_ties(study) else (LEFT, RIGHT)


def strength_max(study):
    """The top strength grade, or None when the study asks for no strength."""
    strength = study.config.get("strength")
    return strength["max"] if strength else None


def strength_labels(study):
    """{"1": label, ...} as given (keys as text, the way JSON keeps them)."""
    strength = study.config.get("strength") or {}
    return {str(point): label for point, label in (strength.get("labels") or {}).items()}


def min_pairs(study):
    """Pairs every output appears in (covering design), or None for all pairs."""
    pairs = study.config.get("pairs") or {}
    return pairs.get("min_pairs") if pairs.get("design", ALL_PAIRS) == COVERING else None


def question(study):
    return study.config.get("question") or DEFAULT_QUESTION


# --- what one choice may be in a study (the task API and the bundle check ask) ----------------


def _quoted(values):
    return ", ".join(f'"{value}"' for value in values)


def choice_problem(study, choice):
    """Why `choice` is no answer to a pair of `study`, or None."""
    allowed = choices(study)
    if isinstance(choice, str) and choice in allowed:
        return None
    if choice == TIE:
        return f"this study allows no ties: 'choice' must be {_quoted(allowed)}"
    return f"'choice' must be one of {_quoted(allowed)}, not {choice!r}"


def strength_problem(study, choice, strength):
    """Why `strength` does not go with `choice` in `study`, or None.

    With a strength scale a side's choice needs its strength (1..max); a tie
    has none, and neither has any choice in a study without the scale.
    """
    top = strength_max(study)
    if choice == TIE:
        return None if strength is None else "a tie has no strength: give 'strength': null"
    if top is None:
        return None if strength is None else "this study asks for no strength: give 'strength': null"
    if strength is None:
        return (
            f"'strength' is required: how clearly the chosen output is better, a whole number from 1 to {top}"
        )
    if not is_whole_number(strength) or not 1 <= strength <= top:
        return f"'strength' must be a whole number from 1 to {top}, not {strength!r}"
    return None
