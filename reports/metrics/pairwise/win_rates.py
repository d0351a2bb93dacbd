"""Win rates of systems, overall and head to head.

Convention (also Bradley-Terry's, see bradley_terry.py): a tie counts as
half a win for each of the two systems, so

    win_rate = (wins + ties / 2) / comparisons

and a system that won, tied and lost one comparison each has 0.5. Every
comparison counts once for each of its two systems.
"""

import numpy as np

from reports.metrics.nullable import put_value

NO_COMPARISONS = "no comparisons"


def win_rates(comparisons):
    """Wins, losses, ties, comparisons and win rate of every system, and head to head.

    ``comparisons`` is a :class:`Comparisons` (one row per annotator and
    pair). Returns ``{"systems": {system: entry}, "head_to_head": {system:
    {other: entry}}}``, where a head-to-head entry counts only the
    comparisons of ``system`` against ``other`` from ``system``'s side. A
    win rate without comparisons is null with a reason.
    """
    beaten, tied = head_to_head_counts(comparisons)
    systems = {
        system: _entry(beaten[number].sum(), beaten[:, number].sum(), tied[number].sum())
        for number, system in enumerate(comparisons.systems)
    }
    head_to_head = {
        system: {
            other: _entry(beaten[number, rival], beaten[rival, number], tied[number, rival])
            for rival, other in enumerate(comparisons.systems)
            if rival != number
        }
        for number, system in enumerate(comparisons.systems)
    }
    return {"systems": systems, "head_to_head": head_to_head}


def head_to_head_counts(comparisons):
    """Systems x systems counts: ``beaten[i, j]`` wins of i over j, ``tied[i, j]`` ties of i and j."""
    size = len(comparisons.systems)
    first, second = comparisons.first_system, comparisons.second_system
    score = comparisons.first_score
    winner = np.where(score == 1.0, first, second)
    loser = np.where(score == 1.0, second, first)
    decisive = score != 0.5
    beaten = np.bincount(winner[decisive] * size + loser[decisive], minlength=size * size).reshape(size, size)
    tied = np.bincount(first[~decisive] * size + second[~decisive], minlength=size * size).reshape(size, size)
    return beaten, tied + tied.T


def _entry(wins, losses, ties):
    wins, losses, ties = int(wins), int(losses), int(ties)
    comparisons = wins + losses + ties
    entry = {"wins": wins, "losses": losses, "ties": ties, "comparisons": comparisons}
    return put_value(
        entry, "win_rate", (wins + ties / 2) / comparisons if comparisons else None, NO_COMPARISONS
    )
