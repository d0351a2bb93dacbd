"""The qualification workflow as candidates and researchers go through it."""

import json

import pytest
from django.urls import reverse

from accounts.models import StudyMembership, Worker
from accounts.pseudonyms import annotator_pseudonym
from annotations.models import Assignment
from bundles.services import study_import_bundle
from qualification.models import Qualification, QualificationResult
from qualification.services import expert_assignments_generate, qualification_decide
from reports.study_report import study_report_data
from tests.bundles import study_yaml, write_bundle
from tests.factories import UserFactory, make_span_study
from tests.qualification.builders import TEXTS, annotate, make_round, span

pytestmark = pytest.mark.django_db


def submit(client, assignment):
    for segment in range(1, assignment.document.segments.count()):
        client.post(reverse("task-api-move", args=[assignment.token]), json.dumps({"segment": segment}),
                    content_type="application/json")  # fmt: skip
    return client.post(
        reverse("task-api-submit", args=[assignment.token]), "{}", content_type="application/json"
    )


def test_candidate_joins_annotates_submits_and_is_scored(client):
    qualification, document = make_round()
    annotate(document, "expert", "gold", [span(document, 1, "Carl", "CharE")], platform="expert")
    response = client.get(reverse("join", args=[qualification.study.join_key]) + "?PROLIFIC_PID=cand1")
    assignment = Assignment.objects.get(worker__external_id="cand1")
    assert assignment.kind == Assignment.Kind.QUALIFICATION and assignment.document == document
    assert response["Location"] == reverse("task-instructions", args=[assignment.token])
    item = span(document, 1, "Carl", "CharE")
    client.post(
        reverse("task-api-move", args=[assignment.token]),
        json.dumps({"segment": 1}),
        content_type="application/json",
    )
    client.post(reverse("task-api-annotations", args=[assignment.token]),
                json.dumps({**item, "client_id": "x", "paired": None}), content_type="application/json")  # fmt: skip
    assert submit(client, assignment).status_code == 200
    result = QualificationResult.objects.get(worker__external_id="cand1")
    assert result.scores["categories"]["CharE"]["f1"] == 1.0 and result.suggested == "pass"
    done = client.get(reverse("task-done", args=[assignment.token])).content.decode()
    assert reverse("qualification-feedback", args=[result.feedback_token]) in done
    # Nothing left to do in this round.
    again = client.get(reverse("join", args=[qualification.study.join_key]) + "?PROLIFIC_PID=cand1")
    assert b"every document of this qualification task" in again.content


def test_gold_is_not_on_the_candidates_task_page(client):
    qualification, document = make_round()
    annotate(document, "expert", "gold", [span(document, 1, "Carl", "CharE")], platform="expert")
    candidate = annotate(document, "cand", "qualification", [], status="assigned")
    state = client.get(reverse("task-api-state", args=[candidate.token])).json()
    assert state["annotations"] == []
    page = client.get(reverse("task-annotate", args=[candidate.token])).content.decode()
    data = json.loads(page.split('<script id="task-data" type="application/json">')[1].split("</script>")[0])
    assert data["annotations"] == []


def test_main_study_admits_approved_workers_only(client, researcher):
    qualification, document = make_round()
    main = make_span_study(documents=2, annotators_per_document=1)
    qualification.required_by.add(main)
    annotate(document, "expert", "gold", [span(document, 1, "Carl", "CharE")], platform="expert")
    for worker_id in ["good", "bad", "undecided"]:
        assignment = annotate(document, worker_id, "qualification", [span(document, 1, "Carl", "CharE")])
        from qualification.services import qualification_result_update

        qualification_result_update(qualification=qualification, worker=assignment.worker)
    results = {r.worker.external_id: r for r in QualificationResult.objects.select_related("worker")}
    qualification_decide(results=[results["good"]], status="approved", user=researcher)
    qualification_decide(
        results=[results["bad"]], status="rejected", user=researcher, message="Please re-read the guide."
    )

    join = reverse("join", args=[main.join_key])
    assert client.get(join + "?PROLIFIC_PID=good").status_code == 302
    for worker_id in ["bad", "undecided", "stranger"]:
        refused = client.get(join + f"?PROLIFIC_PID={worker_id}")
        assert refused.status_code == 200
        assert b"open to workers who passed its qualification task" in refused.content
    assert Assignment.objects.filter(study=main).count() == 1


