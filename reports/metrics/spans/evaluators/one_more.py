"""One more annotator: the people's token alpha, and with the evaluator in each person's place."""

import numpy as np

from reports.metrics.alpha import NO_PAIRABLE_UNITS, ONE_VALUE
from reports.metrics.nullable import put_value
from reports.metrics.spans.ranges import expand

from .terms import NO_ALPHA_DOCUMENT, NO_REPLACED_ALPHA


def one_more_tallies(sweep, people_ranges, coders, unit_documents, tokens_per_document, documents, names,
                     people_names):  # fmt: skip
    """Per evaluator (None when it has no unit document): the histograms one_more_figures needs.

    ``sweep``: the token sweep (channel 0 counts people, channel 2 + k is
    evaluator k); ``people_ranges``: each people's annotation's merged
    token ranges; ``unit_documents[k]``: the documents whose tokens are the
    units for evaluator k; ``documents``/``names``: per people's annotation,
    its document and its person's number in ``people_names``.

    A histogram counts units by kind: (people on the document, people
    marking the unit). With evaluator k in person a's place, k's tokens that
    a left out go from (n, m) up to (n, m + 1) and a's tokens that k leaves
    out down to (n, m - 1). ``flow[a]`` holds, per category and kind, the
    units that go from that kind up to the next (a negative flow goes down):
    every evaluator's piece goes up once per person on its document, a
    person's piece that the evaluator leaves out goes down, and one it marks
    undoes its way up. Both are sums over documents, kept as
    [category, people, marking, units] rows of the kinds that occur, so the
    tallies of a study's parts add up.
    """
    _, categories = sweep.shape
    levels = np.unique(coders)
    width = int(levels.max(initial=0)) + 2  # room for marked + 1 within a level
    slots = len(levels) * width
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
            result.append(None)
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
        flow = flow.reshape(people, categories, len(levels), width)
        included = np.unique(names[in_units[documents]])
        result.append({
            "base": _rows(base, levels),
            "flow": {people_names[person]: _rows(flow[person], levels) for person in included.tolist()},
        })  # fmt: skip
    return result


class OneMoreSums:
    """The one_more_tallies of a study's parts summed as they come, a part at a time.

    Per evaluator, its base histogram and each person's flow as {(category, people, marking):
    units}: the kinds are placed in the study's histograms only once every part is read (the
    study's numbers of people per document decide the layout). Each kind's units are added in
    part order, as histograms summed part after part add them: the same sums to the last bit.
    """

    def __init__(self):
        self.sums = {}  # evaluator: {"base": {kind: units}, "flow": {person: {kind: units}}}

    def add(self, evaluators, tallies):
        """Add one part's tallies (one_more_tallies), whose evaluators are `evaluators`."""
        for name, tallied in zip(evaluators, tallies, strict=True):
            if tallied is None:
                continue
            sums = self.sums.setdefault(name, {"base": {}, "flow": {}})
            _add_rows(sums["base"], tallied["base"])
            for person, rows in tallied["flow"].items():
                _add_rows(sums["flow"].setdefault(person, {}), rows)

    def figures(self, evaluators, coders, categories):
        """one_more_figures of everything added; ``coders``: people per document, of the whole study."""
        levels = np.unique(coders)
        width = int(levels.max(initial=0)) + 2
        slot_of = {int(level): number * width for number, level in enumerate(levels.tolist())}

        def histogram(kinds):
            placed = np.zeros((categories, len(levels) * width))
            for (category, people, marking), units in kinds.items():
                placed[category, slot_of[people] + marking] = units
            return placed

        placed = []
        for name in evaluators:
            sums = self.sums.get(name)
            if sums is None:
                placed.append(None)
                continue
            flows = {person: histogram(kinds) for person, kinds in sums["flow"].items()}
            placed.append((histogram(sums["base"]), flows))
        return one_more_figures(placed, levels, width, categories)


def _add_rows(kinds, rows):
    for category, people, marking, units in rows:
        kinds[category, people, marking] = kinds.get((category, people, marking), 0.0) + units


def one_more_figures(placed, levels, width, categories):
    """Per evaluator, per category: people's token alpha and the alphas with the evaluator in a person's place.

    ``placed``: per evaluator, its summed tallies as histograms (the base, and {person: flow})
    over the slots of ``levels`` (people per document) x ``width`` (marking), or None when no
    document had units for it.
    """
    slot_coders, slot_marked = np.repeat(levels, width), np.tile(np.arange(width), len(levels))
    slots = len(levels) * width
    result = []
    for histograms in placed:
        if histograms is None:
            empty = dict.fromkeys(("people_alpha", "replaced_mean", "replaced_min", "replaced_max"))
            result.append(
                [_one_more_entry(empty, NO_ALPHA_DOCUMENT, NO_ALPHA_DOCUMENT, 0) for _ in range(categories)]
            )
            continue
        base, flows = histograms
        # The people in the order of their names, as one pass numbers them.
        flow = (
            np.stack([flows[person] for person in sorted(flows)])
            if flows
            else np.zeros((0, categories, slots))
        )
        change = -flow
        change[..., 1:] += flow[..., :-1]

        people_alphas, reasons = binary_alphas(base, slot_coders, slot_marked)
        alphas, _ = binary_alphas(base + change, slot_coders, slot_marked)
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


def _rows(histogram, levels):
    """[category, people, marking, units] of a histogram's kinds that hold units (category, level, marking)."""
    category, level, marking = np.nonzero(histogram)
    return [
        [int(c), int(levels[number]), int(m), float(units)]
        for c, number, m, units in zip(
            category, level, marking, histogram[category, level, marking], strict=True
        )
    ]


def _one_more_entry(figures, people_reason, replaced_reason, replacements):
    entry = {}
    put_value(entry, "people_alpha", figures["people_alpha"], people_reason)
    for name in ("replaced_mean", "replaced_min", "replaced_max"):
        put_value(entry, name, figures[name], replaced_reason)
    entry["replacements"] = replacements
    return entry


def binary_alphas(histograms, coders, marked):
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
