"""A live DA study that spends its ratings where the ranking is uncertain and stops by itself
(config.allocation, annotations/services/allocation.py, docs/adaptive-allocation.md)."""

import contextlib
from collections import Counter

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from annotations.models import AllocationRecord, Assignment
from annotations.services import JoinRefused, assignment_join, assignment_submit
from annotations.services.stopping import allocation_status
from protocols.translation.models import SegmentScore
from studies.config import config_problems
from studies.models import Document, Segment, Study
from tests.translation.studies import make_translation_study

pytestmark = pytest.mark.django_db

# Three systems: sysA clearly best, sysB and sysC close to each other.
QUALITY = {"sysA": 90.0, "sysB": 50.0, "sysC": 48.0}
NOISE_OFFSET = {"sysA": 0, "sysB": 3, "sysC": 7}


def da_study(*, items=12, allocation=None, per_document=1):
    config = {"allocation": allocation or {"policy": "uncertain"}}
    study = make_translation_study(
        "da", systems=tuple(QUALITY), documents=items, config=config,
        status=Study.Status.OPEN, annotators_per_document=per_document,
    )  # fmt: skip
    return study


def rate(assignment, score=None):
    """Score every segment of the assignment's document: its system's quality and some noise."""
    document = assignment.document
    item = int(document.input_id.split("-")[1])
    noise = (item * 5 + NOISE_OFFSET[document.system]) % 11 - 5  # -5 to 5, not the same for two systems
    value = QUALITY[document.system] + noise if score is None else score
    segments = list(Segment.objects.filter(document=document))
    for segment in segments:
        SegmentScore.objects.create(assignment=assignment, segment=segment, score=value)
    Assignment.objects.filter(pk=assignment.pk).update(
        current_segment=len(segments) - 1, started_at=timezone.now(), status=Assignment.Status.IN_PROGRESS
    )
    assignment.refresh_from_db()
    return assignment_submit(token=assignment.token)


def join_and_rate(study, worker, score=None):
    assignment = assignment_join(study=study, platform="prolific", external_id=worker)
    return rate(assignment, score)


def warm_up(study, items):
    """Every system rated on the first `items` items, by one worker each."""
    for document in Document.objects.filter(study=study, input_id__in=[f"src-{i}" for i in range(items)]):
        worker = f"warm-{document.pk}"
        rate(Assignment.objects.create(study=study, document=document, worker=_worker(worker), joined=True))


def _worker(external_id):
    from accounts.models import Worker

    return Worker.objects.get_or_create(platform="prolific", external_id=external_id)[0]


def test_the_allocation_option_is_checked_and_mqm_does_not_read_it():
    assert (
        config_problems({"allocation": {"policy": "uncertain", "stop_when": ["settled"]}}, protocol="da")
        == []
    )
    problems = [
        str(p)
        for p in config_problems(
            {"allocation": {"policy": "greedy", "settled": 2, "stop_when": ["budget", "soon"], "colour": 1}},
            protocol="esa",
        )
    ]
    assert "config.allocation.policy: must be one of uniform, uncertain, clusters" in problems
    assert "config.allocation.settled: must be a number from 0.0001 to 0.25" in problems
    assert "config.allocation.stop_when: must be a list of settled, unchanged, separated, budget" in problems
    assert any("unknown option 'colour'" in p for p in problems)
    budgetless = config_problems({"allocation": {"stop_when": ["budget"]}}, protocol="da")
    assert [str(p) for p in budgetless] == [
        "config.allocation.budget: is needed to stop at the budget: the number of ratings"
    ]
    assert [str(p) for p in config_problems({"allocation": {}}, protocol="mqm")] == [
        "config.allocation: is for likert, bws, pairwise, esa and da studies, not mqm"
    ]


def test_the_close_pair_gets_the_next_documents_paired_on_shared_items():
    study = da_study()
    # The bundle lists each system's translations together: the fill order alone would not pair them.
    for position, document in enumerate(Document.objects.filter(study=study).order_by("system", "position")):
        Document.objects.filter(pk=document.pk).update(position=position)
    warm_up(study, 3)
    given = [assignment_join(study=study, platform="prolific", external_id=f"w{n}") for n in range(6)]
    systems = Counter(a.document.system for a in given)
    assert systems["sysA"] == 0 and systems["sysB"] == systems["sysC"] == 3
    # Held places count as bought: the second worker completes the pair the first one opened.
    by_item = Counter(a.document.input_id for a in given)
    assert set(by_item.values()) == {2}


