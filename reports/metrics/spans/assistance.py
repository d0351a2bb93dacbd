"""What model suggestions did to a span study's answers: the suggestion arm against the control arm.

Units are tokens (layout.tokenize), as in the span report: a span marks every
token it touches. Per document and category the *reference* is

- gold: the union of the document's submitted gold annotations, when it has any;
- otherwise the other arm's majority: tokens marked by more than half of the
  other arm's submitted annotators of the document (neither arm is scored
  against itself). A document without gold and without the other arm is not
  scored for that arm.

Precision, recall and F1 pool counts over an arm's annotators and documents
(each annotator's tokens against the reference). A suggestion is *correct*
when at least half of its tokens are in its category's reference: gold, or
else the control arm's majority. Every figure that sums over documents gets a
95% percentile bootstrap interval over documents, and so do the differences
(suggestions minus control), computed on the same resamples.
"""

from array import array
from collections import Counter, defaultdict
from dataclasses import dataclass
from statistics import mean, median

import numpy as np

from reports.metrics.spans.data import GOLD, MAIN
from reports.metrics.spans.evaluators.bootstrap import percentiles
from reports.metrics.spans.evaluators.scores import ratios
from reports.metrics.spans.layout import tokenize

SUGGESTIONS = "suggestions"
CONTROL = "control"
ARMS = (SUGGESTIONS, CONTROL)
ALL = "all"
TAKEN = ("accept", "change", "adjust")
ACTIONS = (*TAKEN, "reject")
CORRECT_RULE = "at least half of the suggestion's tokens are in its category's reference (gold, else the control arm's majority)"


@dataclass(frozen=True)
class SuggestedSpan:
    """One suggestion: ``key`` is unique within its document."""

    document: str
    key: int
    category: str
    segment: int
    start: int
    end: int


@dataclass(frozen=True)
class Decision:
    """One worker's decision on a suggestion (``action``: accept, change, adjust or reject)."""

    document: str
    annotator: str
    suggestion: int
    action: str
    seconds: float


class _Tokens:
    """Token numbers of each document's segments, and the tokens a span touches."""

    def __init__(self, documents):
        self.of = {}
        for document in documents:
            self.of[document.id] = [tokenize(text) for text in document.segments]

    def touched(self, document, segment, start, end):
        tokens = self.of[document][segment] if 0 <= segment < len(self.of[document]) else []
        return {(segment, number) for number, (lo, hi) in enumerate(tokens) if lo < end and hi > start}

    def count(self, document):
        return sum(len(tokens) for tokens in self.of[document])


def _marked(tokens, annotation, category):
    marked = set()
    for span in annotation.spans:
        if span.category == category:
            marked |= tokens.touched(annotation.document, span.segment, span.start, span.end)
    return marked


def _majority(marks):
    votes = Counter(token for marked in marks for token in marked)
    return {token for token, count in votes.items() if count * 2 > len(marks)}


def assistance_report(study, suggestions, decisions, *, seed=0, resamples=1000):
    """The report's `assistance` part from a SpanStudy whose annotations carry their arm."""
    return assistance_from_tallies(
        [assistance_tallies(study, suggestions, decisions)],
        [category.key for category in study.categories],
        seed=seed,
        resamples=resamples,
    )