def test_feedback_page_is_the_workers_own_and_escaped(client):
    qualification, document = make_round(default_message="Thanks <b>for</b> trying")
    annotate(document, "expert", "gold", [span(document, 1, "Carl", "CharE"), span(document, 0, "Ben left", "GramE")],
             platform="expert")  # fmt: skip
    mine = annotate(document, "cand", "qualification", [span(document, 1, "Carl", "GramE")])
    other = annotate(document, "other", "qualification", [span(document, 0, "Ben left", "GramE")])
    from qualification.services import qualification_result_update

    result = qualification_result_update(qualification=qualification, worker=mine.worker)
    qualification_result_update(qualification=qualification, worker=other.worker)
    html = client.get(reverse("qualification-feedback", args=[result.feedback_token])).content.decode()
    assert "Thanks &lt;b&gt;for&lt;/b&gt; trying" in html
    assert "you chose Grammar, the experts New character" in html
    assert "Grammar: “Ben left”" in html  # missed
    assert html.count('class="span') >= 3  # the worker's span and both gold spans are highlighted
    assert client.get(reverse("qualification-feedback", args=["not-a-token"])).status_code == 404


def test_experts_get_gold_assignments_through_their_own_task_links(client, researcher):
    qualification, document = make_round()
    expert_user = UserFactory(username="dr-expert")
    StudyMembership.objects.create(study=qualification.study, user=expert_user, role="expert")
    created = expert_assignments_generate(study=qualification.study)
    assert [(a.kind, a.worker.platform, a.worker.external_id) for a in created] == [
        ("gold", "expert", "dr-expert")
    ]
    assert expert_assignments_generate(study=qualification.study) == []  # no duplicates
    gold = created[0]
    client.post(
        reverse("task-api-move", args=[gold.token]),
        json.dumps({"segment": 1}),
        content_type="application/json",
    )
    response = client.post(reverse("task-api-annotations", args=[gold.token]),
                           json.dumps({**span(document, 1, "Carl", "CharE"), "client_id": "g"}),
                           content_type="application/json")  # fmt: skip
    assert response.status_code == 201


def test_imported_qualification_work_is_scored_and_reported(tmp_path):
    documents = [{"id": "q1", "kind": "qualification", "segments": TEXTS}]
    carl = {"segment": 1, "category": "CharE", "start": 37, "end": 41, "text": "Carl"}
    assignments = [
        {
            "document": "q1",
            "annotator": "expert",
            "platform": "expert",
            "kind": "gold",
            "annotations": [carl],
        },
        {"document": "q1", "annotator": "cand", "kind": "qualification", "annotations": [carl]},
        {"document": "q1", "annotator": "miss", "kind": "qualification", "annotations": []},
    ]
    study = study_import_bundle(directory=write_bundle(tmp_path, study=study_yaml(slug="imported-qual"),
                                                       documents=documents, assignments=assignments)).study  # fmt: skip
    assert Qualification.objects.get(study=study).results.count() == 2
    report = study_report_data(study)["qualification"]
    # Reports name annotators by pseudonym only (analysts read them).
    assert "cand" not in report and "miss" not in report
    cand, miss = (
        annotator_pseudonym(study.pk, Worker.objects.get(external_id=name).pk) for name in ("cand", "miss")
    )
    report = {"cand": report[cand], "miss": report[miss]}
    assert report["cand"]["categories"]["CharE"] == {
        "precision": 1.0,
        "recall": 1.0,
        "f1": 1.0,
        "overlap": 1.0,
    }
    assert report["cand"]["spans"] == {"matched": 1, "missed": 0, "extra": 0, "confused": 0}
    assert report["miss"]["spans"]["missed"] == 1 and report["miss"]["categories"]["CharE"]["recall"] == 0.0
    assert report["cand"]["status"] == "pending"
    assert Worker.objects.filter(external_id="cand").count() == 1


def test_attention_checks_flag_workers_who_fail_them(client):
    study = make_span_study(documents=2, segments=1, annotators_per_document=3,
                            config={"attention_every": 1, "attention_min_f1": 0.5})  # fmt: skip
    check = study.documents.create(external_id="check", kind="attention", position=9)
    check.segments.create(index=0, text=TEXTS[1], sentences=[[0, 31], [32, 47]])
    annotate(check, "expert", "gold", [span(check, 1, "Carl", "CharE") | {"segment": 0}], platform="expert")
    join = reverse("join", args=[study.join_key]) + "?PROLIFIC_PID=sleepy"
    first = Assignment.objects.get(pk=_join(client, join))
    assert first.document.kind == "main"
    submit(client, first)
    second = Assignment.objects.get(pk=_join(client, join))
    assert second.document == check  # after one main document, the attention check
    submit(client, second)  # marked nothing
    second.refresh_from_db()
    assert second.flagged and second.score["spans"]["missed"] == 1


def _join(client, url):
    response = client.get(url)
    token = response["Location"].split("/")[2]
    return Assignment.objects.get(token=token).pk
