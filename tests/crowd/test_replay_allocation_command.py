"""`manage.py replay_allocation`: a study's own ratings replayed under each allocation policy, with
what each would have saved at the study's pay."""

import io
import re
from decimal import Decimal

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from accounts.models import Worker
from annotations.models import Assignment
from annotations.services import assignment_submit
from crowd.management.commands.replay_allocation import money_saved
from protocols.translation.models import SegmentScore
from studies.models import Document, Segment, Study
from tests.annotations.block_studies import import_block_study, pair_documents, warm_up
from tests.translation.studies import make_translation_study

pytestmark = pytest.mark.django_db

# Three systems far apart, each document scored by one rater: any 10 % of the cells already
# give the full ranking, so every policy needs little and saves most of the pay.
QUALITY = {"sysA": 90.0, "sysB": 50.0, "sysC": 10.0}
ITEMS = 30


def rated_da_study(*, pay=None, ranking=None, allocation=None, protocol="da", quality=QUALITY):
    config = {
        key: value for key, value in (("pay", pay), ("ranking", ranking), ("allocation", allocation)) if value
    }
    study = make_translation_study(
        protocol, systems=tuple(quality), documents=ITEMS, config=config, status=Study.Status.OPEN,
        annotators_per_document=1,
    )  # fmt: skip
    for document in Document.objects.filter(study=study):
        item = int(document.input_id.split("-")[1])
        worker = Worker.objects.create(platform="prolific", external_id=f"w-{document.pk}")
        assignment = Assignment.objects.create(study=study, document=document, worker=worker, joined=True)
        segments = list(Segment.objects.filter(document=document))
        for segment in segments:
            shift = 4 * list(quality).index(document.system)  # each system's own noise
            value = quality[document.system] + (item * 7 + segment.index * 3 + shift) % 9 - 4
            SegmentScore.objects.create(assignment=assignment, segment=segment, score=value)
        Assignment.objects.filter(pk=assignment.pk).update(
            current_segment=len(segments) - 1, started_at=timezone.now(), status=Assignment.Status.IN_PROGRESS
        )
        assignment_submit(token=assignment.token)
    return study


def replay_output(study, *args):
    out = io.StringIO()
    call_command("replay_allocation", study.slug, "--seeds", "3", *args, stdout=out)
    return out.getvalue()


def test_each_policy_reaches_the_studys_ranking_early_and_the_saving_is_priced_at_its_pay():
    study = rated_da_study(pay={"reward": 2.5, "currency": "GBP"})
    output = replay_output(study)
    assert "3 systems, 90 scored cells from 90 submitted ratings" in output
    assert "clusters by the study's permutation test (alpha 0.05, 1,000 resamples)" in output
    assert "the ratings so far cost 225.00 GBP" in output
    for policy in ("uniform", "uncertain", "clusters"):
        (row,) = [line for line in output.splitlines() if line.startswith(f"| {policy} |")]
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        assert cells[10] == "1.000 (100%)"  # all the cells: the study's own ranking
        needed = re.fullmatch(r"(\d+)% \(3/3 runs\)", cells[11])
        assert needed and int(needed.group(1)) <= 50
        saved = re.fullmatch(r"([\d,]+) ratings, ([\d.]+) GBP", cells[12])
        assert saved and Decimal(saved.group(2)) >= Decimal("112.50")  # at least half of 225.00
    # Where each adaptive policy settles by itself: `clusters` with the study's ranking in every
    # run, `uncertain` right after its warm-up (5 items a system), before any pair can be
    # significant by randomisation over 5 items; uniform never stops by itself.
    stops = {policy: stop_cell(output, policy) for policy in ("uniform", "uncertain", "clusters")}
    assert stops["uniform"] == "-"
    assert stops["uncertain"] == "17% (0/3 runs with the study's ranking); saves 75 ratings, 187.50 GBP"
    clusters = re.fullmatch(r"(\d+)% \(3/3 runs with the study's ranking\); saves (\d+) ratings, ([\d.]+) GBP",
                            stops["clusters"])  # fmt: skip
    assert clusters and int(clusters.group(1)) <= 50 and Decimal(clusters.group(3)) >= Decimal("112.50")