def test_a_join_reads_the_pair_sums_the_latest_submit_stored_not_the_studys_scores():
    study = da_study()
    warm_up(study, 3)
    sums = AllocationRecord.objects.get(study=study).sums
    assert sums["systems"] == ["sysA", "sysB", "sysC"] and sums["shared"][1][2] == 3
    with CaptureQueriesContext(connection) as queries:
        given = assignment_join(study=study, platform="prolific", external_id="w0")
    assert given.document.system in ("sysB", "sysC")  # the close pair, as from the grid
    assert not [q for q in queries.captured_queries if SegmentScore._meta.db_table in q["sql"]]


def test_sums_stored_before_other_ratings_arrived_are_not_trusted():
    study = da_study()
    warm_up(study, 3)
    # Two more items rated without the submit path (an import, or while the study was uniform):
    # the stored sums know nine ratings, the study has fifteen.
    study.config = {"allocation": {"policy": "uniform"}}
    study.save(update_fields=["config"])
    for document in Document.objects.filter(study=study, input_id__in=["src-3", "src-4"]):
        rate(
            Assignment.objects.create(
                study=study, document=document, worker=_worker(f"u{document.pk}"), joined=True
            )
        )
    study.config = {"allocation": {"policy": "uncertain"}}
    study.save(update_fields=["config"])
    assert AllocationRecord.objects.get(study=study).sums["ratings"] == 9
    with CaptureQueriesContext(connection) as queries:
        assignment_join(study=study, platform="prolific", external_id="w0")
    assert [q for q in queries.captured_queries if SegmentScore._meta.db_table in q["sql"]]


def test_uniform_is_todays_fill_order():
    study = da_study(allocation={"policy": "uniform"})
    warm_up(study, 3)
    given = [assignment_join(study=study, platform="prolific", external_id=f"w{n}") for n in range(3)]
    assert [a.document.external_id for a in given] == ["src-3-sysA", "src-3-sysB", "src-3-sysC"]


def test_a_worker_never_gets_a_document_twice_and_the_quota_holds():
    study = da_study(items=4, per_document=2)
    warm_up(study, 2)
    for _round in range(12):
        for worker in ("w1", "w2", "w3"):
            with contextlib.suppress(JoinRefused):  # this worker has no document left
                join_and_rate(study, worker)
    main = Assignment.objects.filter(study=study).exclude(status=Assignment.Status.RELEASED)
    pairs = Counter(main.values_list("worker_id", "document_id"))
    assert max(pairs.values()) == 1
    per_document = Counter(main.values_list("document_id", flat=True))
    assert max(per_document.values()) <= 2


def join_until_refused(study, workers=40):
    for n in range(workers):
        try:
            join_and_rate(study, f"w{n}")
        except JoinRefused as refused:
            return refused
    raise AssertionError("the study never stopped")


def test_the_budget_stops_the_study_and_no_place_goes_over_it():
    study = da_study(allocation={"policy": "uncertain", "stop_when": ["budget"], "budget": 4})
    held = assignment_join(study=study, platform="prolific", external_id="held")
    for n in range(3):
        join_and_rate(study, f"w{n}")
    with pytest.raises(JoinRefused) as refused:  # three submitted and one held: the budget is taken
        assignment_join(study=study, platform="prolific", external_id="late")
    assert refused.value.reason == "full"
    rate(held)
    study.refresh_from_db()
    record = AllocationRecord.objects.get(study=study)
    assert study.status == Study.Status.CLOSED and record.stopped_rule == "budget"
    assert record.stopped_note == "Stopped after 4 ratings: the budget of 4 ratings is spent."


