"""evaluator_comparison: the evaluators against the people, put together from the parts of this package."""

import numpy as np

from reports.metrics.spans.data import GOLD, MAIN
from reports.metrics.spans.layout import StudyLayout

from .bootstrap import bootstrap_bounds
from .one_more import OneMoreSums, one_more_tallies
from .scores import evaluator_figures
from .spans import SpanArrays, character_union, line_ranges, person_ranges, shared_ranges
from .sweep import Sweep, tallies
from .terms import LEVELS, MODEL, REFERENCES


def evaluator_comparison(study, *, seed=0, resamples=1000, progress=None, layout=None):
    """Every evaluator of ``study`` (a :class:`SpanStudy`) against the people and the experts.

    Returns JSON-ready data: ``evaluators``, ``references``, ``by_evaluator``,
    ``seed`` and ``resamples`` (definitions in the module docstring).
    ``progress``, if given, is called with the fraction done a few times.
    ``layout``: the study's :class:`StudyLayout` when the caller has built it.
    """
    if resamples < 0:
        raise ValueError(f"resamples must be 0 or more, not {resamples}")
    notify = progress or (lambda fraction: None)
    notify(0.0)
    tallies = comparison_tallies(study, layout=layout)
    notify(0.7)
    keys = [category.key for category in study.categories]
    result = comparison_from_tallies([tallies], keys, seed=seed, resamples=resamples)
    notify(1.0)
    return result


def comparison_tallies(study, *, layout=None):
    """What ``study`` (all of a study, or some of its documents with their work) adds to the
    comparison: per document counts, and one more annotator's histograms; JSON-ready.

    Every figure is a sum of these over documents, so the tallies of a study's parts, merged
    in study order by comparison_from_tallies, give the one-pass figures bit for bit.
    """
    layout = layout or StudyLayout(study.documents)
    keys = [category.key for category in study.categories]
    numbers = {key: number for number, key in enumerate(keys)}
    people, experts, models = _submitted(study, layout)
    people_spans = SpanArrays(people, layout, numbers)
    gold_spans = SpanArrays(experts, layout, numbers)
    model_spans = SpanArrays(models, layout, numbers)
    evaluators = sorted({annotation.annotator for annotation in models})
    model_evaluators = _numbered([annotation.annotator for annotation in models], evaluators)
    span_evaluators = model_evaluators[model_spans.owners]
    evaluator_spans = [model_spans.part(mask) for mask in _masks(span_evaluators, len(evaluators))]

    documents = len(study.documents)
    coders = np.bincount(people_spans.documents, minlength=documents)
    has_evaluator = np.zeros((len(evaluators), documents), dtype=bool)
    has_evaluator[model_evaluators, model_spans.documents] = True
    gold_documents = np.bincount(gold_spans.documents, minlength=documents) >= 1
    references = np.stack([coders >= 1, coders >= 2, gold_documents])
    compared = references[:, None, :] & has_evaluator[None, :, :]
    shape = (documents, len(keys))

    tokens = layout.tokens
    people_ranges = person_ranges(tokens, people_spans)
    token_sweep = Sweep(
        tokens,
        shape,
        [people_ranges[1:], line_ranges(tokens, gold_spans.part())]
        + [line_ranges(tokens, spans) for spans in evaluator_spans],
    )
    counts = np.zeros(
        (len(REFERENCES), len(evaluators), len(LEVELS), len(keys), 3, documents), dtype=np.int64
    )
    counts[:, :, 0] = tallies(token_sweep, len(evaluators))[0]
    people_names = sorted({annotation.annotator for annotation in people})
    one_more = one_more_tallies(
        token_sweep, people_ranges, coders, compared[1], tokens.per_document(), people_spans.documents,
        _numbered([annotation.annotator for annotation in people], people_names), people_names,
    )  # fmt: skip

    sentences = layout.sentences
    channels = [person_ranges(sentences, people_spans)[1:], line_ranges(sentences, gold_spans.part())]
    channels += [line_ranges(sentences, spans) for spans in evaluator_spans]
    for reference_spans in (people_spans, gold_spans):
        span, lo, hi = shared_ranges(
            layout, model_spans.part(), character_union(layout, reference_spans.part())
        )
        channels += [(lo[mask], hi[mask]) for mask in _masks(span_evaluators[span], len(evaluators))]
    sentence_sweep = Sweep(sentences, shape, channels)
    counts[:, :, 1], overlapping = tallies(sentence_sweep, len(evaluators), shared=True)
    # An evaluator is only compared on documents that it and the reference both cover.
    counts *= compared[:, :, None, None, None, :]
    overlapping *= compared[:, :, None, :]
    return {
        "evaluators": evaluators,
        "coders": coders.tolist(),
        "gold_documents": gold_documents.tolist(),
        "has_evaluator": has_evaluator.tolist(),
        "spans": [
            int(np.count_nonzero(span_evaluators == evaluator)) for evaluator in range(len(evaluators))
        ],
        "counts": counts.tolist(),
        "overlapping": overlapping.tolist(),
        "one_more": one_more,
    }


