"""When a live allocating study stops by itself, and how close it is (config.allocation's
stop_when: budget, settled, unchanged, separated; docs/adaptive-allocation.md, "Stopping rules"
and "What the console shows").

After each submitted main rating, under the study's lock, allocation_after_submit notes the
ranking's clusters and closes the study when one of its rules holds (study_stop); the join
refuses a place that could only go over the budget (budget_refusal); the Run tab shows
allocation_status. The grid of cells and the doubt are annotations/services/allocation.py's.
"""

from django.utils import timezone

from annotations.models import OPEN_STATUSES, AllocationRecord, Assignment
from annotations.signals import study_stopped
from reports.metrics.ranking import adjacent_separation, rank_systems
from studies.allocation import (
    BUDGET,
    CLUSTERS,
    RANKING_RULES,
    SEPARATED,
    SETTLED,
    UNCHANGED,
    allocation_settings,
)
from studies.models import Study

from .allocation import (
    cells_doubt,
    cells_sums,
    doubtful_pairs,
    is_block_study,
    main_work,
    ranking_settings,
    study_cells,
)
from .blocks import study_blocks


def budget_refusal(study):
    """A message when the study's budget of ratings is spent or held by open work, else None:
    a worker is not given a place that could only go over it."""
    settings = allocation_settings(study)
    if settings.budget is None or BUDGET not in settings.stop_when:
        return None
    taken = main_work(study).filter(status__in=(*OPEN_STATUSES, Assignment.Status.SUBMITTED)).count()
    if taken >= settings.budget:
        return "The study has all the ratings it planned; the last ones are being done. Thank you!"
    return None


def current_ranking(study, cells):
    """The ranking of the scored cells by the study's `ranking` test (rank_systems); None until
    every system has two scored items (before that a ranking says nothing)."""
    if len(cells.systems) < 2 or any(len(cells.by_system.get(s, {})) < 2 for s in cells.systems):
        return None
    return rank_systems(cells.by_system, **ranking_settings(study))


def ranking_clusters(ranking):
    """The ranking's clusters, best first, as sorted lists of systems."""
    groups = {}
    for row in ranking["systems"]:
        groups.setdefault(row["cluster"], []).append(row["system"])
    return [sorted(groups[number]) for number in sorted(groups)]


def _record(study):
    record, _ = AllocationRecord.objects.get_or_create(study=study)
    return record


def stop_due(study, cells, record):
    """(rule, note) of the first stopping rule of the study that holds, or None."""
    settings = allocation_settings(study)
    if BUDGET in settings.stop_when and settings.budget is not None and cells.ratings >= settings.budget:
        return BUDGET, f"the budget of {settings.budget} ratings is spent"
    if (
        SETTLED in settings.stop_when
        and cells.ratings
        and len(cells.systems) >= 2
        and not doubtful_pairs(cells_doubt(study, cells), settings.settled)
    ):
        settled = "order and significance are" if settings.policy == CLUSTERS else "order is"
        return SETTLED, f"every pair's {settled} settled (doubt at most {settings.settled:g})"
    state = record.clusters or {}
    current = state.get("ratings") == cells.ratings  # noted after this very rating
    if (
        UNCHANGED in settings.stop_when
        and current
        and cells.ratings - state["since"] >= settings.unchanged_for
    ):
        return UNCHANGED, f"the clusters have not changed over the last {settings.unchanged_for} ratings"
    if (
        SEPARATED in settings.stop_when
        and current
        and state.get("adjacent")
        and (state["separated"] == state["adjacent"])
    ):
        alpha = ranking_settings(study)["alpha"]
        return SEPARATED, (
            f"every adjacent pair of the ranking is significantly different ({state['adjacent']} pairs, "
            f"alpha {alpha:g})"
        )
    return None


