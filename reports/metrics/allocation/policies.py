"""The order in which `uniform`, `uncertain` (and, through `pair_by_pair_order`, `clusters`) buy a finished study's cells (package docstring)."""

import numpy as np

from .doubt import SETTLED, RunningSums, doubt_from_sums, most_doubtful_pair


def _cells(by_system):
    """(systems, items, scores matrix with NaN where not rated)."""
    systems = sorted(by_system)
    items = sorted({item for scores in by_system.values() for item in scores}, key=str)
    place = {item: n for n, item in enumerate(items)}
    scores = np.full((len(items), len(systems)), np.nan)
    for column, system in enumerate(systems):
        for item, score in by_system[system].items():
            scores[place[item], column] = score
    return systems, items, scores


def uniform_order(scores, rng):
    """Cells (item row, system column) item by item in a random order, every system of an item."""
    rows = rng.permutation(scores.shape[0])
    order = []
    for row in rows:
        columns = [int(c) for c in rng.permutation(scores.shape[1]) if not np.isnan(scores[row, c])]
        order.extend((int(row), c) for c in columns)
    return order


def uncertain_order(scores, rng, *, warmup=5, settled=SETTLED):
    """Cells in the order the `uncertain` policy buys them (package docstring)."""
    return pair_by_pair_order(
        scores,
        rng,
        lambda sums: most_doubtful_pair(doubt_from_sums(sums), rng, settled=settled),
        warmup=warmup,
    )


class BuyingOrder(list):
    """Cells (item row, system column) in the order a policy buys them, and `settled`: how many
    it had bought when no pair was left in doubt (where its `settled` stopping rule would have
    closed the study). Uniform and the oracle, which never settle by themselves, give a plain list."""

    settled = None


def pair_by_pair_order(scores, rng, choose, *, warmup=5):
    """BuyingOrder of a policy that, after `warmup` items rated for every system, rates the pair
    ``choose(sums)`` (sums: `pair_sums` of the cells bought so far, kept by RunningSums) on the
    next item in the random order that the two have not both been rated on, until `choose` gives
    None (settled; then the rest, item by item, as uniform does)."""
    items, systems = scores.shape
    planned = ~np.isnan(scores)
    rows = [int(r) for r in rng.permutation(items)]
    running = RunningSums(scores, planned)
    bought = running.bought
    order = BuyingOrder()

    def buy(row, column, *, counted=True):
        if planned[row, column] and not bought[row, column]:
            if counted:
                running.add(row, column)
            else:  # after the policy settled: its sums are not read again
                bought[row, column] = True
            order.append((row, column))

    for row in rows[:warmup]:
        for column in rng.permutation(systems):
            buy(row, int(column))
    searched = {}  # (a, b) -> where in `rows` the pair's search for an item goes on
    while (pair := choose(running.sums)) is not None:
        position = searched.get(pair, 0)
        while position < items and not any(planned[rows[position], c] and not bought[rows[position], c]
                                           for c in pair):  # fmt: skip
            position += 1
        searched[pair] = position
        if position == items:  # cannot happen: a pair with nothing left to buy is settled
            break
        for column in pair:
            buy(rows[position], column)
    order.settled = len(order)
    for row in rows:  # settled: the rest in the uniform order, for a replay to reach 100 %
        for column in range(systems):
            buy(row, column, counted=False)
    return order
