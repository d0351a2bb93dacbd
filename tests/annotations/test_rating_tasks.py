"""Likert and BWS blocks: joining, saving ratings and judgments, submitting, retests."""

import json
from collections import Counter
from datetime import timedelta

import pytest
from django.urls import reverse

from accounts.models import Worker
from annotations.models import Assignment
from annotations.services.blocks import block_assignment_create
from bundles.services import study_import_bundle
from protocols.rating.blocks import generated_tuples
from tests.rating_bundles import write_rating_bundle

pytestmark = pytest.mark.django_db


def post(client, name, assignment, body):
    return client.post(
        reverse(name, args=[assignment.token]), json.dumps(body), content_type="application/json"
    )


@pytest.fixture
def likert(tmp_path):
    config = {"scale": {"min": 1, "max": 5}, "retest_after_days": 7}
    return study_import_bundle(directory=write_rating_bundle(tmp_path, config=config)).study


@pytest.fixture
def bws(tmp_path):
    return study_import_bundle(directory=write_rating_bundle(tmp_path, protocol="bws", slug="bws")).study


def test_join_gives_blocks_k_workers_each_with_a_recorded_shuffle(client, likert):
    blocks = []
    for worker in ["a", "b", "c", "d"]:
        response = client.get(reverse("join", args=[likert.join_key]) + f"?PROLIFIC_PID={worker}")
        assert response.status_code == 302
        assignment = Assignment.objects.get(worker__external_id=worker)
        assert assignment.document is None and assignment.order_seed is not None
        assert sorted(assignment.items) == sorted(
            likert.documents.filter(block=assignment.block).values_list("id", flat=True)
        )
        blocks.append(assignment.block)
        Assignment.objects.filter(pk=assignment.pk).update(status="submitted")
    assert Counter(blocks) == {"b1": 2, "b2": 2}
    refused = client.get(reverse("join", args=[likert.join_key]) + "?PROLIFIC_PID=e")
    assert b"no block left" in refused.content


def test_ratings_are_checked_saved_and_submit_needs_all(client, likert, clock):
    assignment = block_assignment_create(
        study=likert, worker=Worker.objects.create(platform="link", external_id="w"), block="b1"
    )
    documents = dict(likert.documents.values_list("id", "external_id"))
    first = documents[assignment.items[0]]
    assert post(client, "task-api-ratings", assignment, {"document": first, "score": 4}).json() == {
        "document": first,
        "score": 4,
    }
    assert (
        post(client, "task-api-ratings", assignment, {"document": first, "score": 5}).status_code == 200
    )  # a change
    assert (
        "from 1 to 5"
        in post(client, "task-api-ratings", assignment, {"document": first, "score": 6}).json()["error"]
    )
    assert (
        "not in this block"
        in post(client, "task-api-ratings", assignment, {"document": "b2-in0-sysA", "score": 3}).json()[
            "error"
        ]
    )
    refused = post(client, "task-api-submit", assignment, {})
    assert (
        refused.status_code == 400
        and refused.json()["error"] == "rate every output before submitting (5 left)"
    )
    for document_id in assignment.items[1:]:
        post(client, "task-api-ratings", assignment, {"document": documents[document_id], "score": 3})
    done = post(client, "task-api-submit", assignment, {})
    assert done.status_code == 200 and done.json()["completion"]["code"]
    state = client.get(reverse("task-api-state", args=[assignment.token])).json()
    assert state["ratings"][first] == 5 and len(state["ratings"]) == 6

    retest = Assignment.objects.get(kind="retest")
    assert retest.block == "b1" and retest.worker == assignment.worker
    assert retest.available_from == clock.now() + timedelta(days=7)
    early = post(client, "task-api-ratings", retest, {"document": first, "score": 2})
    assert early.status_code == 409 and "opens on" in early.json()["error"]
    assert (
        b"This second round opens on" in client.get(reverse("task-instructions", args=[retest.token])).content
    )
    clock.advance(7 * 24 * 3600)  # a week later
    assert post(client, "task-api-ratings", retest, {"document": first, "score": 2}).status_code == 200


