"""Each annotator's agreement with the others so far (the workforce dashboard, docs/crowd-platforms.md).

For every document with two or more submitted main annotations, each pair of
its annotations is compared as sets of marked characters with their category,
(segment, offset, category): the pair's agreement is their F1 (Dice),
2|A ∩ B| / (|A| + |B|), and 1 when neither marked anything. An annotator's
figure is the mean over every pair they are in. It is a screening figure for
a live study (who disagrees with everyone?), not a reliability coefficient:
the report's token alpha is that.
"""

import math
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
    return {annotator: (math.fsum(values) / len(values), len(values)) for annotator, values in pairs.items()}


def annotator_agreement(study):
    """{annotator: (mean F1 with the others, number of pairs)} over submitted main annotations."""
    return agreement_from_pairs(agreement_pairs(study))