def allocation_after_submit(*, study):
    """After a main rating is submitted (in the submit's transaction, the study locked): note the
    clusters and stop the study when one of its rules holds. Returns the rule, or None."""
    settings = allocation_settings(study)
    if not (settings.adaptive or settings.stops) or study.status != Study.Status.OPEN:
        return None
    cells = study_cells(study)
    record = _record(study)
    if settings.adaptive:
        # What the next joins need of the ratings, from the grid this submit reads anyway.
        record.sums = cells_sums(cells)
        record.save(update_fields=["sums"])
    wants_ranking = settings.adaptive or any(rule in settings.stop_when for rule in RANKING_RULES)
    ranking = current_ranking(study, cells) if wants_ranking else None
    if ranking is not None:
        # The clusters now and the rating since which they have been these (a few bytes, whatever
        # K), and how many adjacent pairs the ranking's test separates now.
        clusters = ranking_clusters(ranking)
        state = record.clusters or {}
        if state.get("clusters") != clusters:
            state = {"clusters": clusters, "since": cells.ratings}
        separated, adjacent = adjacent_separation(ranking)
        record.clusters = {**state, "ratings": cells.ratings, "separated": separated, "adjacent": adjacent}
        record.save(update_fields=["clusters"])
    due = stop_due(study, cells, record)
    if due is not None:
        study_stop(study=study, rule=due[0], note=f"Stopped after {cells.ratings} ratings: {due[1]}.")
    return due and due[0]


def study_stop(*, study, rule, note, now=None):
    """Close the study by its stopping rule: the join link refuses, places given but not started
    are released (their documents are no longer anyone's), and the apps above the core are told
    (crowd/: the listing is stopped on its platform). Work under way may still be submitted."""
    Study.objects.filter(pk=study.pk).update(status=Study.Status.CLOSED)
    study.status = Study.Status.CLOSED
    Assignment.objects.filter(
        study=study, joined=True, status=Assignment.Status.ASSIGNED, started_at__isnull=True
    ).exclude(kind=Assignment.Kind.QUALIFICATION).update(status=Assignment.Status.RELEASED)
    record = _record(study)
    record.stopped_rule, record.stopped_at, record.stopped_note = rule, now or timezone.now(), note
    record.save(update_fields=["stopped_rule", "stopped_at", "stopped_note"])
    study_stopped.send(sender=Study, study=study, rule=rule, note=note)


def planned_places(study, cells):
    """Main documents, or in a block study blocks: what a rating is a rating of."""
    return len(study_blocks(study)) if is_block_study(study) else int(cells.planned.sum())


def allocation_status(study):
    """What the console's Run tab shows of an allocating study, or None for one without
    config.allocation: ratings spent of the plan and budget, pairs settled, the pair most in
    doubt, the clusters now, and the rule that stopped it."""
    if not isinstance(study.config, dict) or "allocation" not in study.config:
        return None
    settings = allocation_settings(study)
    cells = study_cells(study)
    record = AllocationRecord.objects.filter(study=study).first()
    doubt = cells_doubt(study, cells)
    count = len(cells.systems)
    pairs = [(doubt[a, b], a, b) for a in range(count) for b in range(a + 1, count)]
    most = max(pairs, default=None, key=lambda p: p[0])
    return {
        "settings": settings,
        "ratings": cells.ratings,
        "unit": "blocks" if is_block_study(study) else "ratings",
        "planned": planned_places(study, cells) * study.annotators_per_document,
        "open_places": cells.open_places,
        "pairs": len(pairs),
        "pairs_settled": sum(1 for value, _a, _b in pairs if value <= settings.settled),
        "most_doubtful": (
            (cells.systems[most[1]], cells.systems[most[2]], float(most[0]))
            if most is not None and most[0] > settings.settled
            else None
        ),
        "clusters": record.clusters.get("clusters") if record and record.clusters else None,
        "separated": (
            (record.clusters["separated"], record.clusters["adjacent"])
            if record and record.clusters and "adjacent" in record.clusters
            else None
        ),
        "alpha": ranking_settings(study)["alpha"],
        "test": ranking_settings(study)["test"],
        "stopped_rule": record.stopped_rule if record else "",
        "stopped_at": record.stopped_at if record else None,
        "stopped_note": record.stopped_note if record else "",
    }
