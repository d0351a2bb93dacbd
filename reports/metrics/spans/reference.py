"""An annotator against a reference: sentence-level scores and span-level matches.

Sentence level follows SNaC's comparison of crowd annotators with experts
(Goyal et al. 2022, Table 6): the unit is (sentence, category). Span level
tells a worker which reference spans they found, missed or mislabelled
(qualification feedback).

Overlap rule everywhere: two spans overlap when they are in the same
segment and share at least one character (``max(starts) < min(ends)``).
"""

from bisect import bisect_right
from collections import defaultdict
from dataclasses import dataclass

from reports.metrics.nullable import put_value
from reports.metrics.spans.layout import segment_sentences


@dataclass(frozen=True)
class SpanPair:
    """A worker span and the reference span it overlaps most."""

    worker: object
    reference: object


def _shared(first, second):
    if first.segment != second.segment:
        return 0
    return max(0, min(first.end, second.end) - max(first.start, second.start))


def span_matches(worker_spans, reference_spans):
    """Match a worker's spans against reference spans of the same document.

    Returns ``{"matched", "missed", "extra", "confused"}``:

    - matched: :class:`SpanPair` per worker span overlapping a reference span
      of the same category (paired with the one sharing most characters, the
      earliest on a tie);
    - confused: per worker span that overlaps no reference span of its
      category but one of another category (paired the same way);
    - extra: worker spans overlapping no reference span at all;
    - missed: reference spans that no worker span of the same category
      overlaps (a mislabelled one is both missed and confused).
    """
    by_segment = defaultdict(list)
    for number, reference in enumerate(reference_spans):
        by_segment[reference.segment].append((number, reference))
    found = set()
    matched, confused, extra = [], [], []
    for span in worker_spans:
        same, other = (0, None), (0, None)
        for number, reference in by_segment.get(span.segment, ()):
            shared = _shared(span, reference)
            if not shared:
                continue
            if reference.category == span.category:
                found.add(number)
                if shared > same[0]:
                    same = (shared, reference)
            elif shared > other[0]:
                other = (shared, reference)
        if same[1] is not None:
            matched.append(SpanPair(span, same[1]))
        elif other[1] is not None:
            confused.append(SpanPair(span, other[1]))
        else:
            extra.append(span)
    missed = [reference for number, reference in enumerate(reference_spans) if number not in found]
    return {"matched": matched, "missed": missed, "extra": extra, "confused": confused}


@dataclass
class ReferenceTally:
    """Counts of (sentence, category) units for one category, summable over documents."""

    predicted: int = 0
    reference: int = 0
    correct: int = 0
    overlapping: int = 0

    def add(self, other):
        self.predicted += other.predicted
        self.reference += other.reference
        self.correct += other.correct
        self.overlapping += other.overlapping
        return self

    def scores(self):
        """Precision, recall, F1 and overlap; undefined ones null with a reason."""
        result = {"predicted": self.predicted, "reference": self.reference, "correct": self.correct}
        precision = self.correct / self.predicted if self.predicted else None
        recall = self.correct / self.reference if self.reference else None
        put_value(result, "precision", precision, "the annotator marked no sentence")
        put_value(result, "recall", recall, "the reference marks no sentence")
        if precision is None or recall is None:
            f1 = None
        else:
            f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
        put_value(result, "f1", f1, "precision or recall is undefined")
        overlap = self.overlapping / self.correct if self.correct else None
        put_value(result, "overlap", overlap, "no correctly marked sentence")
        return result


def sentence_marks(spans, sentences):
    """{(category, segment, sentence): [the spans' [start, end) clipped to the sentence]}."""
    marks = defaultdict(list)
    for span in spans:
        in_segment = sentences[span.segment]
        index = bisect_right(in_segment, span.start, key=lambda sentence: sentence[1])
        while index < len(in_segment) and in_segment[index][0] < span.end:
            start, end = in_segment[index]
            marks[(span.category, span.segment, index)].append((max(start, span.start), min(end, span.end)))
            index += 1
    return marks


def tally_marks(worker_marks, reference_marks, tallies):
    """Add one document's sentence marks of a worker and of the reference to per-category tallies.

    A correct unit counts as overlapping when, inside that sentence, one of
    the worker's spans shares a character with one of the reference's.
    """
    for key, pieces in worker_marks.items():
        tally = tallies[key[0]]
        tally.predicted += 1
        reference_pieces = reference_marks.get(key)
        if reference_pieces:
            tally.correct += 1
            if any(
                max(start, other_start) < min(end, other_end)
                for start, end in pieces
                for other_start, other_end in reference_pieces
            ):
                tally.overlapping += 1
    for key in reference_marks:
        tallies[key[0]].reference += 1
    return tallies


def reference_scores(worker_spans, reference_spans, document, categories):
    """Scores of one worker against a reference (e.g. the union of gold annotations) on one document.

    ``categories``: the category keys to report. Returns
    ``{key: {"precision", "recall", "f1", "overlap", "predicted", "reference", "correct"}}``.
    """
    sentences = [segment_sentences(document, index) for index in range(len(document.segments))]
    tallies = defaultdict(ReferenceTally)
    tally_marks(sentence_marks(worker_spans, sentences), sentence_marks(reference_spans, sentences), tallies)
    return {key: tallies[key].scores() for key in categories}
