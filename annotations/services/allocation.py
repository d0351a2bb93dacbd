"""A live study that spends its ratings where the ranking is uncertain (config.allocation:
studies/allocation.py; docs/adaptive-allocation.md). Its stopping rules and the Run tab's
figures are annotations/services/stopping.py.

The study is a grid of cells: rows are items (Document.input_id: the source the systems'
outputs translate), columns are systems (Document.system), one main document per cell.
Planned: every main document. Bought: documents with a submitted main assignment (scored,
with the mean of their ratings) or held by an open one (bought but not scored yet: counted as
bought when choosing, so two workers joining at once are not sent to the same gap). The maths
is reports/metrics/allocation.py (order_doubt, next_pair) and reports/metrics/ranking.py.

Every function here runs under the study's row lock (the join's, or the one a submit takes
when the study has stopping rules), so the counts it reads cannot move under it.
"""

from dataclasses import dataclass, field

import numpy as np
from django.db.models import Count

from annotations.models import OPEN_STATUSES, AllocationRecord, Assignment
from reports.metrics.allocation import cluster_doubt_from_sums, doubt_from_sums, pair_sums
from studies import protocols
from studies.allocation import CLUSTERS, allocation_settings
from studies.models import Document

RANKING_DEFAULTS = {"test": "permutation", "resamples": 1000, "alpha": 0.05}


@dataclass
class Cells:
    """The study's grid, read in three queries (documents, holders, the protocol's scores)."""

    systems: list
    items: list
    cell_of: dict  # document id -> (row, column)
    planned: np.ndarray
    scored: np.ndarray
    held: np.ndarray  # open assignments: bought, no score yet
    scores: np.ndarray
    ratings: int = 0  # submitted main assignments on main documents
    open_places: int = 0
    by_system: dict = field(default_factory=dict)  # {system: {item: score}} of the scored cells
    judged_together: bool = False  # Protocol.allocation_judged_together: items are inputs in a block
    # The share of each scored cell's planned ratings (annotators per document or block) submitted:
    # a cell has a score from its first rating, and its mean moves until its last (pair_sums).
    done: np.ndarray | None = None

    @property
    def bought(self):
        return self.scored | self.held


def cell_item(pk, input_id, block=None):
    """A document's item (row of the grid): its input_id; a document without one is an item alone.
    With `block` (scores judged together: Protocol.allocation_judged_together), the input within
    that block."""
    item = input_id or f"#{pk}"
    return f"{block}/{item}" if block is not None else item


def is_block_study(study):
    return protocols.of(study).works_on == "block"


def main_work(study):
    """The study's main assignments that count as ratings: one per main document, or, in a block
    study (Likert, BWS, pairwise), one per worker and block."""
    main = Assignment.objects.filter(study=study, kind=Assignment.Kind.MAIN)
    if is_block_study(study):
        return main.filter(document__isnull=True)
    return main.filter(document__kind=Document.Kind.MAIN)


def study_cells(study):
    together = protocols.of(study).allocation_judged_together
    documents = [
        (pk, cell_item(pk, item, block if together else None), system, block)
        for pk, item, system, block in study.documents.filter(kind=Document.Kind.MAIN)
        .with_text()
        .values_list("id", "input_id", "system", "block")
    ]
    systems = sorted({system for _id, _item, system, _block in documents})
    items = sorted({item for _pk, item, _system, _block in documents})
    column = {system: n for n, system in enumerate(systems)}
    row = {item: n for n, item in enumerate(items)}
    cell_of = {pk: (row[item], column[system]) for pk, item, system, _block in documents}
    in_block = {}
    for pk, _item, _system, block in documents:
        if block:
            in_block.setdefault(block, []).append(cell_of[pk])
    shape = (len(items), len(systems))
    planned, scored, held = np.zeros(shape, bool), np.zeros(shape, bool), np.zeros(shape, bool)
    scores = np.full(shape, np.nan)
    for cell in cell_of.values():
        planned[cell] = True
    counts = (
        main_work(study)
        .filter(status__in=(*OPEN_STATUSES, Assignment.Status.SUBMITTED))
        .values_list("document_id", "block", "status")
        .annotate(n=Count("pk"))
    )
    ratings = open_places = 0
    submitted = np.zeros(shape)
    for document_id, block, status, n in counts:
        # A place on a block holds every output of the block.
        cells = [cell_of[document_id]] if document_id in cell_of else in_block.get(block, ())
        if status == Assignment.Status.SUBMITTED:
            ratings += n
            for cell in cells:
                submitted[cell] += n
        else:
            open_places += n
            for cell in cells:
                held[cell] = True
    by_system = {}
    for document_id, score in protocols.of(study).allocation_scores(study).items():
        if document_id in cell_of and score is not None:
            r, c = cell_of[document_id]
            scored[r, c], scores[r, c] = True, score
            by_system.setdefault(systems[c], {})[items[r]] = score
    held &= ~scored
    # A scored cell counts at least one rating (its score may come from a rating whose assignment
    # is not counted above, e.g. one imported).
    per_cell = max(study.annotators_per_document, 1)
    done = np.where(scored, np.clip(submitted / per_cell, 1 / per_cell, 1.0), 0.0)
    return Cells(
        systems,
        items,
        cell_of,
        planned,
        scored,
        held,
        scores,
        ratings,
        open_places,
        by_system,
        together,
        done,
    )