def comparison_from_tallies(parts, keys, *, seed=0, resamples=1000):
    """The comparison from the tallies of a study's parts (comparison_tallies), in study order.

    `parts` is read once, a part at a time: each part's per-document counts are kept as packed
    arrays until the study's evaluators are known, and one more annotator's histograms as sums.
    """
    packed, one_more_sums = [], OneMoreSums()
    for part in parts:
        packed.append(_PackedPart(part, len(keys)))
        one_more_sums.add(part["evaluators"], part["one_more"])
    evaluators = sorted({name for part in packed for name in part.evaluators})
    documents, spans = sum(len(part.coders) for part in packed), np.zeros(len(evaluators), dtype=np.int64)
    coders, gold_documents = np.zeros(documents, dtype=np.int64), np.zeros(documents, dtype=bool)
    has_evaluator = np.zeros((len(evaluators), documents), dtype=bool)
    counts = np.zeros(
        (len(REFERENCES), len(evaluators), len(LEVELS), len(keys), 3, documents), dtype=np.int64
    )
    overlapping = np.zeros((len(REFERENCES), len(evaluators), len(keys), documents), dtype=np.int64)
    start = 0
    packed.reverse()
    while packed:  # each part's arrays dropped once placed: the study's arrays are held once
        part = packed.pop()
        end = start + len(part.coders)
        coders[start:end], gold_documents[start:end] = part.coders, part.gold_documents
        at = [evaluators.index(name) for name in part.evaluators]
        if at:  # a part's evaluators in the study's numbering; an evaluator it lacks counts nothing there
            has_evaluator[at, start:end] = part.has_evaluator
            counts[:, at, ..., start:end] = part.counts
            overlapping[:, at, ..., start:end] = part.overlapping
            spans[at] += part.spans
        start = end
    references = np.stack([coders >= 1, coders >= 2, gold_documents])
    compared = references[:, None, :] & has_evaluator[None, :, :]
    one_more = one_more_sums.figures(evaluators, coders, len(keys))
    bounds = bootstrap_bounds(np.random.default_rng(seed), counts, references, resamples)
    by_evaluator = {}
    for evaluator, name in enumerate(evaluators):
        entry = {"documents": int(has_evaluator[evaluator].sum()), "spans": int(spans[evaluator])}
        figures = evaluator_figures(
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
    return {
        "evaluators": evaluators,
        "references": {
            name: {"documents": int(references[number].sum())} for number, name in enumerate(REFERENCES)
        },
        "by_evaluator": by_evaluator,
        "seed": seed,
        "resamples": resamples,
    }


class _PackedPart:
    """One part's comparison tallies as numpy arrays, its documents along the last axis."""

    def __init__(self, part, categories):
        self.evaluators = part["evaluators"]
        self.coders = np.array(part["coders"], dtype=np.int64)
        self.gold_documents = np.array(part["gold_documents"], dtype=bool)
        documents, evaluators = len(self.coders), len(self.evaluators)
        self.has_evaluator = np.array(part["has_evaluator"], dtype=bool).reshape(evaluators, documents)
        self.counts = np.array(part["counts"], dtype=np.int64).reshape(
            len(REFERENCES), evaluators, len(LEVELS), categories, 3, documents
        )
        self.overlapping = np.array(part["overlapping"], dtype=np.int64).reshape(
            len(REFERENCES), evaluators, categories, documents
        )
        self.spans = np.array(part["spans"], dtype=np.int64)


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
