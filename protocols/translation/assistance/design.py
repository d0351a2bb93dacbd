"""The study's assistance settings (config.assistance) and the arms they make.

The span protocol has the same option (protocols/span/assistance/design.py); protocols do not
import each other, and the arms themselves are the core's (studies.protocols.ArmDesign, drawn
at join by annotations/services/joining.py), so only this reading of the option is repeated."""

from studies.config import ConfigProblem, number, unknown, whole
from studies.protocols import ArmDesign

from . import CONTROL, SUGGESTIONS

DEFAULT_SHARE = 0.5


def assistance_problems(value, path):
    """config.assistance: {share: the suggestion arm's share of workers, in (0, 1); seed: whole number}."""
    if not isinstance(value, dict):
        return [ConfigProblem(path, "must be a mapping, e.g. {share: 0.5, seed: 1}")]
    problems = unknown(value, ("share", "seed"), path)
    share = value.get("share", DEFAULT_SHARE)
    if (message := number(share, 0, 1)) is not None:
        problems.append(ConfigProblem((*path, "share"), message))
    elif not 0 < share < 1:
        problems.append(
            ConfigProblem(
                (*path, "share"), "must lie strictly between 0 and 1: the control arm needs workers too"
            )
        )
    if "seed" in value and (message := whole(value["seed"], 0, 2**31 - 1)) is not None:
        problems.append(ConfigProblem((*path, "seed"), message))
    return problems


def arm_design(study):
    """The two arms of a study with assistance, or None."""
    settings = study.config.get("assistance") if isinstance(study.config, dict) else None
    if not isinstance(settings, dict):
        return None
    share = settings.get("share", DEFAULT_SHARE)
    return ArmDesign(arms=((SUGGESTIONS, share), (CONTROL, 1 - share)), seed=settings.get("seed", 0))