def test_settled_stops_the_study_releases_places_not_started_and_the_join_link_says_it_finished():
    study = da_study(items=6, allocation={"policy": "uncertain", "stop_when": ["settled"]})
    idle = assignment_join(study=study, platform="prolific", external_id="idle")
    refused = join_until_refused(study)
    study.refresh_from_db()
    record = AllocationRecord.objects.get(study=study)
    assert study.status == Study.Status.CLOSED and record.stopped_rule == "settled"
    assert refused.reason == "closed" and "finished" in str(refused)
    idle.refresh_from_db()
    assert idle.status == Assignment.Status.RELEASED
    status = allocation_status(study)
    assert status["pairs_settled"] == status["pairs"] == 3 and status["most_doubtful"] is None
    assert status["ratings"] < status["planned"] == 18  # it stopped before buying every cell


def test_unchanged_stops_when_the_clusters_hold_for_k_ratings():
    study = da_study(
        items=12, allocation={"policy": "uncertain", "stop_when": ["unchanged"], "unchanged_for": 3}
    )
    join_until_refused(study)
    record = AllocationRecord.objects.get(study=study)
    assert record.stopped_rule == "unchanged"
    state = record.clusters
    assert state["ratings"] - state["since"] == 3 and state["ratings"] == allocation_status(study)["ratings"]
    assert allocation_status(study)["clusters"] == state["clusters"]


def join_and_rate_as(study, quality, workers=60):
    """Join and rate until the join link refuses, each system scored at `quality` plus the noise
    of rate(); returns the refusal."""
    for n in range(workers):
        try:
            assignment = assignment_join(study=study, platform="prolific", external_id=f"w{n}")
        except JoinRefused as refused:
            return refused
        document = assignment.document
        item = int(document.input_id.split("-")[1])
        rate(assignment, quality[document.system] + (item * 5 + NOISE_OFFSET[document.system]) % 11 - 5)
    raise AssertionError("the join link never refused")


def test_separated_stops_when_every_adjacent_pair_differs_at_the_studys_alpha():
    study = da_study(items=12, allocation={"policy": "uncertain", "stop_when": ["separated"]})
    refused = join_and_rate_as(study, {"sysA": 90.0, "sysB": 50.0, "sysC": 10.0})
    study.refresh_from_db()
    record = AllocationRecord.objects.get(study=study)
    assert refused.reason == "closed" and study.status == Study.Status.CLOSED
    assert record.stopped_rule == "separated"
    assert (
        "every adjacent pair of the ranking is significantly different (2 pairs, alpha 0.05)"
        in record.stopped_note
    )
    status = allocation_status(study)
    assert status["separated"] == (2, 2)
    # Paired randomisation needs six items of one sign for p < 0.05: it stopped after that, not at the plan.
    assert 12 <= status["ratings"] < status["planned"] == 36


def test_separated_does_not_stop_while_a_pair_is_tied():
    study = da_study(items=12, allocation={"policy": "uncertain", "stop_when": ["separated"]})
    refused = join_and_rate_as(study, {"sysA": 90.0, "sysB": 50.0, "sysC": 50.0})
    study.refresh_from_db()
    assert refused.reason != "closed" and study.status == Study.Status.OPEN
    assert not AllocationRecord.objects.get(study=study).stopped_rule
    status = allocation_status(study)
    assert status["separated"] == (1, 2) and status["ratings"] == status["planned"] == 36


def test_a_stricter_alpha_needs_more_ratings_to_separate():
    quality = {"sysA": 90.0, "sysB": 50.0, "sysC": 10.0}
    spent = {}
    for alpha in (0.05, 0.005):
        study = da_study(items=12, allocation={"policy": "uncertain", "stop_when": ["separated"]})
        study.config = {**study.config, "ranking": {"alpha": alpha}}
        study.save(update_fields=["config"])
        join_and_rate_as(study, quality)
        assert AllocationRecord.objects.get(study=study).stopped_rule == "separated"
        spent[alpha] = allocation_status(study)["ratings"]
    assert spent[0.005] > spent[0.05]


def test_a_study_without_the_option_keeps_no_allocation_state():
    study = make_translation_study("da", systems=tuple(QUALITY), documents=2, status=Study.Status.OPEN,
                                   annotators_per_document=1)  # fmt: skip
    join_and_rate(study, "w0")
    assert not AllocationRecord.objects.exists() and allocation_status(study) is None


