"""A translation judge's answer, read: the errors it lists per segment and (ESA) each segment's score.

The prompt asks for ``{"segments": [{"segment": 1, "errors": [{"span", "side",
"category", "severity", "explanation"}], "score": 72}]}``, segments numbered from 1
as the prompt shows them (MQM answers have no score, ESA errors no category). Models
do not always keep to it, so these are read too, and give the same thing:

- the JSON inside a Markdown code fence;
- a bare list of segments;
- a flat ``{"errors": [...], "scores": [...]}`` whose errors name their segment, with
  scores as ``[{"segment", "score"}]`` or ``{"1": 72}``;
- ``text`` for ``span``, ``comment`` for ``explanation``.

Anything else at the top is a MalformedAnswer. Inside, nothing is refused here: an
entry that is not an object is kept as an invalid item, and every field is checked
where the error is placed (placing.py), so one bad error never costs the others.
"""

import json
from dataclasses import dataclass, field

from studies.spans import is_whole_number

from ..answers import FENCE, INVALID, MalformedAnswer

ERROR_FIELDS = ("span", "side", "category", "severity", "explanation")


@dataclass
class Judgment:
    """The raw errors and scores of one document's answer, segments counted from 0."""

    errors: list = field(default_factory=list)
    scores: list = field(default_factory=list)


def judgment_schema(*, categories, severities, sides, scale):
    """The answer's JSON schema for endpoints with structured outputs (strict mode).

    categories: the labels an MQM error may have (None for ESA, whose errors have none);
    scale: (min, max) of the ESA score, None for MQM."""
    error = {"span": {"type": "string"}, "side": {"type": "string", "enum": list(sides)}}
    if categories is not None:
        error["category"] = {"type": "string", "enum": list(categories)}
    error["severity"] = {"type": "string", "enum": list(severities)}
    error["explanation"] = {"type": "string"}
    segment = {
        "segment": {"type": "integer"},
        "errors": {"type": "array", "items": _strict(error)},
    }
    if scale is not None:
        segment["score"] = {"type": "number"}
    return _strict({"segments": {"type": "array", "items": _strict(segment)}})


def _strict(properties):
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


def read_judgment(content):
    """The Judgment of an answer; MalformedAnswer when it is not JSON of a shape listed above."""
    if content is None or not content.strip():
        raise MalformedAnswer("the answer is empty")
    text = content.strip()
    if fenced := FENCE.match(text):
        text = fenced.group(1)
    try:
        value = json.loads(text)
    except ValueError as error:
        raise MalformedAnswer(f"the answer is not JSON ({error})") from None
    except RecursionError:
        raise MalformedAnswer("the answer nests deeper than JSON can be read here") from None
    judgment = Judgment()
    if isinstance(value, list):
        value = {"segments": value} if any(_is_segment(entry) for entry in value) else {"errors": value}
    if not isinstance(value, dict):
        raise MalformedAnswer("the answer is neither an object nor a list")
    if "segments" in value:
        if not isinstance(value["segments"], list):
            raise MalformedAnswer("'segments' is not a list")
        for entry in value["segments"]:
            _read_segment(entry, judgment)
    elif "errors" in value:
        if not isinstance(value["errors"], list):
            raise MalformedAnswer("'errors' is not a list")
        judgment.errors += [error_item(item, None) for item in value["errors"]]
    else:
        raise MalformedAnswer("the answer has no 'segments' list")
    if "scores" in value:
        judgment.scores += _flat_scores(value["scores"])
    return judgment


def _is_segment(entry):
    return isinstance(entry, dict) and ("errors" in entry or "score" in entry)


def _from_one(number):
    """A segment number as the prompt gives it (from 1), counted from 0; other values as they are."""
    return number - 1 if is_whole_number(number) else number


def _read_segment(entry, judgment):
    if not isinstance(entry, dict):
        judgment.errors.append(
            {"raw": entry, "status": INVALID, "problem": "a segment entry is not an object"}
        )
        return
    segment = _from_one(entry.get("segment"))
    errors = entry.get("errors") or []
    if not isinstance(errors, list):
        judgment.errors.append(
            {"raw": errors, "segment": segment, "status": INVALID, "problem": "'errors' is not a list"}
        )
    else:
        judgment.errors += [error_item(item, segment) for item in errors]
    if "score" in entry:
        judgment.scores.append({"segment": segment, "score": entry["score"]})


def error_item(item, segment):
    """One error in the stored shape: the segment its entry names (from 0), else its own (from 1)."""
    if not isinstance(item, dict):
        return {"raw": item, "segment": segment, "status": INVALID, "problem": "not an object"}
    stored = {
        "segment": segment if segment is not None else _from_one(item.get("segment")),
        "span": item.get("span", item.get("text")),
        "side": item.get("side"),
        "category": item.get("category"),
        "severity": item.get("severity"),
        "occurrence": item.get("occurrence"),
        "explanation": item.get("explanation", item.get("comment")) or "",
    }
    for name in ("start", "end"):  # imported predictions give offsets
        if item.get(name) is not None:
            stored[name] = item[name]
    return stored


def _flat_scores(value):
    if isinstance(value, dict):
        return [{"segment": _from_one(_number(key)), "score": score} for key, score in value.items()]
    if isinstance(value, list):
        return [
            {"segment": _from_one(entry.get("segment")), "score": entry.get("score")}
            if isinstance(entry, dict)
            else {"segment": None, "score": entry}
            for entry in value
        ]
    return [{"segment": None, "score": value}]


def _number(key):
    return int(key) if isinstance(key, str) and key.strip().isdigit() else key
