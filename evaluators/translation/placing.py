"""Where a translation judge's errors lie, and which of its scores count.

Every error of the answer is kept in the run's result with a status:

- ``found``: placed; ``side`` (target, source or missing) and ``locations``
  ([[segment, start, end]], code points of that side's text) say where;
- ``not_found``: the span's text is not in the segment (or in any segment);
- ``unknown_category``: MQM, a category that is not one of the study's;
- ``unknown_severity``: a severity the study does not have (ESA: Minor, Major);
- ``no_span``: no span text (and no [missing] marker asked for);
- ``invalid``: a field of the wrong type, a segment the document does not have, a
  side the study does not offer;
- ``over_cap``: placed, but past the study's `max_errors_per_segment`: a person
  may mark only that many, so the judge keeps that many too, the most severe first.

Each one that is not found says why in ``problem``. A span is found by its text,
exactly as the people's spans are stored: the first occurrence in the segment named
(or, with none named, in document order), or the n-th when ``occurrence`` is given;
one error is one span, never one per occurrence, as an MQM score counts errors. A
whole-segment category (Non-translation) covers the whole translated segment.

ESA scores are kept with ``status`` ``found``, or ``invalid`` (not a number, no such
segment), ``out_of_scale`` or ``duplicate`` (a second score for a segment: the first
counts).
"""

import math
import re
from dataclasses import dataclass

from protocols.translation.keys import MISSING, SOURCE, TARGET
from studies.spans import is_whole_number

from ..answers import FOUND, INVALID, NO_SPAN, NOT_FOUND, UNKNOWN_CATEGORY
from ..locating import locate

UNKNOWN_SEVERITY = "unknown_severity"
OVER_CAP = "over_cap"
OUT_OF_SCALE = "out_of_scale"
DUPLICATE = "duplicate"
SIDE_WORDS = {None: TARGET, "": TARGET, "target": TARGET, "translation": TARGET, "source": SOURCE,
              "missing": MISSING, "omission": MISSING}  # fmt: skip


@dataclass(frozen=True)
class Category:
    key: str
    label: str
    whole_segment: bool


@dataclass(frozen=True)
class Rules:
    """What the study lets a person mark, which the judge keeps to as well."""

    categories: tuple | None  # Category rows (MQM); None: errors have no category (ESA)
    severities: tuple  # the study's spelling, mildest first
    source_spans: bool
    missing_marker: bool
    cap: int | None
    scale: tuple | None  # (min, max) of the segment score (ESA); None: no score asked

    def category(self, name):
        wanted = _plain(name)
        for category in self.categories:
            if wanted in (_plain(category.label), _plain(category.key)):
                return category
        return None

    def severity(self, name):
        for severity in self.severities:
            if severity.lower() == name.strip().lower():
                return severity
        return None


def _plain(name):
    """A category name compared without case or blanks around its parts ("accuracy / Omission")."""
    return re.sub(r"\s*/\s*", "/", " ".join(name.split())).lower()


def placed_errors(errors, targets, sources, rules):
    """Every error with its status, located in `targets` (or `sources`) and capped per segment."""
    placed = [_placed(dict(error), targets, sources, rules) for error in errors]
    if rules.cap is not None:
        _cap(placed, rules)
    return placed


def _placed(error, targets, sources, rules):
    if error.get("status") == INVALID:
        return error
    error["locations"] = []
    if problem := _type_problem(error):
        return _kept(error, INVALID, problem)
    severity = rules.severity(error["severity"])
    if severity is None:
        return _kept(
            error,
            UNKNOWN_SEVERITY,
            f"severity {error['severity']!r} is not one of {', '.join(rules.severities)}",
        )
    error["severity"] = severity
    category = None
    if rules.categories is not None:
        name = error.get("category")
        category = rules.category(name) if isinstance(name, str) else None
        if category is None:
            return _kept(error, UNKNOWN_CATEGORY, f"category {name!r} is not in the study's taxonomy")
        error["category"] = category.key
    else:
        error["category"] = None  # an ESA error has a severity only; a category given is not used
    segment = error.get("segment")
    if segment is not None and not 0 <= segment < len(targets):
        return _kept(
            error, INVALID, f"segment {segment + 1} is not in the document ({len(targets)} segments)"
        )
    side = SIDE_WORDS.get((error["side"] or "").strip().lower())
    if category is not None and category.whole_segment:
        return _whole_segment(error, targets)
    if side is None:
        return _kept(error, INVALID, f"side {error['side']!r} is not target, source or missing")
    if side == MISSING:
        return _missing(error, rules)
    if side == SOURCE and not rules.source_spans:
        return _kept(error, INVALID, "this study marks errors in the translation only")
    return _located(error, side, targets if side == TARGET else sources)