def assistance_tallies(study, suggestions, decisions):
    """What `study` (all of a study, or some of its documents with their work, suggestions and
    decisions) adds to the `assistance` part: counts per document and totals, JSON-ready.

    Every figure of the part is a sum of these over documents, so the tallies of a study's parts,
    merged in study order by assistance_from_tallies, give the one-pass figures bit for bit.
    """
    tokens = _Tokens(study.documents)
    categories = [category.key for category in study.categories]
    documents = [document.id for document in study.documents]
    submitted = [a for a in study.annotations if a.submitted]
    people = defaultdict(list)  # (document, arm) -> annotations
    gold = defaultdict(list)
    for annotation in submitted:
        if annotation.kind == MAIN and annotation.arm in ARMS:
            people[(annotation.document, annotation.arm)].append(annotation)
        elif annotation.kind == GOLD:
            gold[annotation.document].append(annotation)
    used = [d for d in documents if people[(d, SUGGESTIONS)] or people[(d, CONTROL)]]
    index = {document: number for number, document in enumerate(used)}
    columns = len(categories) + 1  # the categories, then all of them

    # Per document: counts that add up over documents (a resample weights them).
    scored = np.zeros((2, len(used), columns, 3))  # arm, document, category, (predicted, reference, correct)
    timing = np.zeros((2, len(used), 2))  # arm, document, (seconds per segment summed, assignments)
    anchoring = np.zeros(
        (len(used), columns, 2, 2)
    )  # document, category, (correct, incorrect), (decided, taken)
    # arm, document, category, (pairable values n, marked values n1, disagreeing pairs o01): token alpha's sums
    coincidences = np.zeros((2, len(used), len(categories), 3))
    reference_kinds = Counter()
    references = {}
    for document in used:
        d = index[document]
        has_gold = bool(gold[document])
        reference_kinds["gold" if has_gold else "other_arm_majority"] += 1
        for c, category in enumerate(categories):
            marks = {arm: [_marked(tokens, a, category) for a in people[(document, arm)]] for arm in ARMS}
            gold_marks = set().union(*(_marked(tokens, a, category) for a in gold[document]))
            for a, arm in enumerate(ARMS):
                other = marks[CONTROL if arm == SUGGESTIONS else SUGGESTIONS]
                reference = gold_marks if has_gold else (_majority(other) if other else None)
                if reference is None:
                    continue
                for marked in marks[arm]:
                    scored[a, d, c] += (len(marked), len(reference), len(marked & reference))
                coincidences[a, d, c] = _coincidence_sums(tokens.count(document), marks[arm])
            control = marks[CONTROL]
            references[(document, category)] = (
                gold_marks if has_gold else (_majority(control) if control else None)
            )
        for a, arm in enumerate(ARMS):
            for annotation in people[(document, arm)]:
                segments = max(1, len(tokens.of[document]))
                timing[a, d] += (annotation.active_seconds / segments, 1)
    scored[:, :, -1] = scored[:, :, :-1].sum(axis=2)

    by_key = {(s.document, s.key): s for s in suggestions}
    arm_of = {(a.document, a.annotator): a.arm for a in submitted if a.kind == MAIN}
    actions, seconds, unjudged = Counter(), [], 0
    for decision in decisions:
        suggestion = by_key.get((decision.document, decision.suggestion))
        if suggestion is None or arm_of.get((decision.document, decision.annotator)) != SUGGESTIONS:
            continue  # an unsubmitted assignment's decision, or one outside the arms
        actions[decision.action] += 1
        seconds.append(decision.seconds)
        reference = references.get((suggestion.document, suggestion.category))
        if reference is None or suggestion.document not in index:
            unjudged += 1
            continue
        touched = tokens.touched(suggestion.document, suggestion.segment, suggestion.start, suggestion.end)
        correct = len(touched & reference) * 2 >= len(touched) > 0
        c = categories.index(suggestion.category) if suggestion.category in categories else None
        taken = decision.action in TAKEN
        for column in (c, columns - 1):
            if column is not None:
                anchoring[index[suggestion.document], column, 0 if correct else 1] += (1, taken)
    return {
        "categories": categories,
        "per_document": {
            "scored": scored.tolist(),
            "timing": timing.tolist(),
            "anchoring": anchoring.tolist(),
            "coincidences": coincidences.tolist(),
        },  # fmt: skip
        "references": {kind: reference_kinds[kind] for kind in ("gold", "other_arm_majority")},
        "arms": {arm: _arm_counts(people, used, arm) for arm in ARMS},
        "actions": {action: actions[action] for action in ACTIONS},
        "unjudged": unjudged,
        "seconds": seconds,
    }


# The axis of each per-document array along which documents run.
DOCUMENT_AXIS = {"scored": 1, "timing": 1, "anchoring": 0, "coincidences": 1}


