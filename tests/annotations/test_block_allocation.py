"""Adaptive allocation in block studies (Likert, BWS, pairwise; config.allocation policy
`uncertain`, annotations/services/block_allocation.py): the next block goes to the pairs of
systems most in doubt, the study stops by itself, and every guarantee of the block join holds."""

import re
from collections import Counter

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from accounts.models import StudyMembership, Worker
from annotations.models import AllocationRecord, Assignment
from annotations.services import JoinRefused, assignment_join
from annotations.services.blocks import block_assignment_create
from annotations.services.stopping import allocation_status
from studies.config import config_problems
from studies.models import Study
from tests.annotations.block_studies import (
    by_input_documents,
    import_block_study,
    join,
    pair_documents,
    rate_block,
    systems_of,
    warm_up,
)

pytestmark = pytest.mark.django_db
PROTOCOLS = ("likert", "bws", "pairwise")


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_the_option_is_read_by_block_studies(protocol):
    assert (
        config_problems({"allocation": {"policy": "uncertain", "stop_when": ["settled"]}}, protocol=protocol)
        == []
    )
    assert [str(p) for p in config_problems({"allocation": {"policy": "greedy"}}, protocol=protocol)] == [
        "config.allocation.policy: must be one of uniform, uncertain, clusters"
    ]


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_with_a_and_b_clearly_apart_and_c_and_d_close_the_next_blocks_hold_c_and_d(tmp_path, protocol):
    study = import_block_study(
        tmp_path, protocol, documents=pair_documents(12), allocation={"policy": "uncertain"}, per_block=2
    ).study
    warm_up(study, 6)  # every pair of systems compared on two inputs
    given = [join(study, f"w{n}") for n in range(4)]
    assert [systems_of(a) for a in given] == [{"sysC", "sysD"}] * 4
    # K per block still holds: four places on the four C-D blocks, none given three times.
    assert max(Counter(a.block for a in Assignment.objects.filter(study=study)).values()) <= 2


@pytest.mark.parametrize("protocol", ["likert", "pairwise"])
def test_uniform_takes_the_blocks_in_fill_order_whatever_the_ratings(tmp_path, protocol):
    study = import_block_study(
        tmp_path, protocol, documents=pair_documents(12), allocation={"policy": "uniform"}, per_block=2
    ).study
    warm_up(study, 6)
    given = [join(study, f"w{n}").block for n in range(4)]
    assert given == ["in06-AB", "in06-CD", "in07-AC", "in07-BD"]


@pytest.mark.parametrize("policy", ["uncertain", "clusters"])
def test_blocks_that_all_hold_every_system_are_taken_as_uniform_and_the_import_warns(tmp_path, policy):
    adaptive = import_block_study(
        tmp_path / "a", "likert", documents=by_input_documents(6), allocation={"policy": policy}
    )
    uniform = import_block_study(
        tmp_path / "u", "likert", documents=by_input_documents(6), allocation={"policy": "uniform"}, slug="u"
    )
    assert [str(w) for w in adaptive.warnings] == [
        f"study.yaml:0: warning: config.allocation.policy: {policy} chooses the next block by the systems it "
        "holds, and every block holds the same systems (sysA, sysB, sysC, sysD): the study will be "
        "allocated as uniform. Blocks of some systems each (e.g. one pair of systems per input) give it "
        "something to steer."
    ]
    assert uniform.warnings == []
    for result in (adaptive, uniform):
        warm_up(result.study, 2)
    assert [join(adaptive.study, f"w{n}").block for n in range(3)] == [
        join(uniform.study, f"w{n}").block for n in range(3)
    ]


def test_blocks_of_pairs_of_systems_import_without_the_warning(tmp_path):
    result = import_block_study(
        tmp_path, "bws", documents=pair_documents(3), allocation={"policy": "uncertain"}
    )
    assert result.warnings == []


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_the_study_stops_by_itself_once_every_pair_is_settled(tmp_path, protocol):
    study = import_block_study(
        tmp_path, protocol, documents=pair_documents(12),
        allocation={"policy": "uncertain", "stop_when": ["settled"]},
    ).study  # fmt: skip
    rated = 0
    with pytest.raises(JoinRefused) as refused:
        while rated < 30:
            rate_block(join(study, f"w{rated}"))
            rated += 1
    study.refresh_from_db()
    record = AllocationRecord.objects.get(study=study)
    assert study.status == Study.Status.CLOSED and record.stopped_rule == "settled"
    assert "has finished" in str(refused.value)
    # The clear pairs were left alone once settled: fewer blocks rated than the 24 planned.
    assert rated < 24
    assert allocation_status(study)["ratings"] == rated


def test_a_study_planning_two_workers_a_block_is_not_settled_when_each_block_has_one(tmp_path):
    """Every block has a score from its first worker, but the study plans two: the second ratings
    still move the close pair's means, so the study stays open and the next block compares them."""
    study = import_block_study(
        tmp_path, "likert", documents=pair_documents(12), per_block=2,
        allocation={"policy": "uncertain", "stop_when": ["settled"]},
    ).study  # fmt: skip
    warm_up(study, 12)  # each of the 24 blocks rated once

    study.refresh_from_db()
    assert study.status == Study.Status.OPEN
    status = allocation_status(study)
    assert (status["ratings"], status["planned"]) == (24, 48)
    assert status["most_doubtful"][:2] == ("sysC", "sysD")
    assert status["pairs_settled"] == status["pairs"] - 1
    assert systems_of(join(study, "w0")) == {"sysC", "sysD"}


