"""Automatic evaluators (LLMs, detectors) against the people of a span study.

An evaluator's spans are the annotations of kind "model" whose annotator is
the evaluator's key (one per document; a repeated one keeps the last). The
people are the submitted main annotations, the experts the gold ones. Only
the primary span of a paired category counts, and a span touches a unit
(token or sentence) when they share a character.

Evaluator against a reference, per category (Goyal et al. 2022, Table 6,
carried from sentences down to tokens as well):

- unit = (token, category) or (sentence, category) of a compared document;
  predicted = units the evaluator's spans of the category touch;
- references, and the documents compared with each (all of them need the
  evaluator's annotation, which may hold no span):
  ``union``: units touched by any person's span, documents with one or more
  people's annotations; ``two_agree``: units touched by spans of two or more
  distinct people, documents with two or more; ``gold``: units touched by
  any gold span, documents with one or more gold annotations;
- correct = predicted and in the reference; precision = correct / predicted,
  recall = correct / reference, F1 their harmonic mean (0.0 when both are 0);
  undefined (null plus a reason) when a denominator is 0;
- sentence level also gives "overlap" as :class:`ReferenceTally` does: among
  correct units, the share where an evaluator span and a reference span
  share a character inside that sentence. The reference spans are the gold
  spans for ``gold`` and every person's span for ``union`` and ``two_agree``
  (a sentence two people marked is matched by overlapping either of them);
- ``all`` pools every category: sums of the counts over (unit, category).

Intervals: 95% percentile bootstrap over documents. Each reference draws its
documents (those a person or expert annotated as it needs) with replacement,
``resamples`` times from ``numpy.random.default_rng(seed)``, and every
evaluator and category is scored on the same draws, so their intervals are
comparable; an evaluator adds nothing from a drawn document it did not
annotate. A resample where a value is undefined is left out of that value's
interval; fewer than two compared documents give no interval.

One more annotator (token level, per category): binary nominal token alpha
(as the people's report computes it) of the people over the documents with
two or more people's annotations and the evaluator's annotation; then, for
each person with an annotation there, the alpha after the evaluator's marks
stand in for that person's on their documents (the number of coders stays
the same). ``replaced_mean``/``min``/``max`` are over the people whose
replaced alpha is defined (``replacements`` of them).

How it is computed at scale: every category's units are laid on one line
and cut into pieces wherever a person's, an expert's or an evaluator's marks
begin or end, so each piece has one state (how many people mark it, whether
the experts and each evaluator do) and every count is a sum of piece lengths.
Binary alpha needs only how many units have each (coders, marked) pair; a
replacement moves the pieces where the person and the evaluator differ from
one pair to the next, so every replacement costs a few sums, not a new alpha.
"""

from itertools import repeat
from operator import attrgetter

import numpy as np

from reports.metrics.alpha import NO_PAIRABLE_UNITS, ONE_VALUE
from reports.metrics.nullable import put_value
from reports.metrics.spans.data import GOLD, MAIN
from reports.metrics.spans.layout import StudyLayout
from reports.metrics.spans.ranges import expand, merge_ranges

MODEL = "model"
REFERENCES = ("union", "two_agree", "gold")
LEVELS = ("token", "sentence")
SCORED = ("precision", "recall", "f1")
# What a document needs, besides the evaluator's annotation, to be compared with each reference.
NEEDS = {
    "union": "a people's annotation",
    "two_agree": "two or more people's annotations",
    "gold": "a gold annotation",
}
NO_ALPHA_DOCUMENT = "no document has two or more people's annotations and the evaluator's annotation"
NO_REPLACED_ALPHA = "no alpha with the evaluator in a person's place is defined"
# Bootstrap draws held in memory at once (resamples x documents).
_DRAWS_PER_BLOCK = 1 << 22