def assistance_from_tallies(parts, categories, *, seed=0, resamples=1000):
    """The `assistance` part from the tallies of a study's parts (assistance_tallies), in study order.

    `parts` is read once, a part at a time: what is kept across parts is sums, the per-document
    arrays (packed, for the bootstrap) and the decisions' seconds (packed, for their median).
    """
    columns = len(categories) + 1
    empty = {
        "scored": (2, 0, columns, 3), "timing": (2, 0, 2),
        "anchoring": (0, columns, 2, 2), "coincidences": (2, 0, len(categories), 3),
    }  # fmt: skip
    pieces = {name: [np.zeros(shape)] for name, shape in empty.items()}
    seconds = array("d")
    annotators = {arm: set() for arm in ARMS}
    counted = {arm: {"assignments": 0, "documents": 0} for arm in ARMS}
    references = dict.fromkeys(("gold", "other_arm_majority"), 0)
    actions, unjudged = dict.fromkeys(ACTIONS, 0), 0
    for part in parts:
        for name, shape in empty.items():
            values = np.array(part["per_document"][name], dtype=np.float64)
            pieces[name].append(values.reshape(_shaped(shape, part, name)))
        seconds.extend(part["seconds"])
        for arm in ARMS:
            annotators[arm].update(part["arms"][arm]["annotators"])
            for count in counted[arm]:
                counted[arm][count] += part["arms"][arm][count]
        for kind in references:
            references[kind] += part["references"][kind]
        for action in ACTIONS:
            actions[action] += part["actions"][action]
        unjudged += part["unjudged"]
    arrays = {name: np.concatenate(pieces.pop(name), axis=DOCUMENT_AXIS[name]) for name in empty}
    used = arrays["timing"].shape[1]
    resampled = _resampled(arrays, used, seed, resamples)
    return {
        "documents": used,
        "references": references,
        "arms": {arm: {"annotators": len(annotators[arm]), **counted[arm]} for arm in ARMS},
        "correct_rule": CORRECT_RULE,
        "seed": seed,
        "resamples": resamples,
        "scores": _scores(arrays["scored"], resampled["scored"], categories),
        "agreement": _agreement(arrays["coincidences"], resampled["coincidences"], categories),
        "time": _time(arrays["timing"], resampled["timing"]),
        "anchoring": _anchoring(arrays["anchoring"], resampled["anchoring"], categories),
        "decisions": {
            **actions,
            "unjudged": unjudged,
            "seconds_mean": mean(seconds) if seconds else None,
            "seconds_median": median(seconds) if seconds else None,
        },
    }


def _shaped(shape, part, name):
    """The shape of a part's array (its documents along the document axis; an empty list has none)."""
    documents = len(part["per_document"]["timing"][0])
    return tuple(documents if axis == DOCUMENT_AXIS[name] else size for axis, size in enumerate(shape))


def _arm_counts(people, used, arm):
    annotations = [a for document in used for a in people[(document, arm)]]
    return {
        "annotators": sorted({a.annotator for a in annotations}),  # counted once the parts are merged
        "assignments": len(annotations),
        "documents": sum(1 for document in used if people[(document, arm)]),
    }


def _coincidence_sums(units, marks):
    """One document's sums for binary token alpha among `marks` (each annotator's marked tokens).

    For nominal alpha over 0/1 values, with m coders of a unit of which k gave 1:
    n = sum of m, n1 = sum of k, o01 = sum of k (m - k) / (m - 1), and
    alpha = 1 - (n - 1) o01 / (n0 n1) (Krippendorff's coincidences, written out
    for two values). The sums add over documents, so a bootstrap resample is a
    weighted sum. Units need two coders: a document with one annotator adds nothing.
    """
    coders = len(marks)
    if coders < 2:
        return (0.0, 0.0, 0.0)
    votes = Counter(token for marked in marks for token in marked)
    marked = sum(votes.values())
    disagreeing = sum(k * (coders - k) for k in votes.values()) / (coders - 1)
    return (float(coders * units), float(marked), disagreeing)


# Resamples x documents drawn at once: the draws' memory stays that of a block whatever the study's size
# (a few MB; a study of a few hundred documents already fills a block, so small and large ones use the same).
DRAWS_PER_BLOCK = 1 << 18
# How each per-document array is summed over a resample's draws (weights: resample x document).
RESAMPLED = {
    "scored": "rd,adck->rack", "coincidences": "rd,adck->rack",
    "timing": "rd,adk->rak", "anchoring": "rd,dckt->rckt",
}  # fmt: skip


