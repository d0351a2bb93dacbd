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
comparable (references with the same documents share their draws); an
evaluator adds nothing from a drawn document it did not annotate. A
resample where a value is undefined is left out of that value's interval;
fewer than two compared documents give no interval.

One more annotator (token level, per category): binary nominal token alpha
(as the people's report computes it) of the people over the documents with
two or more people's annotations and the evaluator's annotation; then, for
each person with an annotation there, the alpha after the evaluator's marks
stand in for that person's on their documents (the number of coders stays
the same). ``replaced_mean``/``min``/``max`` are over the people whose
replaced alpha is defined (``replacements`` of them).

How it is computed at scale: every category's units are laid on one line
and cut into pieces wherever a person's, an expert's or an evaluator's marks
begin or end (a line shorter than that list of ends is taken unit by unit),
so each piece has one state (how many people mark it, whether the experts
and each evaluator do) and every count is a sum of piece lengths, kept per
document. A resample is how often it drew each document, so the sums of all
resamples are one product with the per-document counts. Binary alpha needs
only how many units have each (coders, marked) pair; a replacement moves the
pieces where the person and the evaluator differ from one pair to the next,
so every replacement costs a few sums, not a new alpha.
"""

from itertools import repeat
from operator import attrgetter

import numpy as np

from reports.metrics.alpha import NO_PAIRABLE_UNITS, ONE_VALUE
from reports.metrics.nullable import put_value
from reports.metrics.spans.data import GOLD, MAIN
from reports.metrics.spans.layout import StudyLayout
from reports.metrics.spans.ranges import expand

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
_DRAWS_PER_BLOCK = 1 << 22  # keeps int32 draw numbers well inside range


def evaluator_comparison(study, *, seed=0, resamples=1000, progress=None):
    """Every evaluator of ``study`` (a :class:`SpanStudy`) against the people and the experts.

    Returns JSON-ready data: ``evaluators``, ``references``, ``by_evaluator``,
    ``seed`` and ``resamples`` (definitions in the module docstring).
    ``progress``, if given, is called with the fraction done a few times.
    """
    if resamples < 0:
        raise ValueError(f"resamples must be 0 or more, not {resamples}")
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
    evaluator_spans = [model_spans.part(mask) for mask in _masks(span_evaluators, len(evaluators))]
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
    counts[:, :, 0] = _tallies(token_sweep, len(evaluators))[0]
    one_more = _one_more_annotator(
        token_sweep, people_ranges, coders, compared[1], tokens.per_document(), people_spans.documents,
        _numbered([annotation.annotator for annotation in people]),
    )  # fmt: skip
    notify(0.6)

    sentences = layout.sentences
    channels = [_person_ranges(sentences, people_spans)[1:], _line_ranges(sentences, gold_spans.part())]
    channels += [_line_ranges(sentences, spans) for spans in evaluator_spans]
    for reference_spans in (people_spans, gold_spans):
        span, lo, hi = _shared_ranges(
            layout, model_spans.part(), _character_union(layout, reference_spans.part())
        )
        channels += [(lo[mask], hi[mask]) for mask in _masks(span_evaluators[span], len(evaluators))]
    sentence_sweep = _Sweep(sentences, shape, channels)
    counts[:, :, 1], overlapping = _tallies(sentence_sweep, len(evaluators), shared=True)
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
            resamples,
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


def _masks(numbers, count):
    """For each of ``count`` numbers, where ``numbers`` holds it."""
    return [numbers == number for number in range(count)]


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
        # In study order: binary searches over sorted keys run several times faster.
        order = np.argsort(starts)
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
    lo, hi = _line_ranges(units, spans.part())
    # Spans are in study order, so grouping them by owner and category keeps lo sorted within an owner.
    order = _stable_order(spans.owners * (int(spans.categories.max(initial=0)) + 1) + spans.categories)
    return _merge_sorted(spans.owners[order], lo[order], hi[order])


def _stable_order(keys):
    """The stable sorting order of non-negative integer ``keys`` (by radix when they are small)."""
    return np.argsort(keys.astype(np.uint16) if keys.max(initial=0) < 1 << 16 else keys, kind="stable")


def _merge_sorted(owners, lo, hi):
    """:func:`merge_ranges` for ranges already sorted by owner, then lo, so without its sort.

    Each owner's overlapping or touching ranges become one; empty ranges are dropped.
    """
    keep = hi > lo
    owners, lo, hi = owners[keep], lo[keep], hi[keep]
    if not len(lo):
        return owners, lo, hi
    shift = owners * (int(hi.max()) + 1)
    reach = np.maximum.accumulate(hi + shift)
    first = np.ones(len(lo), dtype=bool)
    first[1:] = lo[1:] + shift[1:] > reach[:-1]
    starts = np.flatnonzero(first)
    lasts = np.append(starts[1:] - 1, len(lo) - 1)
    return owners[starts], lo[starts], reach[lasts] - shift[lasts]


def _character_union(layout, spans):
    """The characters any of ``spans`` covers, as disjoint [start, end) per category on a character line."""
    _, categories, starts, ends = spans
    order = _stable_order(categories)
    shift = categories[order] * (_study_length(layout) + 1)
    anyone = np.zeros(len(starts), dtype=np.int64)
    return _merge_sorted(anyone, starts[order] + shift, ends[order] + shift)[1:]


def _study_length(layout):
    bases, lengths = layout.segment_bases, layout.segment_lengths
    return int(bases[-1] + lengths[-1]) if len(bases) else 0


def _shared_ranges(layout, spans, union):
    """Sentences on the line where one of ``spans`` and the ``union`` of a reference's spans share a character.

    Returns, per piece of a span that the union covers, the span's number
    and the [lo, hi) of the sentences the piece touches.
    """
    _, categories, starts, ends = spans
    order = _stable_order(categories)  # sorted keys make the binary searches faster
    categories, starts, ends = categories[order], starts[order], ends[order]
    union_starts, union_ends = union
    shift = categories * (_study_length(layout) + 1)
    first = np.searchsorted(union_ends, starts + shift, side="right")
    last = np.maximum(np.searchsorted(union_starts, ends + shift, side="left"), first)
    merged, span = expand(first, last)
    piece_starts = np.maximum(union_starts[merged] - shift[span], starts[span])
    piece_ends = np.minimum(union_ends[merged] - shift[span], ends[span])
    return order[span], *_line_ranges(layout.sentences, (None, categories[span], piece_starts, piece_ends))


def _every_unit(line, ends):
    """Whether to count on every unit of the line rather than sort the ends of the ranges."""
    return line <= ends


class _Sweep:
    """Every category's units on one line, cut into pieces where any channel's range begins or ends.

    ``channels``: per channel, [lo, hi) ranges on the line (category c's
    units start at c * (units + 1), so no range reaches another category).
    Each kept piece has ``cover[channel, piece]``: how many of the
    channel's ranges cover it; its ``lengths`` in units; its ``documents``,
    ``categories`` and ``cells`` (``document * categories + category``).
    Pieces nothing covers are dropped.
    """

    def __init__(self, units, shape, channels):
        self.shape = shape
        line = shape[1] * (len(units) + 1)
        if _every_unit(line, sum(2 * len(lo) for lo, _ in channels)):
            self._count_every_unit(line, channels)
        else:
            self._sweep(channels)
        self.categories, unit = np.divmod(self.starts, len(units) + 1)
        self.documents = units.per_unit(np.arange(shape[0]))[unit]
        self.cells = self.documents * shape[1] + self.categories

    def _count_every_unit(self, line, channels):
        """A line shorter than the list of range ends: count on every unit (difference arrays)."""
        cover = np.empty((len(channels), line), dtype=np.int32)
        for number, (lo, hi) in enumerate(channels):
            steps = np.bincount(lo, minlength=line + 1) - np.bincount(hi, minlength=line + 1)
            cover[number] = np.cumsum(steps[:line])
        covered = cover[0] > 0
        for row in cover[1:]:
            covered |= row > 0
        self.starts = np.flatnonzero(covered)
        self.lengths = np.ones(len(self.starts), dtype=np.int64)
        self.cover = cover[:, self.starts]

    def _sweep(self, channels):
        # One sortable code per range end: position, then channel, then whether it is the end.
        bits = (2 * len(channels) - 1).bit_length()
        codes = []
        for channel, (lo, hi) in enumerate(channels):
            keep = hi > lo
            codes += [(lo[keep] << bits) | (2 * channel), (hi[keep] << bits) | (2 * channel + 1)]
        codes = np.concatenate(codes)
        codes = np.sort(codes.astype(np.int32) if codes.max(initial=0) < 1 << 31 else codes)
        positions = codes >> bits
        step = (1 - 2 * (codes & 1)).astype(np.int32)
        channel = (codes & ((1 << bits) - 1)) >> 1
        # The state after the last event at a position holds up to the next position.
        last = np.flatnonzero(positions[1:] > positions[:-1])
        kept = last[np.cumsum(step)[last] > 0]
        self.cover = np.empty((len(channels), len(kept)), dtype=np.int32)
        for number in range(len(channels)):
            self.cover[number] = np.cumsum(np.where(channel == number, step, 0))[kept]
        self.starts = positions[kept].astype(np.int64)
        self.lengths = positions[kept + 1] - positions[kept]

    def tally(self, patterns, selections):
        """Units per [document, category, selection]: ``selections[p, s]`` says whether pattern p counts for s.

        ``patterns`` gives each piece a small number (bits of its state), so
        that one pass counts every piece once, whatever is asked of it; only
        the patterns that occur get a column.
        """
        present = np.flatnonzero(np.bincount(patterns, minlength=len(selections)))
        columns = np.zeros(len(selections), dtype=np.int64)
        columns[present] = np.arange(len(present))
        size = self.shape[0] * self.shape[1]
        table = np.bincount(
            self.cells * len(present) + columns[patterns], weights=self.lengths, minlength=size * len(present)
        ).reshape(size, len(present))
        # Column sums rather than a matrix product, which would start BLAS threads.
        totals = [table[:, chosen].sum(axis=1) for chosen in selections[present].T.astype(bool)]
        return np.stack(totals, axis=-1).astype(np.int64).reshape(*self.shape, len(totals))


def _tallies(sweep, evaluators, shared=False):
    """Per document: [reference, evaluator, category, (predicted, reference, correct), document] units.

    With ``shared`` also [reference, evaluator, category, document] correct
    sentences where the spans share a character. Channels: the people (a
    count), the experts, each evaluator, then with ``shared`` each
    evaluator's units sharing a character with a person's span, and with a
    gold span.
    """
    documents, categories = sweep.shape
    people = sweep.cover[0]
    # Bits: 0 predicted, 1 union, 2 two_agree, 3 gold, 4 shared with a person, 5 shared with gold.
    common = (people >= 1) << 1 | (people >= 2) << 2 | (sweep.cover[1] > 0) << 3
    bits = np.arange(64 if shared else 16)[:, None] >> np.arange(6) & 1
    selections = [bits[:, 0]]
    for reference in range(len(REFERENCES)):
        selections += [bits[:, 1 + reference], bits[:, 0] & bits[:, 1 + reference]]
    selections += [bits[:, 4], bits[:, 4] & bits[:, 2], bits[:, 5]]
    selections = np.stack(selections, axis=1).astype(np.float64)
    counts = np.zeros((len(REFERENCES), evaluators, categories, 3, documents), dtype=np.int64)
    overlapping = np.zeros((len(REFERENCES), evaluators, categories, documents), dtype=np.int64)
    for evaluator in range(evaluators):
        patterns = common | (sweep.cover[2 + evaluator] > 0)
        if shared:
            patterns |= (sweep.cover[2 + evaluators + evaluator] > 0) << 4
            patterns |= (sweep.cover[2 + 2 * evaluators + evaluator] > 0) << 5
        table = sweep.tally(patterns, selections).transpose(2, 1, 0)
        for reference in range(len(REFERENCES)):
            counts[reference, evaluator, :, 0] = table[0]
            counts[reference, evaluator, :, 1:] = table[1 + 2 * reference : 3 + 2 * reference].transpose(
                1, 0, 2
            )
        overlapping[:, evaluator] = table[7:]
    return counts, overlapping


def _one_more_annotator(sweep, people_ranges, coders, unit_documents, tokens_per_document, documents, names):
    """Per evaluator, per category: people's token alpha and the alphas with the evaluator in a person's place.

    ``sweep``: the token sweep (channel 0 counts people, channel 2 + k is
    evaluator k); ``people_ranges``: each people's annotation's merged
    token ranges; ``unit_documents[k]``: the documents whose tokens are the
    units for evaluator k; ``documents``/``names``: per people's annotation,
    its document and its person's number.

    A histogram counts units by kind: (people on the document, people
    marking the unit), numbered ``level * width + marked``. With evaluator k
    in person a's place, k's tokens that a left out go from (n, m) up to
    (n, m + 1) and a's tokens that k leaves out down to (n, m - 1).
    ``flow[a, category, kind]`` is the number of units that go from kind up
    to kind + 1 (a negative flow goes down): every evaluator's piece goes up
    once per person on its document, a person's piece that the evaluator
    leaves out goes down, and one it marks undoes its way up.
    """
    _, categories = sweep.shape
    levels = np.unique(coders)
    width = int(levels.max(initial=0)) + 2  # room for marked + 1 within a level
    slots = len(levels) * width
    slot_coders, slot_marked = np.repeat(levels, width), np.tile(np.arange(width), len(levels))
    level_of = np.searchsorted(levels, coders)
    kinds = level_of[sweep.documents] * width + sweep.cover[0]
    owners, lo, hi = people_ranges
    person_pieces, which = expand(np.searchsorted(sweep.starts, lo), np.searchsorted(sweep.starts, hi))
    person_names = names[owners[which]]
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
        base = np.zeros(categories * slots)  # bincount of nothing is an integer array
        base += np.bincount(
            sweep.categories * slots + kinds, weights=sweep.lengths * in_pieces, minlength=base.size
        )
        base = base.reshape(categories, len(levels), width)
        unit_tokens = np.bincount(
            level_of[in_units], weights=tokens_per_document[in_units], minlength=len(levels)
        )
        base[:, :, 0] += unit_tokens - base.sum(axis=2)
        base = base.reshape(categories, slots)

        marks = sweep.cover[2 + evaluator] > 0
        up = np.flatnonzero(marks & in_pieces)
        positions, which = expand(firsts[sweep.documents[up]], firsts[sweep.documents[up] + 1])
        up, up_names = up[which], names[by_document[positions]]
        keep = in_pieces[person_pieces]
        down = person_pieces[keep]
        size = people * categories * slots
        flow = np.zeros(size)  # bincount of nothing is an integer array
        flow += np.bincount(
            (up_names * categories + sweep.categories[up]) * slots + kinds[up],
            weights=sweep.lengths[up],
            minlength=size,
        )
        flow -= np.bincount(
            (person_names[keep] * categories + sweep.categories[down]) * slots + kinds[down] - ~marks[down],
            weights=sweep.lengths[down],
            minlength=size,
        )
        included = np.unique(names[in_units[documents]])
        flow = flow.reshape(people, categories, slots)[included]
        change = -flow
        change[..., 1:] += flow[..., :-1]

        people_alphas, reasons = _binary_alphas(base, slot_coders, slot_marked)
        alphas, _ = _binary_alphas(base + change, slot_coders, slot_marked)
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


def _binary_alphas(histograms, coders, marked):
    """Binary nominal alpha of each histogram: along the last axis, units of each kind (coders, marked).

    Krippendorff's (2011) alpha for two values in closed form: a unit with n
    coders and m ones adds n - m zeros, m ones and 2 m (n - m) / (n - 1) to
    the observed disagreement, and alpha = 1 - (n.. - 1) D_o / (2 n_0 n_1).
    Returns alphas (NaN when undefined) and the reasons ("" when defined).
    """
    pairable = (coders >= 2) & (marked <= coders)
    zeros = np.where(pairable, coders - marked, 0).astype(np.float64)
    ones = np.where(pairable, marked, 0).astype(np.float64)
    disagreement = np.where(pairable, 2.0 * marked * (coders - marked) / np.maximum(coders - 1, 1), 0.0)
    n0, n1, observed = ((histograms * weights).sum(axis=-1) for weights in (zeros, ones, disagreement))
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
    groups = {}
    for reference in range(reference_count):
        drawn = np.flatnonzero(references[reference])
        if len(drawn) >= 2 and resamples and evaluators:
            groups.setdefault(drawn.tobytes(), (drawn, []))[1].append(reference)
    for drawn, members in groups.values():
        values, columns = _distinct_rows(counts[members][..., drawn].reshape(-1, len(drawn)))
        # float32 sums integers exactly below 2**24, and twice as fast.
        exact = len(drawn) * int(values.max(initial=0)) < 1 << 24
        values = values.astype(np.float32 if exact else np.float64)
        # einsum rather than a matrix product: BLAS threads would compete with other work on the machine.
        sums = np.concatenate(
            [
                np.einsum("kd,dr->kr", values, block.astype(values.dtype, copy=False))
                for block in _draw(rng, len(drawn), resamples)
            ],
            axis=1,
        )
        sums = sums[columns].T.astype(np.float64)
        sums = sums.reshape(resamples, len(members), evaluators, levels, categories, 3)
        sums = np.concatenate([sums, sums.sum(axis=4, keepdims=True)], axis=4)
        bounds[members] = _percentiles(np.stack(_ratios(sums[..., 0], sums[..., 1], sums[..., 2]), axis=-1))
    return bounds


def _distinct_rows(rows):
    """The distinct rows, and for each row its distinct one's number.

    Many rows repeat (a reference's counts for every evaluator, say), and
    each distinct one needs resampling once.
    """
    numbers = {}
    which = np.array([numbers.setdefault(row.tobytes(), len(numbers)) for row in rows], dtype=np.int64)
    firsts = np.zeros(len(numbers), dtype=np.int64)
    firsts[which[::-1]] = np.arange(len(rows))[::-1]
    return rows[firsts], which


def _draw(rng, documents, resamples):
    """Resamples of ``documents`` documents with replacement, as how often each was drawn.

    Blocks of a (documents x resamples) matrix, so that summing per-document
    counts over every resample is one product per block.
    """
    block = max(1, _DRAWS_PER_BLOCK // documents)
    blocks = []
    for start in range(0, resamples, block):
        size = min(block, resamples - start)
        draws = rng.integers(0, documents, size=(size, documents), dtype=np.int32)
        draws *= size
        draws += np.arange(size, dtype=np.int32)[:, None]  # document * size + resample
        times = np.bincount(draws.ravel(), minlength=documents * size)
        blocks.append(times.reshape(documents, size).astype(np.float32))
    return blocks


def _percentiles(values, shares=(0.025, 0.975)):
    """Percentiles along the first axis leaving NaN out, interpolated linearly (numpy's default method).

    The last axis of the result holds one value per share; NaN where every value is NaN.
    """
    shape = values.shape[1:]
    ordered = np.ascontiguousarray(values.reshape(len(values), -1).T)
    ordered.sort(axis=1)  # NaN sorts last
    defined = np.count_nonzero(~np.isnan(ordered), axis=1)
    rows = np.arange(len(ordered))
    results = []
    for share in shares:
        position = np.maximum(defined - 1, 0) * share
        below = np.floor(position).astype(np.int64)
        above = np.minimum(below + 1, np.maximum(defined - 1, 0))
        low, high = ordered[rows, below], ordered[rows, above]
        results.append(low + (high - low) * (position - below))
    results = np.stack(results, axis=-1)
    results[defined == 0] = np.nan
    return results.reshape(*shape, len(shares))


def _ratios(predicted, reference, correct):
    """Precision, recall and F1 of count arrays; NaN where undefined."""
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = np.where(predicted > 0, correct / predicted, np.nan)
        recall = np.where(reference > 0, correct / reference, np.nan)
        total = precision + recall
        f1 = np.where(total > 0, 2 * precision * recall / total, np.where(np.isnan(total), np.nan, 0.0))
    return precision, recall, f1


def _figures(counts, overlapping, compared, bounds, resamples):
    """Per category and then for all: {level: {reference: scores}} of one evaluator."""
    totals = counts.sum(axis=-1)
    totals = np.concatenate([totals, totals.sum(axis=2, keepdims=True)], axis=2)
    overlaps = overlapping.sum(axis=-1)
    overlaps = np.concatenate([overlaps, overlaps.sum(axis=1, keepdims=True)], axis=1)
    figures = []
    for column in range(totals.shape[2]):
        entry = {}
        for level, level_name in enumerate(LEVELS):
            entry[level_name] = {}
            for reference, name in enumerate(REFERENCES):
                documents = int(compared[reference])
                scores = _scores(level_name, totals[reference, level, column].tolist(), documents, name)
                if level_name == "sentence":
                    correct = scores["correct"]
                    overlap = int(overlaps[reference, column]) / correct if correct else None
                    put_value(scores, "overlap", overlap, "no correctly marked sentence")
                _intervals(scores, bounds[reference, level, column], documents, resamples)
                entry[level_name][name] = scores
        figures.append(entry)
    return figures


def _scores(unit, totals, documents, reference_name):
    """Counts, precision, recall and F1, each undefined one null with its reason."""
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
    return result


def _intervals(scores, bounds, documents, resamples):
    """Add ``<score>_interval``: [low, high], or null with the reason there is none."""
    for name, (low, high) in zip(SCORED, bounds.tolist(), strict=True):
        if documents < 2:
            put_value(scores, f"{name}_interval", None, "fewer than two compared documents")
        elif not resamples:
            put_value(scores, f"{name}_interval", None, "no resamples were asked for")
        elif low != low:  # NaN
            put_value(scores, f"{name}_interval", None, f"{name} is undefined in every resample")
        else:
            scores[f"{name}_interval"] = [low, high]
