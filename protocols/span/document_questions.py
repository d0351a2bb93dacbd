"""Questions about the whole document, asked below its last segment (study config
`document_questions`): SNaC's holistic coherence rating, FALTE's document-level comparison.

A question is {key, label, kind, options, scale, required, help}:

- likert: a whole number on `scale` ({min, max, labels}; default 1 to 5);
- single: one of `options`; multi: any of `options`, kept in the options' order;
- text: free text of at most MAX_ANSWER_TEXT characters.

`required` defaults to true for likert and single questions, false for multi and text.
An answer of null, "" or [] means "no answer" and is never stored. The task API, the
bundle import and the submit check all ask this module, so they agree on every rule.
"""

import re

from studies.config import ConfigProblem, point_labels

KINDS = ("likert", "single", "multi", "text")
FIELDS = ("key", "label", "kind", "options", "scale", "required", "help")
REQUIRED_BY_DEFAULT = ("likert", "single")
KEY = re.compile(r"[A-Za-z0-9_-]+")
MAX_QUESTIONS = 20
MAX_KEY = 64
MAX_LABEL = 500
MAX_HELP = 2000
MAX_OPTIONS = 20
MAX_OPTION = 200
MAX_ANSWER_TEXT = 2000
SCALE_BOUND = 100  # scale points lie in [-100, 100]
MAX_POINTS = 11  # 0-10 at most: beyond that a row of radio buttons stops being readable
DEFAULT_SCALE = (1, 5)
MISSING_MESSAGE = "answer the questions about the whole text before submitting"


class AnswerError(ValueError):
    """An answer does not fit its question (the task API's 400, a bundle's problem)."""


# --- the config ---------------------------------------------------------------------------


def document_questions_problems(value, path):
    """Problems of config `document_questions` (studies.config calls this for span studies).

    Every problem keeps the question's list index in its path, so a bundle import
    reports the line of that question in study.yaml.
    """
    if not isinstance(value, list):
        return [ConfigProblem(path, "must be a list of questions {key, label, kind, ...}")]
    if len(value) > MAX_QUESTIONS:
        return [ConfigProblem(path, f"at most {MAX_QUESTIONS} questions, not {len(value)}")]
    problems, seen = [], set()
    for index, question in enumerate(value):
        where = (*path, index)
        if not isinstance(question, dict):
            problems.append(
                ConfigProblem(where, f"question {index + 1} must be a mapping {{key, label, kind}}")
            )
            continue
        key = question.get("key")
        name = f"question {index + 1}" + (f" ({key})" if isinstance(key, str) and key else "")
        problems += [ConfigProblem(where, f"{name}: {message}") for message in _question_problems(question)]
        if isinstance(key, str) and key in seen:
            problems.append(ConfigProblem(where, f"{name}: the key {key!r} is used by an earlier question"))
        seen.add(key if isinstance(key, str) else None)
    return problems


def _question_problems(question):
    problems = [
        f"unknown field {field!r} (known: {', '.join(FIELDS)})" for field in question if field not in FIELDS
    ]
    key = question.get("key")
    if not isinstance(key, str) or not KEY.fullmatch(key) or len(key) > MAX_KEY:
        problems.append(f"'key' is required: 1 to {MAX_KEY} letters, digits, _ and -")
    label = question.get("label")
    if not isinstance(label, str) or not label.strip() or len(label) > MAX_LABEL:
        problems.append(f"'label' is required: the question's text, at most {MAX_LABEL} characters")
    if "help" in question and (not isinstance(question["help"], str) or len(question["help"]) > MAX_HELP):
        problems.append(f"'help' must be a text of at most {MAX_HELP:,} characters")
    if "required" in question and not isinstance(question["required"], bool):
        problems.append("'required' must be true or false")
    kind = question.get("kind")
    if kind not in KINDS:
        problems.append(f"'kind' must be one of {', '.join(KINDS)}, not {kind!r}")
        return problems
    if kind in ("single", "multi"):
        problems += _options_problems(question.get("options"), kind)
    elif "options" in question:
        problems.append(f"a {kind} question has no 'options' (only single and multi questions do)")
    if kind == "likert":
        problems += _scale_problems(question.get("scale", {}))
    elif "scale" in question:
        problems.append(f"a {kind} question has no 'scale' (only likert questions do)")
    return problems


def _options_problems(options, kind):
    fewest = 2 if kind == "single" else 1
    if not isinstance(options, list) or not fewest <= len(options) <= MAX_OPTIONS:
        return [f"'options' must be a list of {fewest} to {MAX_OPTIONS} texts"]
    problems = []
    for option in options:
        if not isinstance(option, str) or not option.strip() or len(option) > MAX_OPTION:
            problems.append(f"option {option!r} must be a non-empty text of at most {MAX_OPTION} characters")
    texts = [option for option in options if isinstance(option, str)]
    repeated = sorted({option for option in texts if texts.count(option) > 1})
    if repeated:
        problems.append(
            f"options must differ: {', '.join(repr(option) for option in repeated)} more than once"
        )
    return problems


