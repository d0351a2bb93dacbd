"""ESA-AI: a judge's errors pre-filled for the suggestion arm of an assisted ESA (or MQM) study,
marked as suggestions and removable; the control arm sees none of them; the report compares
the arms. The judge is asked over real HTTP (a local OpenAI-compatible server)."""

import json

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from annotations.models import Assignment
from annotations.services.joining import assignment_join
from evaluators.fake_llm import FakeChatServer, Reply
from evaluators.models import Evaluator, EvaluatorRun
from evaluators.services import evaluator_run_request
from evaluators.suggesting import use_run_as_suggestions
from protocols.translation.assistance.prefill import suggestions_prefill
from protocols.translation.assistance.sources import SuggestionsRefused
from protocols.translation.models import SegmentScore, SuggestedError, SuggestionPrefill, TranslationError
from reports.models import Report
from reports.study_report import study_report_data
from studies.config import config_problems
from tests.factories import AssignmentFactory, WorkerFactory
from tests.translation.studies import make_translation_study

pytestmark = [
    pytest.mark.django_db,
    pytest.mark.usefixtures("eager_celery"),
]  # runs go on in this process, broker or not
ASSISTED = {"assistance": {"share": 0.5, "seed": 1}}


@pytest.fixture(autouse=True)
def _local_endpoint(settings):
    settings.OUTBOUND_ALLOWED_HOSTS = ["127.0.0.1"]


def judge_run(study, capture, answers):
    """A finished run of an LLM judge answering `answers` ({system: segments}) in document order."""
    with FakeChatServer() as server:
        documents = study.documents.order_by("position")
        server.add(*[Reply(json.dumps({"segments": answers.get(d.system, [])})) for d in documents])
        evaluator = Evaluator.objects.create(study=study, key="gpt-judge", kind="llm", base_url=server.base_url,
                                             model="m", concurrency=1, max_retries=0)  # fmt: skip
        with capture(execute=True):
            run, _ = evaluator_run_request(evaluator=evaluator)
    run.refresh_from_db()
    assert run.status == EvaluatorRun.Status.DONE
    return run


def esa_error(span, severity="Major"):
    return {"span": span, "side": "target", "severity": severity, "explanation": ""}


ANSWERS = {
    "sysA": [{"segment": 1, "errors": [esa_error("barks", "Minor")], "score": 80}],
    "sysB": [
        {"segment": 1, "errors": [esa_error("loudly", "Minor")], "score": 70},
        {"segment": 2, "errors": [esa_error("sleeps."), esa_error("The cat")], "score": 30},
    ],
}


@pytest.fixture
def study(django_capture_on_commit_callbacks):
    """An assisted ESA study whose suggestions are a judge's four errors (one in sysA, three in sysB)."""
    study = make_translation_study("esa", taxonomy=None, config=ASSISTED, annotators_per_document=2)
    run = judge_run(study, django_capture_on_commit_callbacks, ANSWERS)
    assert use_run_as_suggestions(run) == (4, 2)
    return study


def page_data(client, assignment):
    response = client.get(reverse("task-annotate", args=[assignment.token]))
    assert response.status_code == 200
    return response, response.context["task_data"]


def test_the_assistance_option_is_read_for_esa_and_mqm_and_checked():
    assert config_problems(ASSISTED, protocol="esa") == config_problems(ASSISTED, protocol="mqm") == []
    [problem] = config_problems({"assistance": {"share": 1}}, protocol="esa")
    assert "strictly between 0 and 1" in problem.message
    [refused] = config_problems(ASSISTED, protocol="da")
    assert "is for" in refused.message and "not da" in refused.message


def test_workers_are_drawn_into_arms_and_the_suggestion_arm_starts_with_the_judges_errors(study):
    joined = [assignment_join(study=study, platform="prolific", external_id=f"w{n}") for n in range(4)]
    assert sorted(a.arm for a in joined) == ["control", "control", "suggestions", "suggestions"]
    client = Client()
    for assignment in joined:
        response, data = page_data(client, assignment)
        suggested = [e for e in data["errors"] if e.get("suggested")]
        if assignment.arm == "control":
            assert data["errors"] == []
            own = {"client_id": "own-1", "segment": 0, "side": "target", "start": 0, "end": 3, "severity": "Minor",
                   "text": assignment.document.segments.get(index=0).text[:3]}  # fmt: skip
            added = client.post(reverse("task-api-translation-errors", args=[assignment.token]), json.dumps(own),
                                content_type="application/json")  # fmt: skip
            assert added.status_code == 201 and b"suggest" not in added.content
            state = client.get(reverse("task-api-state", args=[assignment.token])).content
            # Nothing of the suggestions, not even the word, in the control arm's page or state.
            assert b"suggest" not in response.content.lower() and b"suggest" not in state.lower()
        elif assignment.document.system == "sysA":
            assert [(e["segment"], e["start"], e["end"], e["text"], e["severity"]) for e in suggested] == [
                (0, 8, 13, "barks", "Minor")
            ]
        else:
            assert [e["text"] for e in suggested] == ["loudly", "The cat", "sleeps."]