def test_a_submit_locks_an_adaptive_study_before_the_assignment_as_a_join_does():
    """The first try finds the assignment's study allocating, rolls back and tries again study first:
    a join locks the study, then the assignments it releases, so the two never wait on each other in
    opposite orders. (A study without the option is never locked: tests/annotations/test_save_statements.)"""
    study = da_study(items=2)
    assignment = assignment_join(study=study, platform="prolific", external_id="w")
    with CaptureQueriesContext(connection) as captured:
        submitted = rate(assignment)
    assert submitted.status == Assignment.Status.SUBMITTED
    statements = [query["sql"] for query in captured.captured_queries]
    rolled_back = next(n for n, sql in enumerate(statements) if sql.startswith("ROLLBACK TO SAVEPOINT"))
    retry = statements[rolled_back:]
    study_lock = next(
        n for n, sql in enumerate(retry) if 'FROM "studies_study" WHERE "studies_study"."id" =' in sql
    )
    assignment_lock = next(
        n for n, sql in enumerate(retry)
        if sql.startswith('SELECT "annotations_assignment"."id"') and '"annotations_assignment"."token" =' in sql
    )  # fmt: skip
    assert study_lock < assignment_lock, "\n".join(retry)
    if connection.features.has_select_for_update:
        assert "FOR UPDATE" in retry[study_lock] and "FOR UPDATE" in retry[assignment_lock]
    assert AllocationRecord.objects.filter(study=study).exists()  # the allocation ran, study locked


def systems_given(study, joins):
    given = [assignment_join(study=study, platform="prolific", external_id=f"w{n}") for n in range(joins)]
    return Counter(a.document.system for a in given)


@pytest.mark.parametrize("policy", ["uncertain", "clusters"])
def test_clusters_also_spends_on_the_clear_leader_whose_boundary_is_not_yet_significant(policy):
    """sysA is far ahead after three items: its order is clear (uncertain leaves it), but three
    items cannot make it significantly better, so whether it stands in a cluster of its own is in
    doubt, and `clusters` rates it on more items; sysB and sysC are the close pair either way."""
    study = da_study(items=20, allocation={"policy": policy})
    warm_up(study, 3)
    systems = systems_given(study, 6)
    if policy == "uncertain":
        assert systems == {"sysB": 3, "sysC": 3}
    else:
        assert systems["sysA"] >= 3


@pytest.mark.parametrize("policy", ["uncertain", "clusters"])
def test_under_clusters_settled_waits_for_the_boundary_s_items(policy):
    study = da_study(items=6, allocation={"policy": policy, "stop_when": ["settled"]})
    join_until_refused(study)
    record = AllocationRecord.objects.get(study=study)
    assert record.stopped_rule == "settled"
    rated_a = Assignment.objects.filter(
        study=study, document__system="sysA", status=Assignment.Status.SUBMITTED
    ).count()
    if policy == "clusters":
        # Six items are the plan: sysA's lead can only be tested on all of them.
        assert rated_a == 6
        assert "every pair's order and significance are settled" in record.stopped_note
    else:
        assert rated_a < 6
        assert "every pair's order is settled" in record.stopped_note


@pytest.mark.parametrize("policy", ["uncertain", "clusters"])
def test_three_systems_far_apart_settle_their_order_at_once_but_not_their_clusters(policy):
    """Three items put sysA, sysB and sysC 40 points apart each: no order is in doubt, so
    `settled` stops an `uncertain` study; no gap can be significant on three items, so under
    `clusters` the study goes on, and the Run tab names a pair still in doubt."""
    study = da_study(items=20, allocation={"policy": policy, "stop_when": ["settled"]})
    far_apart = {"sysA": 90.0, "sysB": 50.0, "sysC": 10.0}
    for document in Document.objects.filter(study=study, input_id__in=["src-0", "src-1", "src-2"]):
        assignment = Assignment.objects.create(
            study=study, document=document, worker=_worker(f"warm-{document.pk}"), joined=True
        )
        rate(assignment, far_apart[document.system] + int(document.input_id[-1]))
    study.refresh_from_db()
    status = allocation_status(study)
    if policy == "uncertain":
        assert study.status == Study.Status.CLOSED and status["most_doubtful"] is None
    else:
        assert study.status == Study.Status.OPEN and status["pairs_settled"] < status["pairs"] == 3
        assert status["most_doubtful"] is not None
