"""Where an evaluator's span lies in a document: code-point offsets in its segments.

Evaluators name spans by their text (LLMs), sometimes with the segment or
which occurrence they meant, or by offsets (imported predictions). A span is
placed only where the segment text holds exactly that text; one that is not
there is kept by the caller and marked not found, never guessed.
"""

from dataclasses import dataclass


@dataclass(frozen=True, order=True)
class Location:
    segment: int
    start: int
    end: int

    def as_list(self):
        return [self.segment, self.start, self.end]


def occurrences(text, segments, only_segment=None):
    """Every occurrence of `text` (non-overlapping, left to right) in document order."""
    found = []
    for index, segment in enumerate(segments):
        if only_segment is not None and index != only_segment:
            continue
        at = segment.find(text)
        while at >= 0:
            found.append(Location(index, at, at + len(text)))
            at = segment.find(text, at + len(text))
    return found


def locate(text, segments, *, segment=None, occurrence=None, start=None, end=None, every=True):
    """The places of a span: the given offsets when they hold `text`, else found by its text.

    segment: 0-based index to search in (None: every segment); occurrence:
    1-based, which match to take; otherwise every match (`every`) or the
    first. Returns a list of Locations, empty when the text is not there.
    """
    if segment is not None and not 0 <= segment < len(segments):
        return []
    if segment is not None and start is not None and end is not None:
        held = segments[segment]
        if 0 <= start < end <= len(held) and (not text or held[start:end] == text):
            return [Location(segment, start, end)]
    if not text:
        return []
    matches = occurrences(text, segments, segment)
    if not matches:
        stripped = text.strip().strip("\"'“”‘’").strip()
        if stripped and stripped != text:
            matches = occurrences(stripped, segments, segment)
    if occurrence is not None:
        return [matches[occurrence - 1]] if 0 < occurrence <= len(matches) else []
    return matches if every else matches[:1]


def locate_earlier(text, segments, later, *, occurrence=None):
    """The earlier span of a paired error: the first (or n-th) occurrence ending before `later` starts."""
    if not text:
        return None
    before = [
        place
        for place in occurrences(text, segments)
        if (place.segment, place.end) <= (later.segment, later.start) or place.segment < later.segment
    ]
    if occurrence is not None:
        return before[occurrence - 1] if 0 < occurrence <= len(before) else None
    return before[0] if before else None