def stop_cell(output, policy):
    (row,) = [line for line in output.splitlines() if line.startswith(f"| {policy} |")]
    return row.strip("|").split("|")[13].strip()


def test_a_study_without_pay_gets_the_ratings_saved_alone_and_its_own_ranking_test():
    output = replay_output(
        rated_da_study(ranking={"test": "wilcoxon", "alpha": 0.01}), "--policies", "uniform"
    )
    assert "Pay:" not in output
    assert "clusters by the study's wilcoxon test (alpha 0.01)." in output
    (row,) = [line for line in output.splitlines() if line.startswith("| uniform |")]
    assert re.fullmatch(r"\d+ ratings", row.strip("|").split("|")[12].strip())
    assert "| uncertain |" not in output


def test_a_policy_stops_by_itself_at_the_studys_own_settled_threshold():
    close = {"sysA": 51.0, "sysB": 50.0, "sysC": 49.0}  # the order takes most of the items to settle
    loose = {"policy": "clusters", "settled": 0.2}
    output = replay_output(rated_da_study(allocation=loose, quality=close), "--policies", "clusters")
    assert "above the study's `settled` (0.2)" in output
    default = replay_output(rated_da_study(quality=close), "--policies", "clusters")
    assert "above the study's `settled` (0.01)" in default
    # A loose threshold stops sooner, and here with another ranking than the study's.
    stop, stop_by_default = (stop_cell(text, "clusters") for text in (output, default))
    assert int(stop.split("%")[0]) < int(stop_by_default.split("%")[0])
    assert "(3/3 runs with the study's ranking)" in stop_by_default
    assert "(3/3 runs" not in stop


def test_another_settled_threshold_is_tried_without_changing_the_study():
    close = {"sysA": 51.0, "sysB": 50.0, "sysC": 49.0}
    study = rated_da_study(quality=close)
    tried = replay_output(study, "--policies", "clusters", "--settled", "0.2")
    assert "above --settled's `settled` (0.2)" in tried
    own = replay_output(study, "--policies", "clusters")
    assert int(stop_cell(tried, "clusters").split("%")[0]) < int(stop_cell(own, "clusters").split("%")[0])
    study.refresh_from_db()
    assert "allocation" not in study.config
    with pytest.raises(CommandError, match="--settled must be from 0.0001 to 0.25"):
        replay_output(study, "--settled", "0.5")


def test_the_money_saved_is_the_pay_of_the_ratings_not_bought():
    assert money_saved(0.7, 90, Decimal("2.50")) == Decimal("67.50")
    assert money_saved(1.0, 90, Decimal("2.50")) == Decimal("0.00")


def test_studies_that_cannot_be_replayed_are_refused_with_the_reason():
    with pytest.raises(CommandError, match="no study with slug 'nope'"):
        call_command("replay_allocation", "nope")
    mqm = make_translation_study("mqm", systems=tuple(QUALITY), documents=2)
    with pytest.raises(CommandError, match="is a mqm study, which does not allocate by system"):
        call_command("replay_allocation", mqm.slug)
    unrated = make_translation_study("da", systems=tuple(QUALITY), documents=2)
    with pytest.raises(CommandError, match="has 0 system\\(s\\) with scores on two items or more"):
        call_command("replay_allocation", unrated.slug)


@pytest.mark.parametrize("protocol", ["likert", "pairwise"])
def test_a_block_study_is_replayed_from_its_blocks_ratings(tmp_path, protocol):
    import_block_study(tmp_path, protocol, documents=pair_documents(12), allocation={"policy": "uniform"})
    study = Study.objects.get(slug=f"{protocol}-adaptive")
    warm_up(study, 12)  # every block of the twelve inputs rated once
    output = replay_output(study, "--policies", "uniform", "clusters")
    assert "4 systems, 48 scored cells from 24 submitted ratings" in output
    for policy in ("uniform", "clusters"):
        (row,) = [line for line in output.splitlines() if line.startswith(f"| {policy} |")]
        assert row.split("|")[11].strip() == "1.000 (100%)"