def _type_problem(error):
    if not isinstance(error.get("severity"), str):
        return "'severity' must be text"
    for name in ("span", "side"):
        if error.get(name) is not None and not isinstance(error[name], str):
            return f"'{name}' must be text"
    for name in ("segment", "occurrence", "start", "end"):
        if error.get(name) is not None and not is_whole_number(error[name]):
            return f"'{name}' must be a whole number"
    if error.get("occurrence") is not None and error["occurrence"] < 1:
        return "'occurrence' counts from 1"
    if not isinstance(error.get("explanation", ""), str):
        return "'explanation' must be text"
    return None


def _kept(error, status, problem):
    error["status"], error["problem"] = status, problem
    return error


def _found(error, side, segment, start, end):
    error.update(status=FOUND, side=side, locations=[[segment, start, end]])
    return error


def _whole_segment(error, targets):
    segment = error.get("segment")
    if segment is None and error.get("span"):
        places = locate(error["span"], targets, every=False)
        segment = places[0].segment if places else None
    if segment is None:
        return _kept(error, NOT_FOUND, "a whole-segment error needs its segment")
    if not targets[segment]:
        return _kept(error, NOT_FOUND, f"segment {segment + 1} is empty")
    error["span"] = targets[segment]
    return _found(error, TARGET, segment, 0, len(targets[segment]))


def _missing(error, rules):
    if not rules.missing_marker:
        return _kept(error, INVALID, "this study has no [missing] marker: quote the source words left out")
    if error.get("segment") is None:
        return _kept(error, INVALID, "a [missing] marker needs its segment")
    error["span"] = ""
    return _found(error, MISSING, error["segment"], 0, 0)


def _located(error, side, texts):
    span = error.get("span") or ""
    if not span and error.get("start") is None:
        return _kept(error, NO_SPAN, "no span: quote the words in error")
    places = locate(
        span, texts, segment=error.get("segment"), occurrence=error.get("occurrence"),
        start=error.get("start"), end=error.get("end"), every=False,
    )  # fmt: skip
    if not places:
        where = f"segment {error['segment'] + 1}" if error.get("segment") is not None else "any segment"
        return _kept(error, NOT_FOUND, f"{span!r} is not in the {side} text of {where}")
    place = places[0]
    error["span"] = texts[place.segment][place.start : place.end]
    return _found(error, side, place.segment, place.start, place.end)


def _cap(placed, rules):
    """Past the cap of a segment, the mildest errors (the latest listed among equals) become over_cap."""
    rank = {severity: number for number, severity in enumerate(rules.severities)}
    by_segment = {}
    for number, error in enumerate(placed):
        if error.get("status") == FOUND:
            by_segment.setdefault(error["locations"][0][0], []).append(number)
    for segment, numbers in by_segment.items():
        kept = sorted(numbers, key=lambda n: (-rank[placed[n]["severity"]], n))[: rules.cap]
        for number in set(numbers) - set(kept):
            _kept(
                placed[number],
                OVER_CAP,
                f"past the study's {rules.cap} errors per segment of segment {segment + 1}",
            )


def placed_scores(scores, segments, scale):
    """Every score with its status; `segments` is how many the document has."""
    low, high = scale
    kept, seen = [], set()
    for given in scores:
        entry = {"segment": given.get("segment"), "score": given.get("score")}
        segment, value = entry["segment"], _score_value(entry["score"])
        if not is_whole_number(segment) or not 0 <= segment < segments:
            shown = segment + 1 if is_whole_number(segment) else segment
            kept.append(dict(entry, status=INVALID, problem=f"segment {shown!r} is not in the document"))
        elif value is None:
            kept.append(dict(entry, status=INVALID, problem=f"score {entry['score']!r} is not a number"))
        elif not low <= value <= high:
            kept.append(
                dict(entry, status=OUT_OF_SCALE, problem=f"score {value:g} is outside {low} to {high}")
            )
        elif segment in seen:
            kept.append(
                dict(
                    entry,
                    status=DUPLICATE,
                    problem=f"segment {segment + 1} is scored twice; the first counts",
                )
            )
        else:
            seen.add(segment)
            kept.append(dict(entry, score=value, status=FOUND))
    return kept


def _score_value(value):
    """A finite number, from a number or a numeric text ("85"); None otherwise."""
    if isinstance(value, str):
        try:
            value = float(value.strip())
        except ValueError:
            return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return float(value)
