"""The questions reviewers answer about each evaluator item (study config `questions`),
and the rules that keep one item's answers consistent with each other and with the item:

- `only_for_span: {option: [span statuses]}`: the option fits only items whose span
  has one of these statuses (found, not_found, no_span; ReviewItem.SpanStatus);
- `requires: {option: {question key: [options]}}` (multi-choice questions): the
  option may be ticked only together with one of those options of a single-choice question.
"""

SPAN_STATUSES = {
    "found": "found in the output",
    "not_found": "not found in the output",
    "no_span": "not given",
}

DEFAULT_QUESTIONS = [
    {"key": "span", "label": "Error span OK?", "kind": "single",
     "options": ["Error", "Not an error", "No span given", "Hallucination"],
     "only_for_span": {"No span given": ["no_span"], "Hallucination": ["not_found"]}},
    {"key": "explanation", "label": "Explanation OK?", "kind": "single",
     "options": ["Correct", "Partially correct", "Incomplete", "Vague", "Incorrect", "Not an error"]},
    {"key": "flags", "label": "Flags", "kind": "multi",
     "options": ["Too strict", "Not aspect related", "Repeated", "Hard to parse", "Implicit span"],
     "requires": {"Too strict": {"span": ["Not an error"]}}},
    {"key": "comment", "label": "Comments", "kind": "text"},
]  # fmt: skip
KINDS = ("single", "multi", "text")
QUESTION_FIELDS = ("key", "label", "kind", "options", "only_for_span", "requires")
# An answer of the first question that means "the evaluator found a real error".
REAL_ERROR_OPTIONS = {"Error"}


def study_questions(study):
    return study.config.get("questions") or DEFAULT_QUESTIONS


def check_questions(questions):
    """Problems of a `questions` list (for study.yaml), as (question index or None, message)."""
    problems, keys = [], set()
    if not isinstance(questions, list) or not questions:
        return [(None, "'questions' must be a non-empty list")]
    for index, question in enumerate(questions):
        number = index + 1
        if not isinstance(question, dict):
            problems.append((index, f"question {number} must be a mapping"))
            continue
        key, kind, options = question.get("key"), question.get("kind"), question.get("options", [])
        if not isinstance(key, str) or not key or key in keys:
            problems.append((index, f"question {number}: 'key' is required and unique"))
        keys.add(key)
        unknown = sorted(str(field) for field in question if field not in QUESTION_FIELDS)
        if unknown:
            problems.append((index, f"question {key}: unknown field(s) {', '.join(unknown)}"))
        if kind not in KINDS:
            problems.append((index, f"question {key}: kind must be one of {', '.join(KINDS)}"))
        if kind in ("single", "multi") and (not isinstance(options, list) or not options
                                            or not all(isinstance(o, str) for o in options)):  # fmt: skip
            problems.append((index, f"question {key}: 'options' must be a list of texts"))
    if problems:  # the rules refer to keys and options: check them once those are sound
        return problems
    by_key = {question["key"]: question for question in questions}
    for index, question in enumerate(questions):
        problems += [
            (index, f"question {question['key']}: {message}") for message in _rule_problems(question, by_key)
        ]
    return problems


def _rule_problems(question, by_key):
    problems, options = [], question.get("options", [])
    if "only_for_span" in question:
        rule = question["only_for_span"]
        if question["kind"] == "text" or not isinstance(rule, dict):
            problems.append(
                "'only_for_span' must map options to span statuses, e.g. {Hallucination: [not_found]}"
            )
            rule = {}
        for option, statuses in rule.items():
            if option not in options:
                problems.append(f"only_for_span: {option!r} is not one of its options")
            if (
                not isinstance(statuses, list)
                or not statuses
                or any(s not in SPAN_STATUSES for s in statuses)
            ):
                problems.append(f"only_for_span: {option!r} needs a list of span statuses "
                                f"({', '.join(SPAN_STATUSES)})")  # fmt: skip
    if "requires" in question:
        rule = question["requires"]
        if question["kind"] != "multi" or not isinstance(rule, dict):
            problems.append("'requires' is for multi-choice questions: {option: {question key: [options]}}")
            rule = {}
        for option, needed in rule.items():
            if option not in options:
                problems.append(f"requires: {option!r} is not one of its options")
            if not isinstance(needed, dict) or not needed:
                problems.append(f"requires: {option!r} needs {{question key: [options]}}")
                continue
            for other, allowed in needed.items():
                target = by_key.get(other)
                if target is None or target is question or target["kind"] != "single":
                    problems.append(f"requires: {other!r} is not another single-choice question")
                elif (
                    not isinstance(allowed, list)
                    or not allowed
                    or any(a not in target["options"] for a in allowed)
                ):
                    problems.append(f"requires: {option!r} needs a list of options of {other!r}")
    return problems


def option_reason(questions, question, option, *, span_status, answers):
    """Why `option` of `question` does not fit an item with `span_status` and the item's other
    `answers`, or None. The review page shows the same reasons (review/rules.js)."""
    statuses = (question.get("only_for_span") or {}).get(option)
    if statuses and span_status not in statuses:
        allowed = " or ".join(SPAN_STATUSES[status] for status in statuses)
        return f"{option!r} is only for items whose span is {allowed} (this item's span is {SPAN_STATUSES[span_status]})"
    by_key = {q["key"]: q for q in questions}
    for other, allowed in ((question.get("requires") or {}).get(option) or {}).items():
        if answers.get(other) not in allowed:
            label = by_key[other].get("label") or other
            return f"{option!r} goes only with {label} = {' or '.join(repr(a) for a in allowed)}"
    return None


def answer_error(questions, answers, *, span_status=None):
    """Why `answers` does not fit the questions, or None. With the item's `span_status`,
    the study's rules (`only_for_span`, `requires`) are checked too."""
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
    if span_status is None:
        return None
    for key, value in answers.items():
        question = by_key[key]
        chosen = (
            value
            if question["kind"] == "multi"
            else [value]
            if question["kind"] == "single" and value
            else []
        )
        for option in chosen:
            reason = option_reason(questions, question, option, span_status=span_status, answers=answers)
            if reason:
                return f"{key}: {reason}"
    return None
