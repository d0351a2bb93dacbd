"""Review studies (meta-evaluation of evaluator outputs): per-evaluator answer
distributions and agreement per question (METRICS.md, "Review studies")."""

from collections import Counter, defaultdict
from dataclasses import dataclass

import numpy as np

from reports.metrics.alpha import krippendorff_alpha
from reports.metrics.nullable import put_value

REAL_ERROR = "Error"


@dataclass(frozen=True)
class ReviewedItem:
    id: int
    evaluator: str  # the real name: reports are for researchers
    span_status: str  # found | not_found | no_span


@dataclass(frozen=True)
class ReviewAnswerRow:
    reviewer: str
    item: int
    answers: dict


def _share(part, whole):
    return 100.0 * part / whole if whole else None


def review_report(items, answers, questions):
    """{"evaluators": {name: ...}, "questions": {key: {"alpha", ...}}} for `items` and `answers`."""
    by_item = {item.id: item for item in items}
    evaluators = {}
    for name in sorted({item.evaluator for item in items}):
        mine = [item for item in items if item.evaluator == name]
        mine_ids = {item.id for item in mine}
        rows = [row for row in answers if row.item in mine_ids]
        counts = {q["key"]: Counter() for q in questions if q["kind"] in ("single", "multi")}
        for row in rows:
            for question in questions:
                value = row.answers.get(question["key"])
                if question["kind"] == "single" and value is not None:
                    counts[question["key"]][value] += 1
                elif question["kind"] == "multi":
                    counts[question["key"]].update(value or [])
        entry = {
            "items": len(mine),
            "not_found": sum(item.span_status == "not_found" for item in mine),
            "no_span": sum(item.span_status == "no_span" for item in mine),
            "reviews": len(rows),
            "answers": {key: {option: counter[option] for option in _options(questions, key)} for key, counter in counts.items()},
        }  # fmt: skip
        put_value(entry, "not_found_pct", _share(entry["not_found"], len(mine)), "no items")
        first_single = next((q for q in questions if q["kind"] == "single"), None)
        if first_single is not None:
            judged = sum(counts[first_single["key"]].values())
            put_value(entry, "real_error_pct", _share(counts[first_single["key"]][REAL_ERROR], judged),
                      f"no answer to {first_single['key']!r}")  # fmt: skip
        flags = {}
        for question in questions:
            if question["kind"] == "multi":
                flags[question["key"]] = {
                    option: _share(counts[question["key"]][option], len(rows))
                    for option in question["options"]
                }
        entry["flag_rates_pct"] = flags
        evaluators[name] = entry
    agreement = {}
    reviewers = sorted({row.reviewer for row in answers})
    for question in questions:
        if question["kind"] != "single":
            continue
        options = {option: code for code, option in enumerate(question["options"])}
        per_item = defaultdict(dict)
        for row in answers:
            value = row.answers.get(question["key"])
            if value in options and row.item in by_item:
                per_item[row.item][row.reviewer] = options[value]
        units = [item for item, given in per_item.items() if len(given) >= 2]
        entry = {"items_with_two_reviewers": len(units)}
        data = np.full((len(reviewers), len(units)), np.nan)
        index = {reviewer: n for n, reviewer in enumerate(reviewers)}
        for column, item in enumerate(units):
            for reviewer, code in per_item[item].items():
                data[index[reviewer], column] = code
        result = krippendorff_alpha(data, "nominal") if units else None
        put_value(entry, "alpha", result.alpha if result else None,
                  (result.reason if result else None) or "no item has two reviewers")  # fmt: skip
        agreement[question["key"]] = entry
    return {"evaluators": evaluators, "questions": agreement}


def _options(questions, key):
    return next(q["options"] for q in questions if q["key"] == key)
