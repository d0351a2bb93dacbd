"""parse_json skips the walk of every value where the text itself shows nothing to refuse
(`_plainly_acceptable`); what it accepts and refuses must stay what the walk decides."""

import json
import random

import pytest

from falte_site.json_input import JSONInputError, _plainly_acceptable, check_json_value, parse_json

# Refused by the float hook while parsing: the text check never sees them.
NOT_FINITE = ["[1e400]", "[-1E+999, 2]"]
REFUSED = [
    '{"a": "\\u0000"}',
    '{"\\u0000": 1}',
    '["\\ud800"]',
    '["x\\uDFFF"]',
    '"\ud800"',  # a lone surrogate in a str as it is, not escaped
    "[NaN]",
    '{"a": -Infinity}',
    "[" * 65 + "]" * 65,
    '{"a":' * 65 + "1" + "}" * 65,
    '[{"a": [' * 22 + "]}]" * 22,  # 66 levels, objects and lists mixed
]
ACCEPTED = [
    "[" * 64 + "]" * 64,
    '{"a":' * 64 + "1" + "}" * 64,
    '["' + "[" * 100 + '"]',  # brackets inside a text are not nesting
    '["\\"[", [[]]]',
    "[1.5, 2e3, -0.0]",
    '{"text": "Anna met Ben — at the mill ✓"}',
]
# Accepted, but only after the walk: the shortcut errs on the side of walking.
WALKED = [
    '{"a": "\\\\u0000"}',  # an escaped backslash, then "u0000": six characters, no NUL
    '["Infinity", "NaN"]',
]


def outcome(check, text):
    try:
        check(text)
    except JSONInputError as error:
        return str(error)
    return "accepted"


def walked(text):
    """The decision without the shortcut: parse, then walk every value."""
    check_json_value(json.loads(text))


@pytest.mark.parametrize("text", NOT_FINITE + REFUSED + ACCEPTED + WALKED)
def test_the_shortcut_decides_as_the_walk_does(text):
    assert outcome(parse_json, text) == outcome(walked, text)


@pytest.mark.parametrize("text", REFUSED)
def test_nothing_refused_is_taken_for_plainly_acceptable(text):
    assert not _plainly_acceptable(text, 64)


@pytest.mark.parametrize("text", ACCEPTED)
def test_plain_texts_skip_the_walk(text):
    assert _plainly_acceptable(text, 64)


def random_value(rng, depth):
    kind = rng.random()
    if depth > 0 and kind < 0.35:
        return [random_value(rng, depth - 1) for _ in range(rng.randint(0, 3))]
    if depth > 0 and kind < 0.7:
        return {rng.choice(["a", "[", "\u0000", "\ud800", "b\\"]): random_value(rng, depth - 1)
                for _ in range(rng.randint(0, 3))}  # fmt: skip
    return rng.choice(
        ["x", "{[", "\u0000", "\ud800", "\\u0000", "é", 1, 2.5, float("inf"), float("nan"), None, True]
    )


def test_random_texts_are_decided_as_the_walk_decides_them():
    """An independent check: seeded random values (texts with brackets, escapes, NUL and
    surrogates, non-finite numbers, nesting around the limit) written as JSON, decided by
    parse_json and by the walk."""
    rng = random.Random(7)
    refused = 0
    for _ in range(3000):
        value = random_value(rng, rng.choice([2, 5, 8]))
        for _ in range(rng.choice([0, 0, 58, 62])):
            value = [value]
        text = json.dumps(value, ensure_ascii=rng.random() < 0.5)
        expected = outcome(walked, text)
        refused += expected != "accepted"
        assert outcome(parse_json, text) == expected, text[:200]
    assert 300 < refused < 2700  # both outcomes well represented
