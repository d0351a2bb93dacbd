"""An evaluator's answer, read: which errors it lists and where each one lies in the document.

The answer of an LLM is JSON, ``{"errors": [{"category", "span", "segment",
"occurrence", "earlier_span", "explanation"}]}`` (segments numbered from 1 as
the prompt shows them). Imported predictions and built-in detectors give the
same items with 0-based segments and, often, offsets. Every item is kept,
with ``status``:

- ``found``: placed; ``locations`` holds [segment, start, end] (code points);
- ``not_found``: the span text is not in the document (or the segment named);
- ``unknown_category``: a category the taxonomy does not have;
- ``no_span``: no span text and no offsets;
- ``invalid``: not an object, or fields of the wrong type.

A paired category's earlier span is placed in ``earlier`` when found.
"""

import json
import re

from studies.spans import is_whole_number

from .locating import Location, locate, locate_earlier

FOUND, NOT_FOUND, UNKNOWN_CATEGORY, NO_SPAN, INVALID = (
    "found",
    "not_found",
    "unknown_category",
    "no_span",
    "invalid",
)
FENCE = re.compile(r"^\s*```[A-Za-z0-9_-]*\s*\n(.*?)\n?```\s*$", re.DOTALL)


class MalformedAnswer(ValueError):
    """The answer is not JSON of the expected shape; the message says how."""


def answer_schema(category_keys):
    """The JSON schema of an answer, for endpoints with structured outputs (strict mode)."""
    item = {
        "type": "object",
        "properties": {
            "category": {"type": "string", "enum": list(category_keys)},
            "span": {"type": "string"},
            "segment": {"type": ["integer", "null"]},
            "occurrence": {"type": ["integer", "null"]},
            "earlier_span": {"type": ["string", "null"]},
            "explanation": {"type": "string"},
        },
        "required": ["category", "span", "segment", "occurrence", "earlier_span", "explanation"],
        "additionalProperties": False,
    }
    return {
        "type": "object",
        "properties": {"errors": {"type": "array", "items": item}},
        "required": ["errors"],
        "additionalProperties": False,
    }


def answer_items(content):
    """The raw error items of an LLM answer; MalformedAnswer when it is not the expected JSON.

    Tolerates a Markdown code fence around the JSON (many local models add one)
    and a bare list instead of ``{"errors": [...]}``.
    """
    if content is None or not content.strip():
        raise MalformedAnswer("the answer is empty")
    text = content.strip()
    fenced = FENCE.match(text)
    if fenced:
        text = fenced.group(1)
    try:
        value = json.loads(text)
    except ValueError as error:
        raise MalformedAnswer(f"the answer is not JSON ({error})") from None
    if isinstance(value, dict):
        if "errors" not in value:
            raise MalformedAnswer("the answer has no 'errors' list")
        value = value["errors"]
    if not isinstance(value, list):
        raise MalformedAnswer("'errors' is not a list")
    return [_from_answer(item) for item in value]


def _from_answer(item):
    """One LLM item in the stored shape (0-based segment)."""
    if not isinstance(item, dict):
        return {"raw": item, "status": INVALID, "problem": "not an object"}
    stored = {
        "category": item.get("category"),
        "span": item.get("span", item.get("text")),
        "segment": item.get("segment"),
        "occurrence": item.get("occurrence"),
        "earlier_span": item.get("earlier_span"),
        "explanation": item.get("explanation") or "",
    }
    if is_whole_number(stored["segment"]):
        stored["segment"] -= 1  # the prompt numbers segments from 1
    return stored


def _type_problem(item):
    if not isinstance(item.get("category"), str):
        return "'category' must be text"
    if item.get("span") is not None and not isinstance(item["span"], str):
        return "'span' must be text"
    for name in ("segment", "occurrence", "start", "end"):
        if item.get(name) is not None and not is_whole_number(item[name]):
            return f"'{name}' must be a whole number"
    if item.get("occurrence") is not None and item["occurrence"] < 1:
        return "'occurrence' counts from 1"
    if item.get("earlier_span") is not None and not isinstance(item["earlier_span"], str):
        return "'earlier_span' must be text"
    if not isinstance(item.get("explanation", ""), str):
        return "'explanation' must be text"
    return None


def placed_items(items, segments, categories, *, every=True):
    """`items` with status, locations and (paired categories) the earlier span; see the module doc.

    categories: {key: "singleton" | "paired"}.
    """
    placed = []
    for item in items:
        if item.get("status") == INVALID:
            placed.append(item)
            continue
        item = dict(item, locations=[], earlier=None)
        problem = _type_problem(item)
        if problem:
            placed.append(dict(item, status=INVALID, problem=problem))
            continue
        if item["category"] not in categories:
            placed.append(dict(item, status=UNKNOWN_CATEGORY))
            continue
        span = item.get("span") or ""
        if not span and item.get("start") is None:
            placed.append(dict(item, status=NO_SPAN))
            continue
        locations = locate(
            span, segments, segment=item.get("segment"), occurrence=item.get("occurrence"),
            start=item.get("start"), end=item.get("end"), every=every,
        )  # fmt: skip
        if not locations:
            placed.append(dict(item, status=NOT_FOUND))
            continue
        item["status"] = FOUND
        item["locations"] = [location.as_list() for location in locations]
        if not span:  # given by offsets only: record what they hold
            first = locations[0]
            item["span"] = segments[first.segment][first.start : first.end]
        if categories[item["category"]] == "paired":
            item["earlier"] = _earlier(item, segments, locations[0])
            if item["earlier"] and not item.get("earlier_span"):
                segment, start, end = item["earlier"]
                item["earlier_span"] = segments[segment][start:end]
        placed.append(item)
    return placed


def _earlier(item, segments, later):
    given = item.get("earlier_given")  # offsets from imported predictions
    if isinstance(given, dict):
        places = locate(
            given.get("text") or "", segments, segment=given.get("segment"),
            start=given.get("start"), end=given.get("end"), every=False,
        )  # fmt: skip
        if places and places[0] <= Location(later.segment, later.start, later.start):
            return places[0].as_list()
    earlier = locate_earlier(item.get("earlier_span") or "", segments, later)
    return earlier.as_list() if earlier else None
