"""evaluator_comparison: the evaluators against the people, put together from the parts of this package."""

import numpy as np

from reports.metrics.spans.data import GOLD, MAIN
from reports.metrics.spans.layout import StudyLayout

from .bootstrap import bootstrap_bounds
from .one_more import one_more_annotator
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
    one_more = one_more_annotator(
        token_sweep, people_ranges, coders, compared[1], tokens.per_document(), people_spans.documents,
        _numbered([annotation.annotator for annotation in people]),
    )  # fmt: skip
    notify(0.6)

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
    notify(0.7)

    bounds = bootstrap_bounds(np.random.default_rng(seed), counts, references, resamples)
    notify(0.9)
    by_evaluator = {}
    for evaluator, name in enumerate(evaluators):
        entry = {
            "documents": int(has_evaluator[evaluator].sum()),
            "spans": int(np.count_nonzero(span_evaluators == evaluator)),
        }
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