def evaluator_comparison(study, *, seed=0, resamples=1000, progress=None):
    """Every evaluator of ``study`` (a :class:`SpanStudy`) against the people and the experts.

    Returns JSON-ready data: ``evaluators``, ``references``, ``by_evaluator``,
    ``seed`` and ``resamples`` (definitions in the module docstring).
    ``progress``, if given, is called with the fraction done a few times.
    """
    notify = progress or (lambda fraction: None)
    notify(0.0)
    layout = StudyLayout(study.documents)
    keys = [category.key for category in study.categories]
    numbers = {key: number for number, key in enumerate(keys)}
    people, experts, models = _submitted(study, layout)
    people_spans = _Spans(people, layout, numbers)
    gold_spans = _Spans(experts, layout, numbers)
    model_spans = _Spans(models, layout, numbers)
    evaluators = sorted({annotation.annotator for annotation in models})
    model_evaluators = _numbered([annotation.annotator for annotation in models], evaluators)
    span_evaluators = model_evaluators[model_spans.owners]
    evaluator_spans = [model_spans.part(span_evaluators == number) for number in range(len(evaluators))]
    notify(0.3)

    documents = len(study.documents)
    coders = np.bincount(people_spans.documents, minlength=documents)
    has_evaluator = np.zeros((len(evaluators), documents), dtype=bool)
    has_evaluator[model_evaluators, model_spans.documents] = True
    gold_documents = np.bincount(gold_spans.documents, minlength=documents) >= 1
    references = np.stack([coders >= 1, coders >= 2, gold_documents])
    compared = references[:, None, :] & has_evaluator[None, :, :]
    shape = (documents, len(keys))

    tokens = layout.tokens
    people_ranges = _person_ranges(tokens, people_spans)
    token_sweep = _Sweep(
        tokens,
        shape,
        [people_ranges[1:], _line_ranges(tokens, gold_spans.part())]
        + [_line_ranges(tokens, spans) for spans in evaluator_spans],
    )
    counts = np.zeros(
        (len(REFERENCES), len(evaluators), len(LEVELS), len(keys), 3, documents), dtype=np.int64
    )
    counts[:, :, 0] = _counts(token_sweep, len(evaluators))
    one_more = _one_more_annotator(
        token_sweep, people_ranges, coders, compared[1], tokens.per_document(), people_spans.documents,
        _numbered([annotation.annotator for annotation in people]),
    )  # fmt: skip
    notify(0.6)

    sentences = layout.sentences
    people_characters = _character_union(layout, people_spans.part())
    gold_characters = _character_union(layout, gold_spans.part())
    sentence_sweep = _Sweep(
        sentences,
        shape,
        [_person_ranges(sentences, people_spans)[1:], _line_ranges(sentences, gold_spans.part())]
        + [_line_ranges(sentences, spans) for spans in evaluator_spans]
        + [_shared_ranges(layout, spans, people_characters) for spans in evaluator_spans]
        + [_shared_ranges(layout, spans, gold_characters) for spans in evaluator_spans],
    )
    counts[:, :, 1] = _counts(sentence_sweep, len(evaluators))
    overlapping = _overlapping(sentence_sweep, len(evaluators))
    # An evaluator is only compared on documents that it and the reference both cover.
    counts *= compared[:, :, None, None, None, :]
    overlapping *= compared[:, :, None, :]
    notify(0.7)

    bounds = _bootstrap_bounds(np.random.default_rng(seed), counts, references, resamples)
    notify(0.9)
    by_evaluator = {}
    for evaluator, name in enumerate(evaluators):
        entry = {
            "documents": int(has_evaluator[evaluator].sum()),
            "spans": int(np.count_nonzero(span_evaluators == evaluator)),
        }
        figures = _figures(
            counts[:, evaluator],
            overlapping[:, evaluator],
            compared[:, evaluator].sum(axis=1),
            bounds[:, evaluator],
        )
        entry["categories"] = dict(zip(keys, figures[:-1], strict=True))
        entry["all"] = figures[-1]
        entry["one_more_annotator"] = dict(zip(keys, one_more[evaluator], strict=True))
        by_evaluator[name] = entry
    notify(1.0)
    return {
        "evaluators": evaluators,
        "references": {
            name: {"documents": int(references[number].sum())} for number, name in enumerate(REFERENCES)
        },
        "by_evaluator": by_evaluator,
        "seed": seed,
        "resamples": resamples,
    }


