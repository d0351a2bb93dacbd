"""Worker rules at join (config `workers`): pools shared by studies, allow-lists, excluded studies."""

import threading

import pytest
from django.db import connection, connections
from django.test import Client
from django.urls import reverse

from accounts.models import StudyMembership, Worker
from annotations.models import Assignment
from bundles.services import study_import_bundle
from tests.factories import make_span_study
from tests.rating_bundles import write_rating_bundle

pytestmark = pytest.mark.django_db

POOL_FULL = b"as many tasks of this series of studies"


def join(study, client=None, **params):
    query = "&".join(f"{key}={value}" for key, value in params.items())
    url = reverse("join", args=[study.join_key]) + (f"?{query}" if query else "")
    return (client or Client()).get(url)


def submit_all(worker_id):
    Assignment.objects.filter(worker__external_id=worker_id).update(status=Assignment.Status.SUBMITTED)


def pool_span_studies(researcher, count, *, max_per_pool=1, pool="series"):
    workers = {"pool": pool, "max_per_pool": max_per_pool}
    return [
        make_span_study(
            documents=3,
            annotators_per_document=3,
            researcher=researcher,
            slug=f"{pool}-{number}",
            config={"workers": workers},
        )  # fmt: skip
        for number in range(count)
    ]


def test_a_pool_limits_documents_per_worker_over_its_studies(researcher):
    first, second, third = pool_span_studies(researcher, 3, max_per_pool=2)
    assert join(first, PROLIFIC_PID="p1").status_code == 302
    submit_all("p1")
    assert join(second, PROLIFIC_PID="p1").status_code == 302
    submit_all("p1")
    refused = join(third, PROLIFIC_PID="p1")
    assert refused.status_code == 200 and POOL_FULL in refused.content
    assert Assignment.objects.filter(worker__external_id="p1").count() == 2
    assert join(third, PROLIFIC_PID="p2").status_code == 302  # someone else still may


def test_tang_at_most_two_blocks_per_worker_over_four_block_studies(tmp_path, researcher):
    config = {"scale": {"min": 1, "max": 5}, "workers": {"pool": "tang", "max_per_pool": 2}}
    studies = []
    for number in range(4):
        bundle = write_rating_bundle(tmp_path / f"s{number}", slug=f"tang-{number}", config=config)
        study = study_import_bundle(directory=bundle).study
        StudyMembership.objects.create(study=study, user=researcher)
        studies.append(study)
    outcomes = []
    for study in studies:
        response = join(study, PROLIFIC_PID="rater")
        outcomes.append(response.status_code == 302)
        submit_all("rater")
    assert outcomes == [True, True, False, False]
    blocks = Assignment.objects.filter(worker__external_id="rater", document__isnull=True)
    assert blocks.count() == 2
    assert POOL_FULL in join(studies[3], PROLIFIC_PID="rater").content


def test_a_released_assignment_is_not_counted(researcher):
    first, second = pool_span_studies(researcher, 2)
    join(first, PROLIFIC_PID="slow")
    Assignment.objects.filter(worker__external_id="slow").update(status=Assignment.Status.RELEASED)
    assert join(second, PROLIFIC_PID="slow").status_code == 302


def test_a_worker_coming_back_to_an_open_assignment_is_not_refused(researcher):
    (study,) = pool_span_studies(researcher, 1)
    client = Client()
    first = join(study, client, PROLIFIC_PID="back", SESSION_ID="s1")
    again = join(study, client, PROLIFIC_PID="back", SESSION_ID="s1")  # the pool's one place is theirs
    assert again.status_code == 302 and again["Location"] == first["Location"]
    submit_all("back")
    assert POOL_FULL in join(study, client, PROLIFIC_PID="back").content


def test_only_listed_platform_ids_join_and_a_plain_link_is_refused(researcher):
    study = make_span_study(documents=2, researcher=researcher, config={"workers": {"allow": ["invited"]}})
    assert join(study, PROLIFIC_PID="invited").status_code == 302
    for refused in (join(study, PROLIFIC_PID="stranger"), join(study), join(study, workerId="A9")):
        assert refused.status_code == 200
        assert b"open to invited participants only" in refused.content
    assert list(Assignment.objects.values_list("worker__external_id", flat=True)) == ["invited"]


def test_workers_of_an_excluded_earlier_study_are_refused(researcher):
    pilot = make_span_study(documents=1, researcher=researcher, slug="pilot-2024")
    study = make_span_study(
        documents=2, researcher=researcher, config={"workers": {"exclude_studies": ["pilot-2024"]}}
    )
    join(pilot, PROLIFIC_PID="veteran")
    submit_all("veteran")
    refused = join(study, PROLIFIC_PID="veteran")
    assert b"did not take part in an earlier, related study" in refused.content
    assert join(study, PROLIFIC_PID="newcomer").status_code == 302


def test_another_researchers_pool_or_study_changes_nothing(researcher, other_researcher):
    (theirs,) = pool_span_studies(other_researcher, 1, pool="shared-name")
    their_pilot = make_span_study(documents=1, researcher=other_researcher, slug="their-pilot")
    ours = make_span_study(
        documents=2, researcher=researcher, slug="ours",
        config={"workers": {"pool": "shared-name", "max_per_pool": 1, "exclude_studies": ["their-pilot"]}},
    )  # fmt: skip
    join(theirs, PROLIFIC_PID="w")
    join(their_pilot, PROLIFIC_PID="w")
    submit_all("w")
    assert join(ours, PROLIFIC_PID="w").status_code == 302


def joins_at_once(studies, worker_id):
    """The same worker opens the join links of `studies` at the same moment; their status codes."""
    barrier = threading.Barrier(len(studies))
    statuses = []

    def arrive(study):
        try:
            barrier.wait()
            statuses.append(
                join(study, Client(raise_request_exception=False), PROLIFIC_PID=worker_id).status_code
            )
        finally:
            connections.close_all()

    threads = [threading.Thread(target=arrive, args=(study,)) for study in studies]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sorted(statuses)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_one_worker_joining_two_pool_studies_at_once_gets_one(researcher):
    if connection.vendor != "postgresql":
        pytest.skip("needs DATABASE_URL=postgres://... (row locks)")
    studies = pool_span_studies(researcher, 2, max_per_pool=1)
    for attempt in range(6):
        worker_id = f"twice-{attempt}"
        # A worker seen before: a new one's two inserts would already wait on each other (unique id).
        Worker.objects.create(platform=Worker.Platform.PROLIFIC, external_id=worker_id)
        assert joins_at_once(studies, worker_id) == [200, 302]
        assert Assignment.objects.filter(worker__external_id=worker_id).count() == 1
