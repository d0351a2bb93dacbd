"""Whole documents cut into segments of whole sentences, with exact code-point offsets.

A segment is an exact slice of the document's text; what lies between
segments (and before the first, after the last) is kept as separators, so
joining segments and separators gives the document back character for
character. Sentences come from the platform's own splitter
(studies.sentences, docs/decisions.md), so an imported study highlights the
same sentences as any other.
"""

import bisect
from dataclasses import dataclass

from studies.sentences import sentence_offsets


class SpanOutside(ValueError):
    """A document span that no single segment holds; the message says where it falls."""


@dataclass
class Segmentation:
    segments: list  # texts, each an exact slice of the document
    starts: list  # the document offset where each segment starts
    separators: list  # len(segments) + 1 texts: before the first segment, between each two, after the last
    sentences: list  # per segment, [[start, end], ...] relative to the segment

    def locate(self, start, end):
        """(segment index, start, end in the segment) of the document span [start, end)."""
        index = bisect.bisect_right(self.starts, start) - 1
        if index < 0:
            index, inside = 0, False
        else:
            inside = start < self.starts[index] + len(self.segments[index])
        if not inside:
            following = index + 1 if start >= self.starts[index] else index
            if following >= len(self.segments) or end <= self.starts[following]:
                raise SpanOutside(f"[{start}, {end}) lies in the white space between segments, in no segment")
            raise SpanOutside(
                f"[{start}, {end}) crosses the border between segments {following - 1} and {following}"
            )
        segment_end = self.starts[index] + len(self.segments[index])
        if end > segment_end:
            last = bisect.bisect_right(self.starts, end - 1) - 1
            raise SpanOutside(
                f"[{start}, {end}) crosses the border between segments {index} and {max(last, index + 1)}"
            )
        return index, start - self.starts[index], end - self.starts[index]

    def document_offset(self, segment, offset):
        return self.starts[segment] + offset


def segment_document(text, sentences_per_segment=None):
    """The document cut into segments of `sentences_per_segment` sentences (None: one segment,
    the whole text); None when the text has no sentence at all (empty or only white space)."""
    found = sentence_offsets(text)
    if not found:
        return None
    if sentences_per_segment is None:
        return Segmentation(segments=[text], starts=[0], separators=["", ""], sentences=[found])
    segments, starts, separators, sentences = [], [], [], []
    previous_end = 0
    for begin in range(0, len(found), sentences_per_segment):
        group = found[begin : begin + sentences_per_segment]
        start, end = group[0][0], group[-1][1]
        separators.append(text[previous_end:start])
        segments.append(text[start:end])
        starts.append(start)
        sentences.append([[a - start, b - start] for a, b in group])
        previous_end = end
    separators.append(text[previous_end:])
    return Segmentation(segments=segments, starts=starts, separators=separators, sentences=sentences)


def join_segments(segments, separators):
    """The document's text from its segments and the separators kept at import."""
    parts = [separators[0]]
    for segment, separator in zip(segments, separators[1:], strict=True):
        parts += [segment, separator]
    return "".join(parts)


def segment_starts(segments, separators):
    """The document offset of each segment when joined with `separators`."""
    starts, position = [], len(separators[0])
    for segment, separator in zip(segments, separators[1:], strict=True):
        starts.append(position)
        position += len(segment) + len(separator)
    return starts
