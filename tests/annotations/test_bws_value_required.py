"""A BWS study with a value question: a judgment needs its value, and so does submitting the block."""

import json

import pytest
from django.urls import reverse

from accounts.models import Worker
from annotations.services.blocks import block_assignment_create
from bundles.services import study_import_bundle
from protocols.rating.models import BestWorstJudgment
from tests.rating_bundles import write_rating_bundle

pytestmark = pytest.mark.django_db


def post(client, name, assignment, body):
    return client.post(
        reverse(name, args=[assignment.token]), json.dumps(body), content_type="application/json"
    )


def study(tmp_path, config=None):
    return study_import_bundle(
        directory=write_rating_bundle(tmp_path, protocol="bws", slug="bws", config=config)
    ).study


def assignment_of(bws):
    return block_assignment_create(
        study=bws, worker=Worker.objects.create(platform="link", external_id="w"), block="b1"
    )


def tuple_body(bws, entry, **extra):
    documents = dict(bws.documents.values_list("id", "external_id"))
    best, worst = (documents[d] for d in entry["documents"][:2])
    return {"position": entry["position"], "best": best, "worst": worst, **extra}


def test_a_judgment_without_its_value_is_refused_with_a_message(client, tmp_path):
    bws = study(tmp_path)  # value_scale 3
    assignment = assignment_of(bws)
    entry = assignment.items[0]
    for body in (tuple_body(bws, entry), tuple_body(bws, entry, value=None)):
        response = post(client, "task-api-judgments", assignment, body)
        assert response.status_code == 400
        assert response.json()["error"] == (
            "'value' is required: how large the difference is, a whole number from 1 to 3"
        )
    assert not assignment.judgments.exists()
    assert post(client, "task-api-judgments", assignment, tuple_body(bws, entry, value=3)).status_code == 200
    assert assignment.judgments.get().value == 3


def test_submit_refuses_a_block_whose_judgments_lack_values(client, tmp_path):
    bws = study(tmp_path)
    assignment = assignment_of(bws)
    for entry in assignment.items:
        assert (
            post(client, "task-api-judgments", assignment, tuple_body(bws, entry, value=2)).status_code == 200
        )
    # A judgment stored before the value was required (or imported) has none.
    BestWorstJudgment.objects.filter(assignment=assignment, position=assignment.items[0]["position"]).update(
        value=None
    )
    response = post(client, "task-api-submit", assignment, {})
    assert response.status_code == 400
    assert response.json()["error"] == (
        "rate how large the difference is in every tuple before submitting (1 left)"
    )
    post(client, "task-api-judgments", assignment, tuple_body(bws, assignment.items[0], value=1))
    assert post(client, "task-api-submit", assignment, {}).status_code == 200


def test_without_a_value_scale_no_value_is_asked_or_accepted(client, tmp_path):
    bws = study(tmp_path, config={"bws": {"tuple_size": 3, "tuples": "by_input"}})
    assignment = assignment_of(bws)
    entry = assignment.items[0]
    assert post(client, "task-api-judgments", assignment, tuple_body(bws, entry)).status_code == 200
    response = post(client, "task-api-judgments", assignment, tuple_body(bws, entry, value=2))
    assert response.json()["error"] == "this study asks for no value rating"
    for other in assignment.items[1:]:
        post(client, "task-api-judgments", assignment, tuple_body(bws, other))
    assert post(client, "task-api-submit", assignment, {}).status_code == 200
