"""Tokens, sentences and segments of a study as sorted ranges in one coordinate space.

Every segment of every document gets a base offset in a single "study
coordinate" line (segments are one position apart, so no range crosses a
segment). Tokens, sentences and segments then become sorted, non-overlapping
[start, end) arrays, and the units a span touches are found for all spans at
once with two binary searches.
"""

import re
from dataclasses import dataclass

import numpy as np

# Word tokens as in SNaC's token-level agreement: runs of word characters, and
# every other non-space character on its own.
TOKEN_PATTERN = re.compile(r"\w+|[^\w\s]")

_SPACE, _WORD, _OTHER = 0, 1, 2
_WORD_CHARACTER = re.compile(r"\w")
_SPACE_CHARACTER = re.compile(r"\s")


def tokenize(text):
    """The [start, end) code-point offsets of the tokens of ``text``."""
    return [match.span() for match in TOKEN_PATTERN.finditer(text)]


def _character_class(character):
    # Decided by the same regex classes as TOKEN_PATTERN, so the two agree.
    if _WORD_CHARACTER.match(character):
        return _WORD
    return _SPACE if _SPACE_CHARACTER.match(character) else _OTHER


class _Tokenizer:
    """TOKEN_PATTERN over a whole text with numpy: character classes, then run boundaries.

    A token starts at a word character not preceded by one and at every
    other-class character, and ends likewise; the k-th start pairs with the
    k-th end. Non-ASCII classes are looked up once per distinct character.
    """

    def __init__(self):
        self.ascii = np.array([_character_class(chr(point)) for point in range(128)], dtype=np.uint8)
        self.known = {}

    def __call__(self, text):
        try:
            points = np.frombuffer(text.encode("utf-32-le"), dtype=np.uint32)
        except UnicodeEncodeError:  # lone surrogates: let the regex handle them
            bounds = np.array(tokenize(text), dtype=np.int64).reshape(-1, 2)
            return bounds[:, 0], bounds[:, 1]
        classes = self.ascii.take(np.minimum(points, 127))
        beyond = points > 127
        if beyond.any():
            distinct, inverse = np.unique(points[beyond], return_inverse=True)
            for point in distinct.tolist():
                if point not in self.known:
                    self.known[point] = _character_class(chr(point))
            classes[beyond] = np.array([self.known[point] for point in distinct.tolist()], dtype=np.uint8)[
                inverse
            ]
        word = classes == _WORD
        single = classes == _OTHER
        starts = word.copy()
        starts[1:] &= ~word[:-1]
        starts |= single
        ends = word.copy()
        ends[:-1] &= ~word[1:]
        ends |= single
        return np.flatnonzero(starts), np.flatnonzero(ends) + 1


@dataclass
class Units:
    """Sorted, non-overlapping [start, end) ranges in study coordinates.

    ``document_offsets[d]`` is the first unit of document ``d`` (one extra
    entry at the end), so document ``d`` owns units
    ``document_offsets[d]:document_offsets[d + 1]``.
    """

    starts: np.ndarray
    ends: np.ndarray
    document_offsets: np.ndarray

    def __len__(self):
        return len(self.starts)

    def per_document(self):
        return np.diff(self.document_offsets)

    def touched(self, starts, ends):
        """For ranges [starts, ends): the units sharing at least one position, as [lo, hi)."""
        lo = np.searchsorted(self.ends, starts, side="right")
        hi = np.searchsorted(self.starts, ends, side="left")
        return lo, np.maximum(hi, lo)

    def per_unit(self, per_document_values):
        """Spread one value per document over that document's units."""
        return np.repeat(np.asarray(per_document_values), self.per_document())


class StudyLayout:
    """Study coordinates of the segments, tokens and sentences of ``documents``."""

    def __init__(self, documents):
        self.document_index = {}
        # Per document, per segment: the [start, end) of its sentences in the segment.
        self.document_sentences = []
        segment_bases, segment_lengths, segment_counts = [], [], []
        token_starts, token_ends, token_counts = [], [], []
        sentence_starts, sentence_ends, sentence_counts = [], [], []
        position = 0
        tokenizer = _Tokenizer()
        for number, document in enumerate(documents):
            if document.id in self.document_index:
                raise ValueError(f"document {document.id!r} is given twice")
            self.document_index[document.id] = number
            text = "\n".join(document.segments)
            starts, ends = tokenizer(text)
            token_starts.append(starts + position)
            token_ends.append(ends + position)
            token_counts.append(len(starts))
            sentences_before = len(sentence_starts)
            self.document_sentences.append([])
            for index, segment in enumerate(document.segments):
                segment_bases.append(position)
                segment_lengths.append(len(segment))
                sentences = segment_sentences(document, index)
                self.document_sentences[-1].append(sentences)
                for start, end in sentences:
                    sentence_starts.append(position + start)
                    sentence_ends.append(position + end)
                position += len(segment) + 1
            segment_counts.append(len(document.segments))
            sentence_counts.append(len(sentence_starts) - sentences_before)
            position += 1

        self.segment_bases = np.asarray(segment_bases, dtype=np.int64)
        self.segment_lengths = np.asarray(segment_lengths, dtype=np.int64)
        segment_offsets = _offsets(segment_counts)
        self.segments = Units(self.segment_bases, self.segment_bases + self.segment_lengths, segment_offsets)
        self.tokens = Units(_concatenate(token_starts), _concatenate(token_ends), _offsets(token_counts))
        self.sentences = Units(
            np.asarray(sentence_starts, dtype=np.int64),
            np.asarray(sentence_ends, dtype=np.int64),
            _offsets(sentence_counts),
        )


def _concatenate(arrays):
    return np.concatenate(arrays).astype(np.int64, copy=False) if arrays else np.zeros(0, dtype=np.int64)


def _offsets(counts):
    offsets = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    return offsets


def segment_sentences(document, index):
    """The sentences of a segment, sorted and clipped so that they never overlap.

    A segment without (valid) sentences is one sentence; an empty one has none.
    """
    length = len(document.segments[index])
    given = document.sentences[index] if index < len(document.sentences) else ()
    sentences, reached = [], 0
    for start, end in sorted(given):
        start, end = max(start, reached, 0), min(end, length)
        if start < end:
            sentences.append((start, end))
            reached = end
    if not sentences and length:
        sentences.append((0, length))
    return sentences
