"""Whether the completion page announces the retest is the study's choice (Tang et al.: only after a week)."""

import json

import pytest
from django.urls import reverse

from accounts.models import Worker
from annotations.models import Assignment
from annotations.services.blocks import block_assignment_create
from bundles.services import study_import_bundle
from tests.rating_bundles import write_rating_bundle

pytestmark = pytest.mark.django_db


def likert_study(tmp_path, **options):
    config = {"scale": {"min": 1, "max": 5}, "retest_after_days": 7, **options}
    return study_import_bundle(directory=write_rating_bundle(tmp_path, config=config)).study


def submit_block(client, study):
    """Rate every output of a block and submit it; the submit API's JSON answer."""
    assignment = block_assignment_create(
        study=study, worker=Worker.objects.create(platform="link", external_id="w"), block="b1"
    )
    documents = dict(study.documents.values_list("id", "external_id"))
    for document_id in assignment.items:
        body = json.dumps({"document": documents[document_id], "score": 3})
        client.post(
            reverse("task-api-ratings", args=[assignment.token]), body, content_type="application/json"
        )
    response = client.post(
        reverse("task-api-submit", args=[assignment.token]), "{}", content_type="application/json"
    )
    return assignment, response.json()


def test_by_default_the_retest_is_scheduled_but_not_announced(client, tmp_path):
    assignment, answer = submit_block(client, likert_study(tmp_path))
    retest = Assignment.objects.get(kind="retest")  # still scheduled: the researcher sends its link
    html = client.get(reverse("task-done", args=[assignment.token])).content.decode()
    state = client.get(reverse("task-api-state", args=[assignment.token])).json()
    assert answer["completion"]["code"] and answer["completion"]["retest"] is None
    assert state["completion"]["retest"] is None
    assert retest.token not in html and "second round" not in html
    assert f"{retest.available_from:%Y-%m-%d}" not in html


def test_a_study_that_announces_the_retest_gives_its_date_and_link(client, tmp_path):
    assignment, answer = submit_block(client, likert_study(tmp_path, announce_retest=True))
    retest = Assignment.objects.get(kind="retest")
    link = reverse("task-instructions", args=[retest.token])
    html = client.get(reverse("task-done", args=[assignment.token])).content.decode()
    assert answer["completion"]["retest"] == {
        "available_from": retest.available_from.isoformat(),
        "url": link,
    }
    assert link in html and f"{retest.available_from:%Y-%m-%d}" in html and "second round" in html


@pytest.mark.parametrize(
    ("config", "protocol", "message"),
    [
        ({"announce_retest": "yes"}, "likert", "config.announce_retest: must be true or false"),
        (
            {"announce_retest": True},
            "span",
            "config.announce_retest: is for likert, bws, pairwise, contrastive-mqm, contrastive-esa and contrastive-da studies, not span",
        ),
    ],
)
def test_announce_retest_is_checked_like_every_option(config, protocol, message):
    from studies.config import config_problems

    assert [str(problem) for problem in config_problems(config, protocol=protocol)] == [message]
