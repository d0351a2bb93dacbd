"""Plain inputs of the rating-study metrics (Likert and Best-Worst Scaling).

The report task builds them from the database. A unit is one output, an
(input document, system) pair, named here by its ``document`` id. A block
is a set of documents annotated together by the same annotators; blocks do
not share documents.
"""

from dataclasses import dataclass, field

import numpy as np

LIKERT = "likert"
BWS = "bws"
MAIN = "main"
RETEST = "retest"


@dataclass(frozen=True)
class Item:
    """One output to judge: ``input_id`` is the input it was generated from."""

    document: str
    input_id: str
    system: str
    block: str


@dataclass(frozen=True)
class Rating:
    """A Likert score given by one annotator to one output; ``kind`` is "main" or "retest"."""

    annotator: str
    document: str
    score: float
    block: str
    kind: str = MAIN


@dataclass(frozen=True)
class Judgment:
    """One best-worst choice over a tuple of outputs; ``kind`` is "main" or "retest".

    ``value`` is the gap between best and worst rated on 1..value_max (the
    "Value" variant), None when it was not asked.
    """

    annotator: str
    documents: tuple[str, ...]
    best: str
    worst: str
    value: int | None
    block: str
    kind: str = MAIN


@dataclass
class RatingStudy:
    """A Likert (``ratings``) or BWS (``judgments``) study.

    Split-half reliability uses every split of the blocks when there are at
    most ``splits`` of them, else 20,000 random ones drawn with ``seed``.
    """

    protocol: str
    items: list[Item]
    ratings: list[Rating] = field(default_factory=list)
    judgments: list[Judgment] = field(default_factory=list)
    scale_min: float | None = None
    scale_max: float | None = None
    value_max: int | None = None
    seed: int = 0
    splits: int = 1_000_000


class ItemTable:
    """The study's items numbered in order, with the number of each one's system and block.

    Systems and blocks are numbered in sorted order of their names.
    """

    def __init__(self, items):
        self.systems = sorted({item.system for item in items})
        self.blocks = sorted({item.block for item in items})
        system_numbers = {system: number for number, system in enumerate(self.systems)}
        block_numbers = {block: number for number, block in enumerate(self.blocks)}
        self.number = {}
        for number, item in enumerate(items):
            if item.document in self.number:
                raise ValueError(f"{item.document}: two items with the same document")
            self.number[item.document] = number
        self.system_of = np.array([system_numbers[item.system] for item in items], dtype=np.int64)
        self.block_of = np.array([block_numbers[item.block] for item in items], dtype=np.int64)

    def find(self, document, block):
        """The number of ``document``, checking that it belongs to ``block``."""
        number = self.number.get(document)
        if number is None:
            raise ValueError(f"{document}: not an item of the study")
        own_block = self.blocks[self.block_of[number]]
        if own_block != block:
            raise ValueError(f"{document}: belongs to block {own_block!r}, judged in block {block!r}")
        return number