def test_the_study_stops_at_its_budget_of_blocks_and_never_gives_a_place_over_it(tmp_path):
    study = import_block_study(
        tmp_path, "likert", documents=pair_documents(6),
        allocation={"policy": "uncertain", "stop_when": ["budget"], "budget": 3},
    ).study  # fmt: skip
    first = [join(study, f"w{n}") for n in range(3)]
    with pytest.raises(JoinRefused, match="has all the ratings it planned"):
        join(study, "w3")
    for assignment in first:
        rate_block(assignment)
    study.refresh_from_db()
    assert study.status == Study.Status.CLOSED
    assert AllocationRecord.objects.get(study=study).stopped_rule == "budget"
    status = allocation_status(study)
    assert (status["ratings"], status["planned"]) == (3, 12)  # blocks rated, of blocks times K


def test_a_worker_gets_the_same_block_back_and_never_a_block_twice(tmp_path):
    study = import_block_study(
        tmp_path, "pairwise", documents=pair_documents(12), allocation={"policy": "uncertain"}, per_block=3
    ).study
    warm_up(study, 6)
    first = join(study, "w0")
    again = assignment_join(study=study, platform="prolific", external_id="w0", resume_tokens=(first.token,))
    assert again.pk == first.pk  # the open block comes back, nothing new
    rate_block(first)
    second = join(study, "w0")
    assert second.block != first.block and systems_of(second) == {"sysC", "sysD"}


def test_the_console_warns_when_the_blocks_give_the_policy_nothing_to_steer(tmp_path, researcher):
    study = import_block_study(
        tmp_path, "likert", documents=by_input_documents(2), allocation={"policy": "uniform"}
    ).study
    StudyMembership.objects.create(study=study, user=researcher, role="researcher")
    client = Client()
    client.force_login(researcher)
    page = client.get(reverse("console:study", args=[study.pk]) + "?tab=design").content.decode()
    assert 'id="save-allocation"' in page
    form = {
        "policy": "uncertain",
        "settled": "0.01",
        "stop_when": ["budget"],
        "unchanged_for": "20",
        "budget": "4",
    }
    saved = client.post(reverse("console:allocation", args=[study.pk]), form, follow=True).content.decode()
    assert "The allocation settings are saved." in saved
    assert "every block holds the same systems" in saved
    study.refresh_from_db()
    assert study.config["allocation"]["policy"] == "uncertain"


@pytest.mark.parametrize("protocol", ["bws", "pairwise"])
def test_two_systems_never_judged_together_are_not_settled_by_their_own_scores(tmp_path, protocol):
    study = import_block_study(
        tmp_path,
        protocol,
        documents=pair_documents(12),
        allocation={"policy": "uncertain", "stop_when": ["settled"]},
    ).study
    # sysA beat sysC and sysD, and sysB lost to them, but sysA never met sysB (nor sysC sysD).
    for block in ("in01-AC", "in01-BD", "in02-AD", "in02-BC", "in04-AC", "in04-BD", "in05-AD", "in05-BC"):
        rate_block(
            block_assignment_create(study=study, worker=Worker.objects.create(external_id=block), block=block)
        )
    status = allocation_status(study)
    assert (status["pairs_settled"], status["pairs"]) == (4, 6)
    assert status["most_doubtful"][:2] == ("sysA", "sysB")
    assert systems_of(join(study, "w0")) == {"sysA", "sysB"}


@pytest.mark.parametrize("protocol", ["likert", "pairwise"])
def test_an_adaptive_join_reads_the_study_s_documents_once(tmp_path, protocol):
    """The free blocks and the choice among them come from one read of the documents: a join runs
    under the study's lock, so every statement in it holds up the other joining workers."""
    study = import_block_study(
        tmp_path, protocol, documents=pair_documents(12), allocation={"policy": "uncertain"}, per_block=2
    ).study
    warm_up(study, 6)
    with CaptureQueriesContext(connection) as queries:
        given = join(study, "w0")
    assert systems_of(given) == {"sysC", "sysD"}
    one_block = re.compile(r'"block" = \'[^\']')  # the chosen block's own items are read once more
    whole_study = [
        q["sql"] for q in queries if 'FROM "studies_document"' in q["sql"] and not one_block.search(q["sql"])
    ]
    assert len(whole_study) == 1, "\n\n".join(whole_study)


@pytest.mark.parametrize("protocol", PROTOCOLS)
def test_a_clusters_block_study_runs_to_its_end_and_rates_no_block_twice(tmp_path, protocol):
    """`clusters` steers a block study as `uncertain` does, from the same pair sums; with `settled`
    it stops once every pair's order and significance are settled, at the latest when every block
    is rated."""
    study = import_block_study(
        tmp_path, protocol, documents=pair_documents(12),
        allocation={"policy": "clusters", "stop_when": ["settled"]},
    ).study  # fmt: skip
    rated = 0
    with pytest.raises(JoinRefused):
        while rated < 30:
            rate_block(join(study, f"w{rated}"))
            rated += 1
    study.refresh_from_db()
    assert study.status == Study.Status.CLOSED
    assert rated <= 24 and allocation_status(study)["ratings"] == rated
    assert max(Counter(a.block for a in Assignment.objects.filter(study=study)).values()) == 1
