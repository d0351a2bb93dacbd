"""Plain inputs of the pairwise-comparison metrics, and the judged pairs as arrays.

A worker sees two outputs generated from the same input by two systems,
``left`` and ``right``, and picks one of them or (when the study allows it)
a tie, optionally with a strength (1 = slightly, 2 = clearly, ...). As in
the rating studies, a block is a set of outputs judged by the same
annotators, and blocks do not share outputs.

A pair is the unordered pair of its documents: the same two outputs shown
with the sides swapped are the same pair, and a choice is read as the
document that won (or a tie), never as the side.
"""

from dataclasses import dataclass, field

import numpy as np

from reports.metrics.ratings.data import MAIN, ItemTable

LEFT = "left"
RIGHT = "right"
TIE = "tie"
CHOICES = (LEFT, RIGHT, TIE)


@dataclass(frozen=True)
class Output:
    """One system's output for one input, named by its ``document`` id."""

    document: str
    input_id: str
    system: str
    block: str


@dataclass(frozen=True)
class Choice:
    """One annotator's choice between the ``left`` and ``right`` documents.

    ``choice`` is "left", "right" or "tie"; ``strength`` is how clearly the
    chosen side won, on 1..strength_max, or None when it was not asked (a
    tie has none). ``kind`` is "main" or "retest".
    """

    annotator: str
    left: str
    right: str
    choice: str
    strength: int | None
    block: str
    kind: str = MAIN


@dataclass
class PairwiseStudy:
    """A pairwise-comparison study.

    Split-half reliability uses every split of the blocks when there are at
    most ``splits`` of them, else 20,000 random ones drawn with ``seed``;
    the Bradley-Terry intervals resample inputs ``bootstrap_draws`` times
    with the same ``seed``.
    """

    outputs: list[Output]
    choices: list[Choice] = field(default_factory=list)
    allow_ties: bool = True
    strength_max: int | None = None
    seed: int = 0
    splits: int = 1_000_000
    bootstrap_draws: int = 1000


class OutputTable(ItemTable):
    """The study's outputs numbered in order, with their system, block and input numbers.

    Systems, blocks and inputs are numbered in sorted order of their names.
    """

    def __init__(self, outputs):
        super().__init__(outputs)
        self.inputs = sorted({output.input_id for output in outputs})
        input_numbers = {input_id: number for number, input_id in enumerate(self.inputs)}
        self.input_of = np.array([input_numbers[output.input_id] for output in outputs], dtype=np.int64)


class Comparisons:
    """The judged pairs of one kind of choice, one row per (annotator, pair), as parallel arrays.

    An annotator who judged the same pair twice with the same kind counts
    with the last choice. In each row ``first`` is the pair's document with
    the lower output number and ``second`` the other one, whatever side
    they were shown on. ``first_score`` is what the first document scored:
    1 when it won, 0.5 for a tie, 0 when it lost (the second document
    scores 1 - first_score). ``strength`` is NaN where none was given.
    Choices of other kinds are neither used nor checked.
    """

    def __init__(self, study, kind=MAIN):
        self.table = table = OutputTable(study.outputs)
        self.kind = kind
        latest = {}
        for choice in study.choices:
            if choice.kind == kind:
                first, second, first_score = _read(choice, table, study)
                latest[(choice.annotator, first, second)] = (first_score, choice.strength)
        self.annotators = sorted({annotator for annotator, _, _ in latest})
        annotator_numbers = {name: number for number, name in enumerate(self.annotators)}
        keys = list(latest)
        self.annotator = np.array([annotator_numbers[key[0]] for key in keys], dtype=np.int64)
        self.first = np.array([key[1] for key in keys], dtype=np.int64)
        self.second = np.array([key[2] for key in keys], dtype=np.int64)
        self.first_score = np.array([latest[key][0] for key in keys], dtype=np.float64)
        self.strength = np.array(
            [np.nan if latest[key][1] is None else latest[key][1] for key in keys], dtype=np.float64
        )

    def __len__(self):
        return len(self.first)

    @property
    def systems(self):
        return self.table.systems

    @property
    def first_system(self):
        return self.table.system_of[self.first]

    @property
    def second_system(self):
        return self.table.system_of[self.second]

    @property
    def input(self):
        return self.table.input_of[self.first]

    @property
    def block(self):
        return self.table.block_of[self.first]

    @property
    def pair(self):
        """A number per row naming the unordered pair of documents."""
        return self.first * len(self.table.number) + self.second

    def totals(self, groups, size):
        """Won shares and comparisons per group and system, as two ``size`` x systems arrays.

        ``groups`` gives each row's group number (its input, its block, or 0
        for the whole study). Each comparison adds to both of its systems:
        ``sums`` gets 1 for a win, 0.5 for a tie and 0 for a loss (wins +
        ties / 2) and ``counts`` gets 1, so sums / counts is the win rate.
        """
        systems = len(self.systems)
        groups = np.asarray(groups, dtype=np.int64) * systems
        cells = np.concatenate([groups + self.first_system, groups + self.second_system])
        won = np.concatenate([self.first_score, 1.0 - self.first_score])
        sums = np.bincount(cells, weights=won, minlength=size * systems).reshape(size, systems)
        counts = np.bincount(cells, minlength=size * systems).reshape(size, systems)
        return sums, counts


def _read(choice, table, study):
    """``(first, second, first_score)`` of a checked choice (see :class:`Comparisons`)."""
    label = f"choice of {choice.annotator!r} between {choice.left!r} and {choice.right!r}"
    if choice.left == choice.right:
        raise ValueError(f"{label}: left and right are the same document")
    left, right = table.find(choice.left, choice.block), table.find(choice.right, choice.block)
    if table.input_of[left] != table.input_of[right]:
        raise ValueError(f"{label}: the documents come from different inputs")
    if table.system_of[left] == table.system_of[right]:
        raise ValueError(f"{label}: both documents come from system {table.systems[table.system_of[left]]!r}")
    if choice.choice not in CHOICES:
        raise ValueError(f"{label}: choice must be one of {', '.join(CHOICES)}, not {choice.choice!r}")
    if choice.choice == TIE and not study.allow_ties:
        raise ValueError(f"{label}: a tie, but the study allows none")
    if choice.strength is not None:
        if choice.choice == TIE:
            raise ValueError(f"{label}: a tie has no strength")
        if study.strength_max is None:
            raise ValueError(f"{label}: a strength, but the study asks for none")
        if not 1 <= choice.strength <= study.strength_max:
            raise ValueError(f"{label}: strength {choice.strength} is outside 1..{study.strength_max}")
    left_score = {LEFT: 1.0, RIGHT: 0.0, TIE: 0.5}[choice.choice]
    if left < right:
        return left, right, left_score
    return right, left, 1.0 - left_score