def _submitted(study, layout):
    """Submitted people's, gold and model annotations of known documents; a repeated one keeps the last."""
    latest = {}
    for annotation in study.annotations:
        if not annotation.submitted or annotation.kind not in (MAIN, GOLD, MODEL):
            continue
        if annotation.document not in layout.document_index:
            raise ValueError(f"annotation of unknown document {annotation.document!r}")
        latest[(annotation.kind, annotation.annotator, annotation.document)] = annotation
    by_kind = {MAIN: [], GOLD: [], MODEL: []}
    for (kind, _, _), annotation in latest.items():
        by_kind[kind].append(annotation)
    return by_kind[MAIN], by_kind[GOLD], by_kind[MODEL]


def _numbered(names, ordered=None):
    """The position of each name in ``ordered`` (default: the sorted distinct names)."""
    numbers = {name: number for number, name in enumerate(ordered or sorted(set(names)))}
    return np.array([numbers[name] for name in names], dtype=np.int64)


class _Spans:
    """The primary spans of some annotations as arrays, checked as the people's report checks them.

    ``owners`` (annotation number), ``categories`` (category number),
    ``starts``/``ends`` (study coordinates); ``documents``: each
    annotation's document number.
    """

    def __init__(self, annotations, layout, numbers):
        self.documents = np.array([layout.document_index[a.document] for a in annotations], dtype=np.int64)
        spans = [span for annotation in annotations for span in annotation.spans]
        self.owners = np.repeat(np.arange(len(annotations)), [len(a.spans) for a in annotations])
        count = len(spans)
        self.categories = np.fromiter(
            map(numbers.get, map(attrgetter("category"), spans), repeat(-1)), np.int64, count
        )
        segments = np.fromiter(map(attrgetter("segment"), spans), np.int64, count)
        starts = np.fromiter(map(attrgetter("start"), spans), np.int64, count)
        ends = np.fromiter(map(attrgetter("end"), spans), np.int64, count)

        def refuse(wrong, message):
            if wrong.any():
                at = int(np.flatnonzero(wrong)[0])
                raise ValueError(f"{annotations[self.owners[at]].document}: {message(at, spans[at])}")

        refuse(self.categories < 0, lambda at, span: f"unknown category {span.category!r}")
        offsets = layout.segments.document_offsets
        first = offsets[self.documents][self.owners]
        refuse((segments < 0) | (segments >= offsets[self.documents + 1][self.owners] - first),
               lambda at, span: f"no segment {span.segment}")  # fmt: skip
        segments += first
        refuse((starts < 0) | (starts >= ends) | (ends > layout.segment_lengths[segments]),
               lambda at, span: f"span [{span.start}, {span.end}) is empty or outside its segment")  # fmt: skip
        starts, ends = starts + layout.segment_bases[segments], ends + layout.segment_bases[segments]
        # In study order, so that the binary searches for touched units run over sorted keys.
        order = np.argsort(starts, kind="stable")
        self.owners, self.categories = self.owners[order], self.categories[order]
        self.starts, self.ends = starts[order], ends[order]

    def part(self, mask=slice(None)):
        """(owners, categories, starts, ends) of the spans in ``mask``."""
        return self.owners[mask], self.categories[mask], self.starts[mask], self.ends[mask]


def _line_ranges(units, spans):
    """[lo, hi) of the units each span touches, on the line where category c's units start at c * (units + 1)."""
    _, categories, starts, ends = spans
    lo, hi = units.touched(starts, ends)
    shift = categories * (len(units) + 1)
    return lo + shift, hi + shift


def _person_ranges(units, spans):
    """Each annotation's touched units on the line, merged: (owners, lo, hi), disjoint per owner."""
    return merge_ranges(spans.owners, *_line_ranges(units, spans.part()))


def _character_union(layout, spans):
    """The characters any of ``spans`` covers, as disjoint [start, end) per category on a character line."""
    _, categories, starts, ends = spans
    shift = categories * (_study_length(layout) + 1)
    return merge_ranges(np.zeros(len(starts), dtype=np.int64), starts + shift, ends + shift)[1:]