def _scale_problems(scale):
    if not isinstance(scale, dict):
        return ["'scale' must be a mapping {min, max, labels}"]
    problems = [f"unknown scale field {field!r} (known: min, max, labels)" for field in scale
                if field not in ("min", "max", "labels")]  # fmt: skip
    low, high = scale.get("min", DEFAULT_SCALE[0]), scale.get("max", DEFAULT_SCALE[1])
    for name, number in (("min", low), ("max", high)):
        if isinstance(number, bool) or not isinstance(number, int) or abs(number) > SCALE_BOUND:
            problems.append(f"scale.{name} must be a whole number from {-SCALE_BOUND} to {SCALE_BOUND}")
    if problems:
        return problems
    if not 2 <= high - low + 1 <= MAX_POINTS:
        problems.append(
            f"the scale must have from 2 to {MAX_POINTS} points (min below max), not {low} to {high}"
        )
    if "labels" in scale:
        bounds = (low, high) if not problems else (None, None)
        problems += [f"scale.labels: {p.message}" for p in point_labels(scale["labels"], *bounds, ())]
    return problems


# --- the questions of a study ---------------------------------------------------------------


def study_questions(study):
    """The study's document questions with every default filled in (a checked config)."""
    raw = study.config.get("document_questions") if isinstance(study.config, dict) else None
    return normalized_questions(raw)


def normalized_questions(raw):
    """Questions of a config value that passed document_questions_problems, defaults filled in."""
    if not isinstance(raw, list):
        return []
    questions = []
    for question in raw:
        kind = question["kind"]
        normal = {
            "key": question["key"],
            "label": question["label"],
            "kind": kind,
            "required": question.get("required", kind in REQUIRED_BY_DEFAULT),
            "help": question.get("help", ""),
        }
        if kind in ("single", "multi"):
            normal["options"] = list(question["options"])
        if kind == "likert":
            scale = question.get("scale", {})
            labels = scale.get("labels", {})
            normal["scale"] = {
                "min": scale.get("min", DEFAULT_SCALE[0]),
                "max": scale.get("max", DEFAULT_SCALE[1]),
                "labels": {str(int(point)): label for point, label in labels.items()},
            }
        questions.append(normal)
    return questions


# --- answers ------------------------------------------------------------------------------------


def is_empty(value):
    return value is None or value == "" or value == []


def checked_value(question, value):
    """The answer `value` as stored (None: no answer), or AnswerError saying what is wrong."""
    key, kind = question["key"], question["kind"]
    if is_empty(value):
        return None
    if kind == "likert":
        low, high = question["scale"]["min"], question["scale"]["max"]
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise AnswerError(f"{key}: give a whole number from {low} to {high}, not {value!r}")
        return value
    if kind == "single":
        if not isinstance(value, str) or value not in question["options"]:
            raise AnswerError(
                f"{key}: {value!r} is not one of its options ({', '.join(question['options'])})"
            )
        return value
    if kind == "multi":
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise AnswerError(f"{key}: give a list of its options ({', '.join(question['options'])})")
        strange = [v for v in value if v not in question["options"]]
        if strange:
            raise AnswerError(
                f"{key}: {strange[0]!r} is not one of its options ({', '.join(question['options'])})"
            )
        if len(set(value)) != len(value):
            raise AnswerError(f"{key}: an option is given more than once")
        return [option for option in question["options"] if option in value]
    if not isinstance(value, str) or len(value) > MAX_ANSWER_TEXT:
        raise AnswerError(f"{key}: give a text of at most {MAX_ANSWER_TEXT:,} characters")
    return value if value.strip() else None


def checked_answers(questions, answers):
    """{key: stored value or None} of `answers` ({key: value}); AnswerError on the first problem."""
    if not isinstance(answers, dict):
        raise AnswerError("'answers' must be an object {question key: answer}")
    if not questions:
        raise AnswerError("this study asks no questions about the whole text")
    by_key = {question["key"]: question for question in questions}
    checked = {}
    for key, value in answers.items():
        if key not in by_key:
            raise AnswerError(f"unknown question {key!r} (this study asks {', '.join(by_key)})")
        checked[key] = checked_value(by_key[key], value)
    return checked


def ordered_answers(questions, answers):
    """The stored answers of the study's questions, in the questions' order."""
    return {q["key"]: answers[q["key"]] for q in questions if not is_empty(answers.get(q["key"]))}


def unanswered(questions, answers):
    """The required questions without an answer."""
    return [q for q in questions if q["required"] and is_empty(answers.get(q["key"]))]


def missing_message(questions, answers):
    """Why the assignment cannot be submitted yet because of these answers, or ""."""
    left = unanswered(questions, answers)
    if not left:
        return ""
    return f"{MISSING_MESSAGE} (still to answer: {', '.join(q['label'] for q in left)})"


def answer_cell(value):
    """An answer in the annotation table: multi-choice answers joined by "; ", none as ""."""
    if value is None:
        return ""
    return "; ".join(value) if isinstance(value, list) else value
