"""What an evaluator needs: one check for admin's form, study.yaml and the run request."""

from django.core.exceptions import ValidationError

from outbound import policy

from . import detectors, llm, prompts
from .models import BOUNDS, Evaluator


def settings_problems(evaluator, category_kinds, *, study=None):
    """[(field, message)] of what is missing or wrong in the evaluator's settings.

    category_kinds: {key: "singleton" | "paired"} of the study's taxonomy (a detector's category).
    study: the evaluator's study when it exists (a team's key variable, a stored key), None
    while a bundle is checked (those are checked again when it runs).
    """
    problems = _bound_problems(evaluator)
    if evaluator.kind == Evaluator.Kind.LLM:
        for field in ("base_url", "model"):
            if not getattr(evaluator, field):
                problems.append((field, f"an LLM evaluator needs '{field}'"))
        if evaluator.base_url:
            problem = policy.url_problem(evaluator.base_url)
            if problem:
                problems.append(("base_url", problem))
            problem = llm.key_problem(evaluator, study)
            if problem:
                problems.append(("credential" if evaluator.credential else "api_key_env", problem))
        problem = prompts.check_template(evaluator.prompt_template)
        if problem:
            problems.append(("prompt_template", problem))
    elif evaluator.kind == Evaluator.Kind.BUILTIN:
        try:
            detectors.make_detector(evaluator.detector, evaluator.options, category_kinds)
        except detectors.DetectorOptionError as error:
            problems.append(("options", str(error)))
    return problems


def _bound_problems(evaluator):
    """The bounded settings outside their bounds (a row stored before them, or one not cleaned)."""
    problems = []
    for name in BOUNDS:
        field, value = Evaluator._meta.get_field(name), getattr(evaluator, name)
        if value is None:
            continue
        try:
            field.run_validators(field.to_python(value))
        except ValidationError as error:
            problems.append((name, f"{name}: {' '.join(error.messages)}"))
    return problems