def _study_length(layout):
    bases, lengths = layout.segment_bases, layout.segment_lengths
    return int(bases[-1] + lengths[-1]) if len(bases) else 0


def _shared_ranges(layout, spans, union):
    """Sentences on the line where one of ``spans`` and the ``union`` of a reference's share a character."""
    _, categories, starts, ends = spans
    size = _study_length(layout) + 1
    union_starts, union_ends = union
    starts, ends = starts + categories * size, ends + categories * size
    first = np.searchsorted(union_ends, starts, side="right")
    last = np.maximum(np.searchsorted(union_starts, ends, side="left"), first)
    merged, span = expand(first, last)
    piece_starts = np.maximum(union_starts[merged], starts[span])
    piece_ends = np.minimum(union_ends[merged], ends[span])
    categories = piece_starts // size
    offset = categories * size
    pieces = (None, categories, piece_starts - offset, piece_ends - offset)
    return _line_ranges(layout.sentences, pieces)


class _Sweep:
    """Every category's units on one line, cut into pieces where any channel's range begins or ends.

    ``channels``: per channel, [lo, hi) ranges on the line (category c's
    units start at c * (units + 1), so no range reaches another category).
    Each kept piece has ``cover[channel, piece]``: how many of the
    channel's ranges cover it; its ``length`` in units; its ``cells``:
    ``document * categories + category``. Pieces nothing covers are dropped.
    """

    def __init__(self, units, shape, channels):
        self.shape = shape
        # One sortable code per range end: position, then channel, then whether it is the end.
        bits = (2 * len(channels) - 1).bit_length()
        codes = []
        for channel, (lo, hi) in enumerate(channels):
            keep = hi > lo
            codes += [(lo[keep] << bits) | (2 * channel), (hi[keep] << bits) | (2 * channel + 1)]
        codes = np.sort(np.concatenate(codes))
        positions = codes >> bits
        steps = np.zeros((len(channels), len(codes)), dtype=np.int32)
        steps[(codes & ((1 << bits) - 1)) >> 1, np.arange(len(codes))] = 1 - 2 * (codes & 1)
        cover = np.stack([np.cumsum(row, dtype=np.int32) for row in steps])
        # The state after the last event at a position holds up to the next position.
        last = np.flatnonzero(positions[1:] > positions[:-1])
        kept = last[cover[:, last].any(axis=0)]
        self.starts = positions[kept]
        self.lengths = positions[kept + 1] - self.starts
        self.cover = cover[:, kept]
        categories, unit = np.divmod(self.starts, len(units) + 1)
        self.documents = np.searchsorted(units.document_offsets, unit, side="right") - 1
        self.categories = categories
        self.cells = self.documents * shape[1] + categories

    def units(self, flags):
        """Units per [document, category] in the pieces where ``flags``."""
        totals = np.bincount(
            self.cells[flags], weights=self.lengths[flags], minlength=self.shape[0] * self.shape[1]
        )
        return totals.astype(np.int64).reshape(self.shape)


def _counts(sweep, evaluators):
    """Per document: [reference, evaluator, category, (predicted, reference, correct), document] units.

    Channels: the people (a count), the experts, then each evaluator.
    """
    documents, categories = sweep.shape
    people = sweep.cover[0]
    counts = np.zeros((len(REFERENCES), evaluators, categories, 3, documents), dtype=np.int64)
    predicted = [sweep.cover[2 + evaluator] > 0 for evaluator in range(evaluators)]
    predicted_units = [sweep.units(marked).T for marked in predicted]
    for reference, marked in enumerate((people >= 1, people >= 2, sweep.cover[1] > 0)):
        counts[reference, :, :, 1] = sweep.units(marked).T
        for evaluator, evaluator_marked in enumerate(predicted):
            counts[reference, evaluator, :, 0] = predicted_units[evaluator]
            counts[reference, evaluator, :, 2] = sweep.units(evaluator_marked & marked).T
    return counts