def test_judgments_are_checked_and_saved(client, bws):
    assignment = block_assignment_create(
        study=bws, worker=Worker.objects.create(platform="link", external_id="w"), block="b2"
    )
    documents = dict(bws.documents.values_list("id", "external_id"))
    tuple_ = assignment.items[0]
    a, b, c = (documents[d] for d in tuple_["documents"])
    body = {"position": tuple_["position"], "best": a, "worst": b, "value": 2}
    assert post(client, "task-api-judgments", assignment, body).status_code == 200
    assert "different" in post(client, "task-api-judgments", assignment, {**body, "worst": a}).json()["error"]
    other = next(documents[d] for d in assignment.items[1]["documents"])
    assert (
        "not in this block"
        in post(client, "task-api-judgments", assignment, {**body, "best": "b1-in0-sysA"}).json()["error"]
    )
    assert (
        "outputs of this tuple"
        in post(client, "task-api-judgments", assignment, {**body, "best": other}).json()["error"]
    )
    assert (
        "from 1 to 3" in post(client, "task-api-judgments", assignment, {**body, "value": 4}).json()["error"]
    )
    assert (
        post(client, "task-api-submit", assignment, {}).json()["error"]
        == "judge every tuple before submitting (1 left)"
    )
    # The tuple's third output was neither picked; the refused posts left the saved judgment as it was.
    judgment = assignment.judgments.get()
    assert (documents[judgment.best_id], documents[judgment.worst_id], judgment.value) == (a, b, 2)
    assert c not in (a, b)


def test_by_input_tuples_hold_all_systems_of_an_input(bws):
    assignment = block_assignment_create(
        study=bws, worker=Worker.objects.create(platform="link", external_id="w"), block="b1"
    )
    inputs = dict(bws.documents.values_list("id", "input_id"))
    assert len(assignment.items) == 2  # block b1: two inputs of three systems
    for entry in assignment.items:
        assert len(entry["documents"]) == 3 and len({inputs[d] for d in entry["documents"]}) == 1


def test_generated_tuples_are_balanced_and_seeded():
    items = list(range(12))
    tuples = generated_tuples(items, 4, 2, seed=5)
    assert len(tuples) == 6 and all(len(set(t)) == 4 for t in tuples)
    assert set(Counter(i for t in tuples for i in t).values()) == {2}
    assert tuples == generated_tuples(items, 4, 2, seed=5) and tuples != generated_tuples(items, 4, 2, seed=6)
    uneven = generated_tuples(list(range(10)), 4, 2, seed=1)
    counts = Counter(i for t in uneven for i in t)
    assert min(counts.values()) >= 2 and all(len(set(t)) == 4 for t in uneven)


def test_assign_command_hands_out_blocks_in_rating_studies(likert, capsys):
    from django.core.management import call_command

    call_command("assign", likert.slug, "--workers", "w1,w2,w3", "--per-document", "2")
    lines = capsys.readouterr().out.strip().splitlines()
    targets = Counter(line.split("\t")[1] for line in lines)
    assert targets == {"block:b1": 2, "block:b2": 2}
    items = [len(a.items) for a in Assignment.objects.filter(study=likert)]
    assert items == [6, 6, 6, 6]  # every output of its block (2 inputs x 3 systems)


def test_completion_page_gives_the_retest_link(client, likert):
    likert.config["announce_retest"] = True
    likert.save()
    assignment = block_assignment_create(
        study=likert, worker=Worker.objects.create(platform="link", external_id="w"), block="b2"
    )
    documents = dict(likert.documents.values_list("id", "external_id"))
    for document_id in assignment.items:
        post(client, "task-api-ratings", assignment, {"document": documents[document_id], "score": 2})
    post(client, "task-api-submit", assignment, {})
    retest = Assignment.objects.get(kind="retest")
    html = client.get(reverse("task-done", args=[assignment.token])).content.decode()
    assert reverse("task-instructions", args=[retest.token]) in html and "second round" in html
