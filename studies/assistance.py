"""A study's assistance settings (config.assistance): model suggestions shown to one arm of
the workers, the other arm the control. The option means the same for every protocol that
offers it (span studies, MQM and ESA), and the arms are the core's (studies.protocols.ArmDesign,
drawn at join by annotations/services/joining.py), so the option is read here, once."""

from studies.config import ConfigProblem, number, unknown, whole
from studies.protocols import ArmDesign

SUGGESTIONS = "suggestions"  # the arm shown the model's suggestions
CONTROL = "control"  # the arm shown none
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
