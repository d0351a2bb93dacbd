"""Each annotator's agreement with the others so far (the workforce dashboard, docs/crowd-platforms.md).

For every document with two or more submitted main annotations, each pair of
its annotations is compared as sets of marked characters with their category,
(segment, offset, category): the pair's agreement is their F1 (Dice),
2|A ∩ B| / (|A| + |B|), and 1 when neither marked anything. An annotator's
figure is the mean over every pair they are in. It is a screening figure for
a live study (who disagrees with everyone?), not a reliability coefficient:
the report's token alpha is that.
"""

from collections import defaultdict
from itertools import combinations

from reports.metrics.spans.data import MAIN

RULE = "mean F1 of marked characters (with their category) with each other annotator of the same document"


def _marked(annotation):
    return {
        (span.segment, offset, span.category)
        for span in annotation.spans
        for offset in range(span.start, span.end)
    }


def pair_f1(a, b):
    if not a and not b:
        return 1.0
    return 2 * len(a & b) / (len(a) + len(b))


def agreement_pairs(study):
    """{annotator: [F1 of every pair they are in]} over submitted main annotations.

    Lists, not sums: the pairs of parts of a study computed apart join by
    concatenation, and agreement_from_pairs gives the same figure either way.
    """
    by_document = defaultdict(list)
    for annotation in study.annotations:
        if annotation.kind == MAIN and annotation.submitted:
            by_document[annotation.document].append((annotation.annotator, _marked(annotation)))
    pairs = defaultdict(list)
    for annotations in by_document.values():
        for (first, a), (second, b) in combinations(annotations, 2):
            f1 = pair_f1(a, b)
            pairs[first].append(f1)
            pairs[second].append(f1)
    return dict(pairs)


def agreement_from_pairs(pairs):
    """{annotator: (mean F1 with the others, number of pairs)}; the sum is exactly rounded (fsum),
    so it does not depend on the order the pairs were gathered in."""
    sums = PairSums()
    sums.add(pairs)
    return sums.agreement()


# Every finite double is a whole number of 2**-1074 (the smallest subnormal).
_SUBNORMAL_BITS = 1074


class PairSums:
    """Each annotator's pair F1s summed exactly as the pairs come, a part of the study at a time.

    The sum is an integer count of 2**-1074, so adding never rounds, and the mean rounds the
    exact sum once, as math.fsum does: the same figure as agreement_from_pairs over every pair
    at once, without holding the pairs (a report merged from parts, reports/parts.py).
    """

    def __init__(self):
        self.totals = {}  # annotator: [exact sum in units of 2**-1074, number of pairs]

    def add(self, pairs):
        """Add {annotator: [F1 of each pair]} (agreement_pairs of some documents)."""
        for annotator, values in pairs.items():
            total = self.totals.setdefault(annotator, [0, 0])
            for value in values:
                numerator, denominator = value.as_integer_ratio()  # denominator: a power of two
                total[0] += numerator << (_SUBNORMAL_BITS + 1 - denominator.bit_length())
            total[1] += len(values)

    def agreement(self):
        """{annotator: (mean F1 with the others, number of pairs)}."""
        # int / int rounds correctly, as fsum does: the exact sum rounded once, then the mean.
        return {
            annotator: (units / (1 << _SUBNORMAL_BITS) / count, count)
            for annotator, (units, count) in self.totals.items()
            if count
        }


def annotator_agreement(study):
    """{annotator: (mean F1 with the others, number of pairs)} over submitted main annotations."""
    return agreement_from_pairs(agreement_pairs(study))
