"""Built-in detectors: evaluators that need no network. Adding one is one class with @detector.

A detector reads a document's segments and returns error items in the shape
of evaluators/answers.py (0-based segments, offsets in code points), which
the run places and stores like an LLM's answer.
"""

import re

from studies.spans import is_whole_number

WORD = re.compile(r"\w+")
DETECTORS = {}


class DetectorOptionError(ValueError):
    """A detector option is missing or wrong; the message names it."""


def detector(cls):
    """Register a detector class under its `key`."""
    DETECTORS[cls.key] = cls
    return cls


def make_detector(key, options, categories):
    """The detector `key` configured by `options`; DetectorOptionError when they are wrong.

    categories: {key: "singleton" | "paired"} of the study's taxonomy.
    """
    if key not in DETECTORS:
        raise DetectorOptionError(f"unknown detector {key!r} (one of {', '.join(sorted(DETECTORS))})")
    return DETECTORS[key](options or {}, categories)


class Detector:
    key = ""
    label = ""

    def __init__(self, options, categories):
        self.options = dict(options)
        self.categories = categories

    def detect(self, segments):
        raise NotImplementedError

    def option(self, name, default, check, message):
        value = self.options.get(name, default)
        if not check(value):
            raise DetectorOptionError(f"{self.key}: option '{name}' {message} (got {value!r})")
        return value


def _whole_at_least(low):
    return lambda value: is_whole_number(value) and value >= low


@detector
class RepetitionDetector(Detector):
    """Repeated word n-grams, within and across segments (a language error of SNaC's kind RepE).

    Options: ``category`` (required; a paired category gets the first
    occurrence as its earlier span), ``n`` (words per n-gram, default 4),
    ``ignore_case`` (default true). Runs of overlapping repeated n-grams
    become one span; n-grams never cross a segment border, and a repeat
    that overlaps its own first occurrence ("la la la la la") is left out.
    """

    key = "repetition"
    label = "Repeated word n-grams"

    def __init__(self, options, categories):
        super().__init__(options, categories)
        self.category = self.option(
            "category", None, lambda v: v in categories, "must be a category of the taxonomy"
        )
        self.n = self.option("n", 4, _whole_at_least(1), "must be a whole number of words, at least 1")
        self.ignore_case = self.option(
            "ignore_case", True, lambda v: isinstance(v, bool), "must be true or false"
        )
        unknown = set(self.options) - {"category", "n", "ignore_case"}
        if unknown:
            raise DetectorOptionError(f"{self.key}: unknown option(s) {', '.join(sorted(unknown))}")

    def detect(self, segments):
        words = []  # (segment, start, end, normalised word), in document order
        for index, text in enumerate(segments):
            for match in WORD.finditer(text):
                word = match.group().casefold() if self.ignore_case else match.group()
                words.append((index, match.start(), match.end(), word))
        first_seen = {}
        repeats = []  # (position, position of the first occurrence)
        for position in range(len(words) - self.n + 1):
            gram = words[position : position + self.n]
            if gram[0][0] != gram[-1][0]:
                continue  # crosses a segment border
            key = tuple(word for *_, word in gram)
            if key not in first_seen:
                first_seen[key] = position
            elif first_seen[key] + self.n <= position:
                repeats.append((position, first_seen[key]))
        return [self._item(words, run) for run in self._runs(repeats, words)]

    def _runs(self, repeats, words):
        """Consecutive repeats whose first occurrences are consecutive too, as (first, last, earlier first)."""
        runs = []
        for position, earlier in repeats:
            if runs:
                first, last, earlier_first = runs[-1]
                same_segment = (
                    words[position][0] == words[first][0] and words[earlier][0] == words[earlier_first][0]
                )
                if position == last + 1 and earlier == earlier_first + (position - first) and same_segment:
                    runs[-1] = (first, position, earlier_first)
                    continue
            runs.append((position, position, earlier))
        return runs

    def _item(self, words, run):
        first, last, earlier_first = run
        segment, start = words[first][0], words[first][1]
        end = words[last + self.n - 1][2]
        length = last - first + self.n
        earlier_segment, earlier_start = words[earlier_first][0], words[earlier_first][1]
        earlier_end = words[earlier_first + length - 1][2]
        item = {
            "category": self.category, "segment": segment, "start": start, "end": end, "span": None,
            "explanation": f"repeats {length} words first written in segment {earlier_segment + 1}",
        }  # fmt: skip
        if self.categories[self.category] == "paired":
            item["earlier_given"] = {"segment": earlier_segment, "start": earlier_start, "end": earlier_end}
        return item