def test_a_suggestion_is_removed_like_an_own_error_and_does_not_come_back(study):
    assignment = AssignmentFactory(
        study=study, document=study.documents.get(system="sysB"), arm="suggestions"
    )
    client = Client()
    _, data = page_data(client, assignment)
    loudly = next(e for e in data["errors"] if e["text"] == "loudly")
    removed = client.delete(
        reverse("task-api-translation-error", args=[assignment.token, loudly["client_id"]])
    )
    assert removed.status_code == 200
    _, again = page_data(client, assignment)
    assert [e["text"] for e in again["errors"]] == ["The cat", "sleeps."]
    assert SuggestionPrefill.objects.get(assignment=assignment).suggestions == 3
    # A kept suggestion is the worker's own error from now on: the score warning counts it.
    for path, body in (("scores", {"segment": 0, "score": 70}), ("move", {"segment": 1}),
                       ("scores", {"segment": 1, "score": 95})):  # fmt: skip
        answer = client.post(reverse(f"task-api-translation-{path}", args=[assignment.token]), json.dumps(body),
                             content_type="application/json")  # fmt: skip
        assert answer.status_code == 200, answer.content
    assert "Major error" in answer.json()["warning"]


def test_only_main_work_of_the_suggestion_arm_is_prefilled(study):
    document = study.documents.get(system="sysB")
    for arm, kind in (("control", "main"), ("suggestions", "gold"), ("", "main")):
        assignment = AssignmentFactory(study=study, document=document, arm=arm, kind=kind)
        assert suggestions_prefill(assignment=assignment) == 0
    submitted = AssignmentFactory(study=study, document=document, arm="suggestions", status="submitted")
    assert suggestions_prefill(assignment=submitted) == 0
    assert not TranslationError.objects.filter(suggestion__isnull=False).exists()


def test_once_a_worker_has_them_the_suggestions_are_fixed(study, capsys):
    assignment = AssignmentFactory(
        study=study, document=study.documents.get(system="sysA"), arm="suggestions"
    )
    suggestions_prefill(assignment=assignment)
    run = EvaluatorRun.objects.get()
    with pytest.raises(SuggestionsRefused, match="can no longer be replaced"):
        use_run_as_suggestions(run)
    with pytest.raises(Exception, match="can no longer be replaced"):
        call_command("suggest_from_run", str(run.pk))
    assert SuggestedError.objects.count() == 4


def submit(assignment, scores):
    for index, score in enumerate(scores):
        SegmentScore.objects.create(
            assignment=assignment, segment=assignment.document.segments.get(index=index), score=score
        )
    Assignment.objects.filter(pk=assignment.pk).update(status="submitted", submitted_at=timezone.now())


def mark(assignment, index, text, severity="Major"):
    segment = assignment.document.segments.get(index=index)
    start = segment.text.index(text)
    TranslationError.objects.create(assignment=assignment, segment=segment, start=start, end=start + len(text),
                                    text=text, severity=severity, client_id=f"own-{text}")  # fmt: skip


def test_the_report_compares_the_arms(study, researcher):
    study.memberships.create(user=researcher, role="researcher")
    documents = {d.system: d for d in study.documents.all()}
    # Suggestion arm: one worker per document. In sysB they remove "The cat" and keep the rest.
    for system, removed in (("sysA", []), ("sysB", ["The cat"])):
        assignment = AssignmentFactory(study=study, document=documents[system], arm="suggestions",
                                       worker=WorkerFactory())  # fmt: skip
        suggestions_prefill(assignment=assignment)
        TranslationError.objects.filter(assignment=assignment, text__in=removed).delete()
        submit(assignment, [60, 50, 90])
    # Control arm: marks "barks" (confirming it) and "sleeps" (half of "sleeps." and more); not loudly.
    control_a = AssignmentFactory(
        study=study, document=documents["sysA"], arm="control", worker=WorkerFactory()
    )
    mark(control_a, 0, "barks")
    submit(control_a, [80, 80, 100])
    control_b = AssignmentFactory(
        study=study, document=documents["sysB"], arm="control", worker=WorkerFactory()
    )
    mark(control_b, 1, "sleeps")
    submit(control_b, [90, 70, 100])

    assistance = study_report_data(study)["assistance"]
    assert assistance["suggestions"] == 4 and assistance["prefilled"] == 2
    kept = assistance["kept"]
    assert (kept["shown"], kept["kept"]) == (4, 3)
    # Confirmed: barks, sleeps. (both kept); not confirmed: loudly (kept), The cat (removed).
    assert (kept["confirmed"]["shown"], kept["confirmed"]["kept"]) == (2, 2)
    assert (kept["unconfirmed"]["shown"], kept["unconfirmed"]["kept"], kept["unconfirmed"]["rate"]) == (
        2,
        1,
        0.5,
    )
    assert kept["severities"]["Minor"]["rate"] == 1.0 and kept["severities"]["Major"]["rate"] == 0.5
    overlap = assistance["overlap"]
    # Suggested characters: barks 5; loudly 6 + The cat 7 + sleeps. 7 = 25. The suggestion arm marks 18
    # (all but The cat); the control arm barks and sleeps: 11.
    assert overlap["suggestions"]["suggested_marked"] == pytest.approx(18 / 25)
    assert overlap["control"]["suggested_marked"] == pytest.approx(11 / 25)
    difference = assistance["differences"]["suggested_marked"]
    assert difference["value"] == pytest.approx(7 / 25) and difference["documents"] == 2
    assert len(difference["interval"]) == 2
    score = assistance["differences"]["mean_score"]
    assert score["value"] == pytest.approx((400 / 6) - (520 / 6))

    report = Report.objects.create(study=study, status="done", result=study_report_data(study))
    client = Client()
    client.force_login(researcher)
    page = client.get(f"/admin/reports/report/{report.pk}/change/").content.decode()
    assert 'id="assistance-arms-table"' in page and 'id="assistance-kept-table"' in page
    assert "not confirmed by the control arm</td><td>2</td><td>1</td><td>0.500</td>" in page