def cells_sums(cells):
    """The grid's pair sums (reports.metrics.allocation.pair_sums) as JSON for AllocationRecord.sums,
    with the systems and the number of ratings they were computed from."""
    sums = pair_sums(np.where(cells.scored, cells.scores, 0.0), cells.scored, cells.planned, cells.done)
    return {
        "systems": cells.systems, "ratings": cells.ratings, "judged_together": cells.judged_together,
        **{k: v.tolist() for k, v in sums.items()},
    }  # fmt: skip


def ranking_settings(study):
    """The study's own `ranking` option (the report's test, resamples and significance), or the
    defaults: what the stopping rules test and what `clusters` calls significant."""
    value = study.config.get("ranking") if isinstance(study.config, dict) else None
    return {**RANKING_DEFAULTS, **(value if isinstance(value, dict) else {})}


def doubt_of(study, sums):
    """Every pair's doubt under the study's policy, from pair sums: its order's (`uncertain`), or
    also its significance decision's where a cluster boundary may fall (`clusters`)."""
    if allocation_settings(study).policy == CLUSTERS:
        return cluster_doubt_from_sums(sums, alpha=ranking_settings(study)["alpha"])
    return doubt_from_sums(sums)


def cells_doubt(study, cells):
    """doubt_of every pair of the grid's systems, from its scored cells."""
    return doubt_of(study, cells_sums(cells))


def doubtful_pairs(doubt, settled):
    """Pairs of system columns whose doubt is above `settled`, most in doubt first (ties by name)."""
    count = len(doubt)
    pairs = [
        (float(doubt[a, b]), a, b) for a in range(count) for b in range(a + 1, count) if doubt[a, b] > settled
    ]
    return [(a, b, value) for value, a, b in sorted(pairs, key=lambda p: (-p[0], p[1], p[2]))]


def pair_doubt(study, systems, ratings):
    """doubt_of every pair of `systems` (the study's, sorted), from the pair sums the latest
    submit stored (AllocationRecord.sums): a join reads a few systems-by-systems matrices, not the
    study's scores. Sums stored after another number of ratings than `ratings` (none stored yet,
    ratings imported in bulk, submits while the study was uniform) are not used: the grid is
    read, as a submit does."""
    sums = AllocationRecord.objects.filter(study=study).values_list("sums", flat=True).first()
    if not sums or sums.get("systems") != systems or sums.get("ratings") != ratings:
        sums = cells_sums(study_cells(study))
    return doubt_of(study, sums)


def choose_document(study, free, active, layout, ratings):
    """The document of `free` (the ids this worker may take, in fill order) that the adaptive
    policy (`uncertain` or `clusters`) gives next, or None to keep the fill order (the ranking is settled, or none of the
    doubtful pairs has a document this worker may take).

    For the pair most in doubt that has a free document: a cell already under way (a design
    with several annotators per document fills its cells first), then a cell whose item the
    pair's other system was already rated on or is held on (a paired comparison), then any.
    `active` counts each document's annotators (open or submitted); `layout` maps every main
    document to its (item, system); `ratings` counts the submitted main assignments. The ratings
    enter through pair_doubt.
    """
    settings = allocation_settings(study)
    systems = sorted({system for _item, system in layout.values()})
    column = {system: n for n, system in enumerate(systems)}
    document_of = {cell: pk for pk, cell in layout.items()}
    place = {pk: n for n, pk in enumerate(free)}
    for a, b, _doubt in doubtful_pairs(pair_doubt(study, systems, ratings), settings.settled):
        candidates = [pk for pk in free if pk in layout and column[layout[pk][1]] in (a, b)]
        if candidates:

            def preference(pk, a=a, b=b):
                item, system = layout[pk]
                partner = document_of.get((item, systems[b] if column[system] == a else systems[a]))
                return (0 if active[pk] else 1 if partner is not None and active[partner] else 2, place[pk])

            return min(candidates, key=preference)
    return None
