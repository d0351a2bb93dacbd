"""What an evaluator of each kind needs: one check for admin's form, study.yaml and the run request."""

from . import detectors, prompts
from .models import Evaluator


def settings_problems(evaluator, category_kinds):
    """[(field, message)] of what is missing or wrong in the evaluator's kind-specific settings.

    category_kinds: {key: "singleton" | "paired"} of the study's taxonomy (a detector's category).
    """
    problems = []
    if evaluator.kind == Evaluator.Kind.LLM:
        for field in ("base_url", "model"):
            if not getattr(evaluator, field):
                problems.append((field, f"an LLM evaluator needs '{field}'"))
        problem = prompts.check_template(evaluator.prompt_template)
        if problem:
            problems.append(("prompt_template", problem))
    elif evaluator.kind == Evaluator.Kind.BUILTIN:
        try:
            detectors.make_detector(evaluator.detector, evaluator.options, category_kinds)
        except detectors.DetectorOptionError as error:
            problems.append(("options", str(error)))
    return problems
