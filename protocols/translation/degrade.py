"""Degrade a translation segment for a quality check (WMT's "bad references"): replace a phrase
by a phrase of similar length from another segment, or drop it. Pure: text in, text out, every
choice drawn from the `random.Random` it is given, so a seed gives the same copies again.

Offsets are code points. A phrase is a run of whole words (text between white space); in text
written without spaces (Chinese, Japanese, Thai) a run of characters. Its length follows WMT's
rule for bad references: of n words, 1 -> 1, 2-5 -> 2, 6-8 -> 3, 9-15 -> 4, 16-20 -> 5, more
than 20 -> n // 4.
"""

import itertools
import re
from dataclasses import dataclass

REPLACE, DROP = "replace", "drop"
MODES = (REPLACE, DROP)
DRAWS = 20  # donors drawn at random before they are tried in order
WORD = re.compile(r"\S+")
# Scripts written without spaces between words: kana, CJK ideographs, Thai, Lao, Khmer, Myanmar.
UNSPACED = re.compile(
    "[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
    "\U00020000-\U0003134f]"
)


@dataclass(frozen=True)
class Degraded:
    """A degraded segment: its new text, the changed span [start, end) in it (empty for a drop:
    where the phrase was), the window where a marked error catches it, and what changed."""

    text: str
    start: int
    end: int
    window_start: int
    window_end: int
    removed: str
    inserted: str
    donor: int | None = None  # the position in `donors` of the segment the phrase came from


def units(text):
    """The [start, end) code-point spans a phrase is made of: words, or characters in text
    mostly written without spaces (white space never counts as a unit)."""
    letters = [c for c in text if not c.isspace()]
    if letters and sum(1 for c in letters if UNSPACED.match(c)) * 2 > len(letters):
        return [(i, i + 1) for i, c in enumerate(text) if not c.isspace()]
    return [match.span() for match in WORD.finditer(text)]


def phrase_length(n):
    """How many units of a segment of n units a degradation changes (WMT's table)."""
    for most, length in ((1, 1), (5, 2), (8, 3), (15, 4), (20, 5)):
        if n <= most:
            return min(length, n)
    return n // 4


def _gap_window(text_units, start, removed_count):
    """For a drop: from the unit before the gap to the unit after it (the units kept)."""
    before = text_units[start - 1] if start > 0 else None
    after = text_units[start + removed_count] if start + removed_count < len(text_units) else None
    return before, after


def drop(text, rng):
    """`text` with a phrase dropped (Degraded), or None when it has fewer than two units."""
    spans = units(text)
    if len(spans) < 2:
        return None
    k = min(phrase_length(len(spans)), len(spans) - 1)
    first = rng.randrange(len(spans) - k + 1)
    cut_start, cut_end = spans[first][0], spans[first + k - 1][1]
    # With the phrase goes the white space after it (before it, at the end of the text), so no
    # double space is left behind.
    if first + k < len(spans):
        cut_end = spans[first + k][0]
    elif first > 0:
        cut_start = spans[first - 1][1]
    new = text[:cut_start] + text[cut_end:]
    before, after = _gap_window(spans, first, k)
    shift = cut_end - cut_start
    window_start = before[0] if before else cut_start
    window_end = after[1] - shift if after else cut_start
    return Degraded(new, cut_start, cut_start, window_start, max(window_end, window_start),
                    text[cut_start:cut_end], "")  # fmt: skip


def donor_phrases(text, k):
    """Every phrase of k units in `text`, as strings (the text between its first and last unit)."""
    spans = units(text)
    return [text[spans[i][0] : spans[i + k - 1][1]] for i in range(len(spans) - k + 1)]


def replace(text, donors, rng):
    """`text` with a phrase replaced by a phrase of as many units from one of `donors` (texts of
    other segments, in a stable order), or None when no donor has a different phrase that long."""
    spans = units(text)
    if not spans:
        return None
    k = phrase_length(len(spans))
    first = rng.randrange(len(spans) - k + 1)
    start, end = spans[first][0], spans[first + k - 1][1]
    removed = text[start:end]
    count = len(donors)
    if not count:
        return None
    # A few donors drawn at random, then every donor from a random place on: a study's many
    # segments are never all split into phrases for one check. The order is walked lazily, so a
    # check that finds its phrase among the first draws costs the same in any size of study.
    draws = [rng.randrange(count) for _ in range(min(DRAWS, count))]
    offset = rng.randrange(count)
    for i in itertools.chain(draws, ((offset + j) % count for j in range(count))):
        phrases = [p for p in donor_phrases(donors[i], k) if p != removed]
        if phrases:
            inserted = phrases[rng.randrange(len(phrases))]
            new = text[:start] + inserted + text[end:]
            stop = start + len(inserted)
            return Degraded(new, start, stop, start, stop, removed, inserted, i)
    return None


def degrade(text, mode, donors, rng):
    if mode == DROP:
        return drop(text, rng)
    if mode == REPLACE:
        return replace(text, donors, rng)
    raise ValueError(f"mode must be one of {', '.join(MODES)}")