def _overlapping(sweep, evaluators):
    """Per document: [reference, evaluator, category, document] correct sentences where the spans overlap.

    Channels after the evaluators': each evaluator's sentences sharing a
    character with a person's span, then with a gold span.
    """
    documents, categories = sweep.shape
    two_agree = sweep.cover[0] >= 2
    overlapping = np.zeros((len(REFERENCES), evaluators, categories, documents), dtype=np.int64)
    for evaluator in range(evaluators):
        shared_people = sweep.cover[2 + evaluators + evaluator] > 0
        overlapping[0, evaluator] = sweep.units(shared_people).T
        overlapping[1, evaluator] = sweep.units(shared_people & two_agree).T
        overlapping[2, evaluator] = sweep.units(sweep.cover[2 + 2 * evaluators + evaluator] > 0).T
    return overlapping


def _one_more_annotator(sweep, people_ranges, coders, unit_documents, tokens_per_document, documents, names):
    """Per evaluator, per category: people's token alpha and the alphas with the evaluator in a person's place.

    ``sweep``: the token sweep (channel 0 counts people, channel 2 + k is
    evaluator k); ``people_ranges``: each people's annotation's merged
    token ranges; ``unit_documents[k]``: the documents whose tokens are the
    units for evaluator k; ``documents``/``names``: per people's annotation,
    its document and its person's number.

    A histogram counts units by kind ``coders * width + marked``. When
    evaluator k stands in for person a, a's tokens that k leaves out move
    from (n, m) to (n, m - 1), and k's tokens that a left out from (n, m) to
    (n, m + 1): every evaluator's piece moves up once per person on its
    document, and a person's piece that the evaluator also marks moves back
    down (it had the mark already).
    """
    _, categories = sweep.shape
    width = int(coders.max(initial=0)) + 2  # room for marked + 1 within a row
    slots = width * width
    kinds = coders[sweep.documents] * width + sweep.cover[0]
    owners, lo, hi = people_ranges
    person_pieces, which = expand(np.searchsorted(sweep.starts, lo), np.searchsorted(sweep.starts, hi))
    person_annotations = owners[which]
    by_document = np.argsort(documents, kind="stable")
    firsts = np.searchsorted(documents[by_document], np.arange(len(coders) + 1))
    people = int(names.max(initial=-1)) + 1
    result = []
    for evaluator, in_units in enumerate(unit_documents):
        if not in_units.any():
            empty = dict.fromkeys(("people_alpha", "replaced_mean", "replaced_min", "replaced_max"))
            result.append(
                [_one_more_entry(empty, NO_ALPHA_DOCUMENT, NO_ALPHA_DOCUMENT, 0) for _ in range(categories)]
            )
            continue
        in_pieces = in_units[sweep.documents]
        # Base histogram: the covered pieces, then every other token of the units is unmarked.
        base = np.bincount(
            sweep.categories * slots + kinds, weights=sweep.lengths * in_pieces, minlength=categories * slots
        ).reshape(categories, width, width)
        unit_tokens = np.bincount(coders[in_units], weights=tokens_per_document[in_units], minlength=width)
        base[:, :, 0] += unit_tokens - base.sum(axis=2)
        base = base.reshape(categories, slots)

        marks = sweep.cover[2 + evaluator] > 0
        keep = in_pieces[person_pieces]
        down_pieces, down_annotations = person_pieces[keep], person_annotations[keep]
        up_pieces = np.flatnonzero(marks & in_pieces)
        positions, which = expand(firsts[sweep.documents[up_pieces]], firsts[sweep.documents[up_pieces] + 1])
        up_pieces, up_annotations = up_pieces[which], by_document[positions]
        # Each move takes w units from a cell to cell + step; a negative w undoes one. A person's
        # piece goes down unless the evaluator marks it, and then its move up is undone.
        down_steps = np.where(marks[down_pieces], 1, -1)
        steps = np.concatenate([down_steps, np.ones(len(up_pieces), dtype=np.int64)])
        pieces = np.concatenate([down_pieces, up_pieces])
        weights = sweep.lengths[pieces] * np.concatenate(
            [-down_steps, np.ones(len(up_pieces), dtype=np.int64)]
        )
        annotations = np.concatenate([down_annotations, up_annotations])
        cells = (names[annotations] * categories + sweep.categories[pieces]) * slots + kinds[pieces]
        size = people * categories * slots
        moves = np.bincount(cells + steps, weights=weights, minlength=size)
        moves -= np.bincount(cells, weights=weights, minlength=size)

        included = np.unique(names[in_units[documents]])
        people_alphas, reasons = _binary_alphas(base, width)
        alphas, _ = _binary_alphas(base + moves.reshape(people, categories, slots)[included], width)
        entries = []
        for category in range(categories):
            values = alphas[:, category]
            values = values[~np.isnan(values)].tolist()
            figures = {
                "people_alpha": None if reasons[category] else float(people_alphas[category]),
                "replaced_mean": float(np.mean(values)) if values else None,
                "replaced_min": min(values, default=None),
                "replaced_max": max(values, default=None),
            }
            entries.append(_one_more_entry(figures, str(reasons[category]), NO_REPLACED_ALPHA, len(values)))
        result.append(entries)
    return result


