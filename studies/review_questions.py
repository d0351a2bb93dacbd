"""The questions reviewers answer about each evaluator item (study config `questions`)."""

DEFAULT_QUESTIONS = [
    {"key": "span", "label": "Error span OK?", "kind": "single",
     "options": ["Error", "Not an error", "No span given", "Hallucination"]},
    {"key": "explanation", "label": "Explanation OK?", "kind": "single",
     "options": ["Correct", "Partially correct", "Incomplete", "Vague", "Incorrect", "Not an error"]},
    {"key": "flags", "label": "Flags", "kind": "multi",
     "options": ["Too strict", "Not aspect related", "Repeated", "Hard to parse", "Implicit span"]},
    {"key": "comment", "label": "Comments", "kind": "text"},
]  # fmt: skip
KINDS = ("single", "multi", "text")
# An answer of the first question that means "the evaluator found a real error".
REAL_ERROR_OPTIONS = {"Error"}


def study_questions(study):
    return study.config.get("questions") or DEFAULT_QUESTIONS


def check_questions(questions):
    """Problems of a `questions` list (for study.yaml), as messages."""
    problems, keys = [], set()
    if not isinstance(questions, list) or not questions:
        return ["'questions' must be a non-empty list"]
    for number, question in enumerate(questions, start=1):
        if not isinstance(question, dict):
            problems.append(f"question {number} must be a mapping")
            continue
        key, kind, options = question.get("key"), question.get("kind"), question.get("options", [])
        if not isinstance(key, str) or not key or key in keys:
            problems.append(f"question {number}: 'key' is required and unique")
        keys.add(key)
        if kind not in KINDS:
            problems.append(f"question {key}: kind must be one of {', '.join(KINDS)}")
        if kind in ("single", "multi") and (not isinstance(options, list) or not options
                                            or not all(isinstance(o, str) for o in options)):  # fmt: skip
            problems.append(f"question {key}: 'options' must be a list of texts")
    return problems


def answer_error(questions, answers):
    """Why `answers` does not fit the questions, or None."""
    if not isinstance(answers, dict):
        return "'answers' must be an object {question: answer}"
    by_key = {q["key"]: q for q in questions}
    for key, value in answers.items():
        question = by_key.get(key)
        if question is None:
            return f"unknown question {key!r}"
        if question["kind"] == "single" and value is not None and value not in question["options"]:
            return f"{key}: {value!r} is not one of its options"
        if question["kind"] == "multi" and (
            not isinstance(value, list) or any(v not in question["options"] for v in value)
        ):
            return f"{key}: give a list of its options"
        if question["kind"] == "text" and (not isinstance(value, str) or len(value) > 5000):
            return f"{key}: give a text of at most 5000 characters"
    return None
