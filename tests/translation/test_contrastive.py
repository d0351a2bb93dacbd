"""Contrastive studies: every system's translation of a source on one page, shuffled per worker
under neutral names; errors and scores land on the right translation; the report ranks them."""

import json

import pytest
from django.urls import reverse

from annotations.models import Assignment
from annotations.services.joining import assignment_join
from protocols.translation.models import SegmentScore, TranslationError
from protocols.translation.report import study_report
from tests.translation.studies import TARGETS, make_translation_study

pytestmark = pytest.mark.django_db

SYSTEMS = ("sysA", "sysB", "sysC")


def post(client, name, assignment, body):
    return client.post(
        reverse(name, args=[assignment.token]), json.dumps(body), content_type="application/json"
    )


def joined(study, name):
    return assignment_join(study=study, platform="link", external_id=name)


def page_data(client, assignment):
    return client.get(reverse("task-annotate", args=[assignment.token])).context["task_data"]


def test_a_worker_gets_every_systems_translation_of_one_source_in_their_own_order(client):
    study = make_translation_study(
        "contrastive-esa", systems=SYSTEMS, taxonomy=None, annotators_per_document=10
    )
    orders = set()
    for n in range(10):
        assignment = joined(study, f"w{n}")
        assert assignment.document_id is None and assignment.block == "src-0"
        documents = study.documents.filter(pk__in=[item["document"] for item in assignment.items])
        assert {d.system for d in documents} == set(SYSTEMS)
        orders.add(tuple(item["document"] for item in assignment.items))
    # Shuffled per worker: ten workers all given one order of three would happen 1 in 6^9 times.
    assert len(orders) > 1


def test_the_page_shows_the_translations_side_by_side_and_never_names_a_system(client):
    study = make_translation_study("contrastive-mqm", systems=SYSTEMS)
    assignment = joined(study, "w1")
    data = page_data(client, assignment)
    assert [o["label"] for o in data["outputs"]] == ["Translation 1", "Translation 2", "Translation 3"]
    shown = [study.documents.get(pk=item["document"]).system for item in assignment.items]
    assert data["segments"][0]["targets"] == [TARGETS[system][0] for system in shown]
    text = json.dumps(data)
    assert not any(system in text for system in SYSTEMS)
    assert "src-0-" not in text  # no document name either


def test_errors_and_scores_land_on_the_translation_the_worker_chose(client):
    study = make_translation_study("contrastive-esa", systems=SYSTEMS, taxonomy=None)
    assignment = joined(study, "w1")
    second = study.documents.get(pk=assignment.items[1]["document"])
    text = second.segments.get(index=0).text
    response = post(client, "task-api-translation-errors", assignment, {
        "client_id": "e1", "output": 1, "segment": 0, "side": "target", "start": 0, "end": 3, "text": text[:3],
        "severity": "Major",
    })  # fmt: skip
    assert response.status_code == 201, response.content
    assert response.json()["output"] == 1
    assert TranslationError.objects.get().segment.document == second
    assert post(client, "task-api-translation-errors", assignment, {
        "client_id": "e2", "output": 3, "segment": 0, "side": "target", "start": 0, "end": 1, "text": "x",
        "severity": "Minor"}).status_code == 400  # fmt: skip
    scored = post(client, "task-api-translation-scores", assignment, {"output": 1, "segment": 0, "score": 20})
    assert scored.json() == {"output": 1, "segment": 0, "score": 20.0, "warning": ""}
    assert SegmentScore.objects.get().segment.document == second
    state = client.get(reverse("task-api-state", args=[assignment.token])).json()
    assert state["scores"] == {"1:0": 20.0}


def test_the_next_segment_opens_when_every_translation_of_this_one_is_scored(client):
    study = make_translation_study("contrastive-da", systems=SYSTEMS, taxonomy=None)
    assignment = joined(study, "w1")
    for output in range(2):
        post(client, "task-api-translation-scores", assignment, {"output": output, "segment": 0, "score": 50})
    assert post(client, "task-api-translation-move", assignment, {"segment": 1}).status_code == 400
    post(client, "task-api-translation-scores", assignment, {"output": 2, "segment": 0, "score": 50})
    assert post(client, "task-api-translation-move", assignment, {"segment": 1}).status_code == 200


def test_the_report_ranks_the_systems_from_side_by_side_ratings(client):
    study = make_translation_study("contrastive-da", systems=SYSTEMS, taxonomy=None)
    quality = {"sysA": 90, "sysB": 60, "sysC": 20}
    for name in ("w1", "w2"):
        assignment = joined(study, name)
        for index in range(3):
            for item in assignment.items:
                system = study.documents.get(pk=item["document"]).system
                post(client, "task-api-translation-scores", assignment,
                     {"output": item["position"], "segment": index, "score": quality[system] + index})  # fmt: skip
            if index < 2:
                post(client, "task-api-translation-move", assignment, {"segment": index + 1})
        submitted = post(client, "task-api-submit", assignment, {})
        assert submitted.status_code == 200, submitted.content
    assert Assignment.objects.filter(status="submitted").count() == 2
    report = study_report(study)
    assert report["contrastive"] is True and report["segments_rated"] == 2 * 3 * 3
    assert [row["system"] for row in report["ranking"]["systems"]] == ["sysA", "sysB", "sysC"]
    assert report["systems"][0]["score"] == pytest.approx(91.0)