def _one_more_entry(figures, people_reason, replaced_reason, replacements):
    entry = {}
    put_value(entry, "people_alpha", figures["people_alpha"], people_reason)
    for name in ("replaced_mean", "replaced_min", "replaced_max"):
        put_value(entry, name, figures[name], replaced_reason)
    entry["replacements"] = replacements
    return entry


def _binary_alphas(histograms, width):
    """Binary nominal alpha of each histogram (last axis: units by kind ``coders * width + marked``).

    Krippendorff's (2011) alpha for two values in closed form: a unit with n
    coders and m ones adds n - m zeros, m ones and 2 m (n - m) / (n - 1) to
    the observed disagreement, and alpha = 1 - (n.. - 1) D_o / (2 n_0 n_1).
    Returns alphas (NaN when undefined) and the reasons ("" when defined).
    """
    coders, marked = np.divmod(np.arange(width * width), width)
    pairable = (coders >= 2) & (marked <= coders)
    zeros = np.where(pairable, coders - marked, 0).astype(np.float64)
    ones = np.where(pairable, marked, 0).astype(np.float64)
    disagreement = np.where(pairable, 2.0 * marked * (coders - marked) / np.maximum(coders - 1, 1), 0.0)
    n0, n1, observed = histograms @ zeros, histograms @ ones, histograms @ disagreement
    with np.errstate(divide="ignore", invalid="ignore"):
        alphas = 1.0 - (n0 + n1 - 1.0) * observed / (2.0 * n0 * n1)
    reasons = np.where(n0 + n1 == 0, NO_PAIRABLE_UNITS, np.where(np.minimum(n0, n1) == 0, ONE_VALUE, ""))
    alphas[reasons != ""] = np.nan
    return alphas, reasons


def _bootstrap_bounds(rng, counts, references, resamples):
    """95% percentile bounds: [reference, evaluator, level, category or all, score, (low, high)].

    NaN where there is no interval: the reference has fewer than two
    documents, or the score is undefined in every resample. References
    with the same documents share their draws.
    """
    reference_count, evaluators, levels, categories, _, _ = counts.shape
    bounds = np.full((reference_count, evaluators, levels, categories + 1, len(SCORED), 2), np.nan)
    draws = {}
    for reference in range(reference_count):
        drawn = np.flatnonzero(references[reference])
        if len(drawn) < 2 or not resamples or not evaluators:
            continue
        if drawn.tobytes() not in draws:
            draws[drawn.tobytes()] = _draw(rng, len(drawn), resamples)
        values = counts[reference][..., drawn].reshape(-1, len(drawn)).T.astype(np.float64)
        sums = np.concatenate([times @ values for times in draws[drawn.tobytes()]])
        sums = sums.reshape(resamples, evaluators, levels, categories, 3)
        sums = np.concatenate([sums, sums.sum(axis=3, keepdims=True)], axis=3)
        bounds[reference] = _percentiles(np.stack(_ratios(sums[..., 0], sums[..., 1], sums[..., 2]), axis=-1))
    return bounds


