"""The `evaluators:` list of study.yaml: checked with the rest of the bundle, written with the study,
exported back (docs/evaluators.md).

An imported evaluator may name a predictions file in the bundle
(`predictions: predictions/model.jsonl`), loaded as a finished run when the
study is written; a problem in it stops the whole import.
"""

from decimal import Decimal
from pathlib import Path

from django.core.exceptions import ValidationError

from bundles.problems import BundleInvalid, Problem

from . import prompts
from .checks import settings_problems
from .models import Evaluator
from .modes import TRANSLATION
from .predictions import evaluator_predictions_import

# study.yaml fields of an evaluator: the model's own, plus a prompt or predictions file of the bundle.
FIELDS = (
    "key", "kind", "description", "occurrences", "base_url", "model", "api_key_env", "credential", "temperature", "seed",
    "max_tokens", "response_format", "prompt_template", "timeout_seconds", "max_retries", "concurrency",
    "price_input_per_1k", "price_output_per_1k", "detector", "options",
)  # fmt: skip
FILE_FIELDS = ("prompt_file", "predictions")
DEFAULTS = {field.name: field.get_default() for field in Evaluator._meta.fields if field.name in FIELDS}


def _is_empty(name, value):
    return value in (None, "", {}) or value == DEFAULTS.get(name)


def check_evaluators(value, spec, problems, name, line):
    """[(fields, predictions path or None)] of the evaluators in study.yaml, every problem reported."""
    if not isinstance(value, list):
        problems.add(name, line, "'evaluators' must be a list of evaluators, each with a 'key' and a 'kind'")
        return []
    categories = {c.key: c.kind for c in spec.taxonomy.categories} if spec and spec.taxonomy else {}
    checked, seen = [], set()
    for number, raw in enumerate(value, start=1):
        where = f"evaluators[{number}]"
        at = getattr(raw, "line", line)
        if not isinstance(raw, dict):
            problems.add(name, at, f"{where}: must be a mapping with 'key' and 'kind'")
            continue
        if "api_key" in raw:
            problems.add(
                name, at, f"{where}: keys are never stored in a bundle; store the key for the study (Study keys) "
                "and name it with 'credential', or name an operator's key variable with api_key_env",
            )  # fmt: skip
            continue
        unknown = sorted(set(raw) - set(FIELDS) - set(FILE_FIELDS))
        if unknown:
            problems.add(name, at, f"{where}: unknown field(s) {', '.join(unknown)}")
            continue
        fields = {key: raw[key] for key in FIELDS if key in raw and raw[key] is not None}
        for price in ("price_input_per_1k", "price_output_per_1k"):
            if isinstance(fields.get(price), float):  # YAML's 0.15 is a float: keep its decimal digits
                fields[price] = Decimal(str(fields[price]))
        where = f"evaluators[{number}] ({fields.get('key', '?')})"
        evaluator = Evaluator(**fields)
        try:
            evaluator.full_clean(exclude=["study"], validate_unique=False, validate_constraints=False)
        except ValidationError as error:
            for field, messages in error.message_dict.items():
                problems.add(name, at, f"{where}: {field}: {' '.join(messages)}")
            continue
        if evaluator.key in seen:
            problems.add(name, at, f"{where}: the key '{evaluator.key}' is already used by another evaluator")
            continue
        seen.add(evaluator.key)
        if not _kind_ok(evaluator, raw, categories, spec, problems, name, at, where):
            continue
        checked.append((fields, raw.get("prompt_file"), raw.get("predictions")))
    return checked


def _kind_ok(evaluator, raw, categories, spec, problems, name, at, where):
    before = len(problems.items)
    if spec is not None and spec.protocol not in ("span", *TRANSLATION):
        problems.add(
            name, at, f"{where}: evaluators belong to span, MQM and ESA studies (this one is {spec.protocol})"
        )
    elif spec is not None and spec.protocol in TRANSLATION and evaluator.kind == Evaluator.Kind.BUILTIN:
        problems.add(name, at, f"{where}: built-in detectors mark span studies; a translation study's judge is "
                               "an LLM evaluator")  # fmt: skip
    for _, message in settings_problems(evaluator, categories):
        problems.add(name, at, f"{where}: {message}")
    if raw.get("prompt_file") and raw.get("prompt_template"):
        problems.add(name, at, f"{where}: give prompt_template or prompt_file, not both")
    if raw.get("predictions") is not None and evaluator.kind != Evaluator.Kind.IMPORT:
        problems.add(name, at, f"{where}: only an imported evaluator (kind: import) has 'predictions'")
    for field in FILE_FIELDS:
        if raw.get(field) is not None and not _inside_bundle(raw[field]):
            problems.add(name, at, f"{where}: {field} must be a relative path inside the bundle")
    return len(problems.items) == before


def _inside_bundle(path):
    return isinstance(path, str) and path and not Path(path).is_absolute() and ".." not in Path(path).parts


def write_evaluators(study, checked, directory):
    """Create the evaluators; load predictions files as finished runs (BundleInvalid: nothing written)."""
    for fields, prompt_file, predictions in checked:
        if prompt_file:
            fields = {**fields, "prompt_template": _bundle_text(directory, prompt_file)}
            problem = prompts.check_template(fields["prompt_template"])
            if problem:
                raise BundleInvalid([Problem(prompt_file, 0, problem)])
        evaluator = Evaluator.objects.create(study=study, **fields)
        if predictions:
            path = Path(directory) / predictions
            if not path.is_file():
                raise BundleInvalid(
                    [
                        Problem(
                            "study.yaml", 0, f"evaluator {evaluator.key}: no file {predictions} in the bundle"
                        )
                    ]
                )
            evaluator_predictions_import(evaluator=evaluator, path=path, name=predictions)


def _bundle_text(directory, relative):
    path = Path(directory) / relative
    if not path.is_file():
        raise BundleInvalid([Problem("study.yaml", 0, f"no file {relative} in the bundle")])
    return path.read_text(encoding="utf-8")


def export_evaluators(study):
    """The evaluators as study.yaml lists them: fields that differ from the defaults.

    Predictions of imported evaluators travel as their model annotations in
    assignments.jsonl; the runs' raw exchanges stay in the database.
    """
    listed = []
    for evaluator in study.evaluators.order_by("key"):
        entry = {}
        for name in FIELDS:
            value = getattr(evaluator, name)
            if name in ("key", "kind") or not _is_empty(name, value):
                entry[name] = float(value) if hasattr(value, "as_tuple") else value
        listed.append(entry)
    return listed or None
