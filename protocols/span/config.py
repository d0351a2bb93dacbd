"""The span protocol's options in a study's config (studies/config.py checks them)."""

from studies.assistance import assistance_problems
from studies.config import ConfigProblem, flag, number, simple, unknown, whole

from .document_questions import document_questions_problems


def ui_problems(value, path):
    if not isinstance(value, dict):
        return [ConfigProblem(path, "must be a mapping, e.g. {coreference_cue: false}")]
    problems = unknown(value, ("coreference_cue",), path)
    if "coreference_cue" in value and (message := flag(value["coreference_cue"])) is not None:
        problems.append(ConfigProblem((*path, "coreference_cue"), message))
    return problems


OPTIONS = {
    "attention_every": simple(lambda v: whole(v, 1, 10_000)),
    "attention_min_f1": simple(lambda v: number(v, 0, 1)),
    "ui": ui_problems,
    "document_questions": document_questions_problems,
    "assistance": assistance_problems,
}