def _draw(rng, documents, resamples):
    """Resamples of ``documents`` documents with replacement, as how often each was drawn.

    Blocks of a (resamples x documents) matrix, so that summing per-document
    counts over every resample is one matrix product per block (float64
    holds the integer sums exactly).
    """
    block = max(1, _DRAWS_PER_BLOCK // documents)
    blocks = []
    for start in range(0, resamples, block):
        size = min(block, resamples - start)
        draws = rng.integers(0, documents, size=(size, documents))
        draws += np.arange(size)[:, None] * documents
        times = np.bincount(draws.ravel(), minlength=size * documents)
        blocks.append(times.reshape(size, documents).astype(np.float64))
    return blocks


def _percentiles(values, shares=(0.025, 0.975)):
    """Percentiles along the first axis leaving NaN out, interpolated linearly (numpy's default method).

    The last axis of the result holds one value per share; NaN where every value is NaN.
    """
    ordered = np.sort(values, axis=0)  # NaN sorts last
    defined = np.count_nonzero(~np.isnan(values), axis=0)
    results = []
    for share in shares:
        position = np.maximum(defined - 1, 0) * share
        below = np.floor(position).astype(np.int64)
        above = np.minimum(below + 1, np.maximum(defined - 1, 0))
        low = np.take_along_axis(ordered, below[None], axis=0)[0]
        high = np.take_along_axis(ordered, above[None], axis=0)[0]
        results.append(low + (high - low) * (position - below))
    results = np.stack(results, axis=-1)
    results[defined == 0] = np.nan
    return results


def _ratios(predicted, reference, correct):
    """Precision, recall and F1 of count arrays; NaN where undefined."""
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = np.where(predicted > 0, correct / predicted, np.nan)
        recall = np.where(reference > 0, correct / reference, np.nan)
        total = precision + recall
        f1 = np.where(total > 0, 2 * precision * recall / total, np.where(np.isnan(total), np.nan, 0.0))
    return precision, recall, f1


def _figures(counts, overlapping, compared, bounds):
    """Per category and then for all: {level: {reference: scores}} of one evaluator."""
    totals = counts.sum(axis=-1)
    totals = np.concatenate([totals, totals.sum(axis=2, keepdims=True)], axis=2)
    overlaps = overlapping.sum(axis=-1)
    overlaps = np.concatenate([overlaps, overlaps.sum(axis=1, keepdims=True)], axis=1)
    figures = []
    for column in range(totals.shape[2]):
        entry = {}
        for level, level_name in enumerate(LEVELS):
            entry[level_name] = {
                name: _scores(
                    level_name,
                    name,
                    totals[reference, level, column].tolist(),
                    int(compared[reference]),
                    int(overlaps[reference, column]) if level_name == "sentence" else None,
                    bounds[reference, level, column],
                )
                for reference, name in enumerate(REFERENCES)
            }
        figures.append(entry)
    return figures


def _scores(unit, reference_name, totals, documents, overlapping, bounds):
    """Counts, precision, recall, F1 (and overlap when given) with their intervals."""
    predicted, reference, correct = totals
    result = {"predicted": predicted, "reference": reference, "correct": correct}
    if documents:
        precision_reason = f"the evaluator marked no {unit}"
        recall_reason = f"the reference marks no {unit}"
        f1_reason = "precision or recall is undefined"
    else:
        precision_reason = recall_reason = f1_reason = (
            f"no document has the evaluator's annotation and {NEEDS[reference_name]}"
        )
    precision = correct / predicted if predicted else None
    recall = correct / reference if reference else None
    put_value(result, "precision", precision, precision_reason)
    put_value(result, "recall", recall, recall_reason)
    if precision is None or recall is None:
        f1 = None
    else:
        f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    put_value(result, "f1", f1, f1_reason)
    if overlapping is not None:
        overlap = overlapping / correct if correct else None
        put_value(result, "overlap", overlap, "no correctly marked sentence")
    for name, (low, high) in zip(SCORED, bounds.tolist(), strict=True):
        if documents < 2:
            put_value(result, f"{name}_interval", None, "fewer than two compared documents")
        elif low != low:  # NaN
            put_value(result, f"{name}_interval", None, f"{name} is undefined in every resample")
        else:
            result[f"{name}_interval"] = [low, high]
    return result