def _resampled(arrays, documents, seed, resamples):
    """Each per-document array summed over every resample's draw of documents (resample first)."""
    blocks = [np.zeros((0, documents))]
    if documents >= 2 and resamples:
        rng = np.random.default_rng(seed)
        step = max(1, DRAWS_PER_BLOCK // documents)
        # Drawn a block of resamples after another: numpy's generator gives the rows of one
        # (resamples x documents) draw in the same order either way.
        blocks = (
            _weights(rng, documents, min(step, resamples - start)) for start in range(0, resamples, step)
        )
    sums = {name: [] for name in RESAMPLED}
    for weights in blocks:
        for name, subscripts in RESAMPLED.items():
            sums[name].append(np.einsum(subscripts, weights, arrays[name]))
    return {name: np.concatenate(blocks) for name, blocks in sums.items()}


def _weights(rng, documents, resamples):
    """How often each document is drawn in each of `resamples` resamples (resamples x documents)."""
    drawn = rng.integers(0, documents, size=(resamples, documents))
    drawn += np.arange(resamples)[:, None] * documents  # resample * documents + document
    counts = np.bincount(drawn.ravel(), minlength=resamples * documents)
    del drawn
    return counts.reshape(resamples, documents).astype(np.float64)


def _figure(value, low=None, high=None):
    clean = lambda x: None if x is None or not np.isfinite(x) else float(x)  # noqa: E731
    return {"value": clean(value), "low": clean(low), "high": clean(high)}


def _interval(point, resampled):
    """The figure and its 95% interval from the resampled values (NaN where undefined)."""
    if len(resampled) == 0:
        return _figure(point)
    low, high = percentiles(np.asarray(resampled, dtype=np.float64)[:, None])[0]
    return _figure(point, low, high)


def _scores(scored, resampled, categories):
    totals = scored.sum(axis=1)  # arm, category, 3
    point = np.stack(ratios(totals[..., 0], totals[..., 1], totals[..., 2]), axis=-1)  # arm, category, 3
    again = np.stack(ratios(resampled[..., 0], resampled[..., 1], resampled[..., 2]), axis=-1)
    names = ("precision", "recall", "f1")
    rows, differences = [], []
    for c, category in enumerate([*categories, ALL]):
        for a, arm in enumerate(ARMS):
            row = {"arm": arm, "category": category}
            for n, name in enumerate(names):
                row[name] = _interval(point[a, c, n], again[:, a, c, n])
            rows.append(row)
        difference = {"category": category}
        for n, name in enumerate(names):
            difference[name] = _interval(
                point[0, c, n] - point[1, c, n], again[:, 0, c, n] - again[:, 1, c, n]
            )
        differences.append(difference)
    return {"rows": rows, "differences": differences}


def _alphas(sums):
    """Binary alpha from (n, n1, o01) sums along the last axis; NaN where undefined."""
    n, n1, o01 = sums[..., 0], sums[..., 1], sums[..., 2]
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where((n1 > 0) & (n - n1 > 0), 1 - (n - 1) * o01 / (n1 * (n - n1)), np.nan)


def _agreement(coincidences, resampled, categories):
    """Token alpha within each arm, per category, and the difference of the arms."""
    point = _alphas(coincidences.sum(axis=1))  # arm, category
    again = _alphas(resampled)  # resample, arm, category
    return [
        {
            "category": category,
            **{arm: _interval(point[a, c], again[:, a, c]) for a, arm in enumerate(ARMS)},
            "difference": _interval(point[0, c] - point[1, c], again[:, 0, c] - again[:, 1, c]),
        }
        for c, category in enumerate(categories)
    ]


def _time(timing, resampled):
    """Mean active seconds per segment of each arm's assignments, and the difference."""
    totals = timing.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        point = totals[:, 0] / totals[:, 1]
        again = resampled[..., 0] / resampled[..., 1]
    figures = {arm: _interval(point[a], again[:, a]) for a, arm in enumerate(ARMS)}
    figures["difference"] = _interval(point[0] - point[1], again[:, 0] - again[:, 1])
    return {"seconds_per_segment": figures}


def _anchoring(anchoring, resampled, categories):
    """Acceptance rates of correct and incorrect suggestions in the suggestion arm, per category."""
    totals = anchoring.sum(axis=0)  # category, (correct, incorrect), (decided, taken)
    with np.errstate(divide="ignore", invalid="ignore"):
        point = totals[..., 1] / totals[..., 0]
        again = resampled[..., 1] / resampled[..., 0]
    rows = []
    for c, category in enumerate([*categories, ALL]):
        row = {"category": category}
        for k, kind in enumerate(("correct", "incorrect")):
            row[kind] = {
                "decided": int(totals[c, k, 0]),
                "taken": int(totals[c, k, 1]),
                "acceptance": _interval(point[c, k], again[:, c, k]),
            }
        row["difference"] = _interval(point[c, 0] - point[c, 1], again[:, c, 0] - again[:, c, 1])
        rows.append(row)
    return rows
