"""An evaluator run as the suggestion source of an assisted study: its placed spans become the
suggestions, by command and by admin action, and are fixed once a worker decided on one."""

import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client

from annotations.models import Assignment
from evaluators.fake_llm import FakeChatServer
from evaluators.models import Evaluator, EvaluatorRun
from evaluators.services import evaluator_run_request
from protocols.span.assistance.decisions import suggestion_decide
from protocols.span.models import ErrorAnnotation, Suggestion
from tests.factories import make_span_study

pytestmark = pytest.mark.django_db


def answer(*errors):
    return json.dumps({"errors": list(errors)})


@pytest.fixture
def study(researcher):
    # Segment s of document d: "Segment s of document d. Anna met Ben."
    return make_span_study(
        documents=2, segments=2, researcher=researcher, config={"assistance": {"share": 0.5}}
    )


@pytest.fixture
def finished_run(study, django_capture_on_commit_callbacks):
    found = [
        {"category": "CharE", "span": "Anna", "segment": 2, "occurrence": None, "earlier_span": None,
         "explanation": "who?"},
        {"category": "RepE", "span": "Ben", "segment": 2, "occurrence": None, "earlier_span": "Ben",
         "explanation": "again"},
        {"category": "CharE", "span": "Zoe", "segment": 1, "occurrence": None, "earlier_span": None,
         "explanation": "not in the text"},
    ]  # fmt: skip
    with FakeChatServer(responder=lambda body: answer(*found)) as server:
        evaluator = Evaluator.objects.create(
            study=study, key="llm", kind="llm", base_url=server.base_url, model="m", concurrency=1,
            max_retries=0, timeout_seconds=5,
        )  # fmt: skip
        with django_capture_on_commit_callbacks(execute=True):
            run, _ = evaluator_run_request(evaluator=evaluator)
    run.refresh_from_db()
    assert run.status == "done"
    return run


def model_spans(run):
    rows = ErrorAnnotation.objects.filter(
        assignment__kind="model", assignment__worker__external_id=run.evaluator.key
    )
    return sorted(
        (a.assignment.document_id, a.category.key, a.segment.index, a.start, a.end, a.text,
         a.paired_segment and a.paired_segment.index, a.paired_start, a.paired_end)
        for a in rows.select_related("category", "segment", "paired_segment", "assignment")
    )  # fmt: skip


def suggestions_of(study):
    return sorted(
        (s.document_id, s.category.key, s.segment.index, s.start, s.end, s.text,
         s.paired_segment and s.paired_segment.index, s.paired_start, s.paired_end)
        for s in Suggestion.objects.filter(document__study=study).select_related("category", "segment", "paired_segment")
    )  # fmt: skip


def test_the_command_copies_exactly_the_spans_the_run_placed(study, finished_run, capsys):
    call_command("suggest_from_run", str(finished_run.pk))
    assert "4 suggestions on 2 documents" in capsys.readouterr().out
    assert suggestions_of(study) == model_spans(finished_run)  # Zoe, not in the text, is not suggested
    assert {s.source for s in Suggestion.objects.all()} == {f"evaluator llm, run {finished_run.pk}"}
    paired = Suggestion.objects.filter(category__key="RepE").first()
    assert paired.paired_text == "Ben" and paired.text == "Ben"


def test_refused_before_the_run_is_done_and_once_workers_decided(study, finished_run):
    EvaluatorRun.objects.filter(pk=finished_run.pk).update(status="running")
    with pytest.raises(CommandError, match="only a finished run"):
        call_command("suggest_from_run", str(finished_run.pk))
    EvaluatorRun.objects.filter(pk=finished_run.pk).update(status="done")
    call_command("suggest_from_run", str(finished_run.pk))
    first = Suggestion.objects.order_by("pk").first()
    worker_assignment = Assignment.objects.create(
        study=study,
        document=first.document,
        worker=finished_run.evaluator.study.assignments.first().worker,
        arm="suggestions",
        current_segment=1,
    )
    suggestion_decide(
        token=worker_assignment.token, suggestion_id=first.pk, data={"annotation": None, "seconds": 1}
    )
    with pytest.raises(CommandError, match="can no longer be replaced"):
        call_command("suggest_from_run", str(finished_run.pk))
    with pytest.raises(CommandError, match="no evaluator run"):
        call_command("suggest_from_run", "999999")


def test_the_admin_action_for_the_studys_researchers_only(study, finished_run, researcher, other_researcher):
    url = "/admin/evaluators/evaluator/"
    body = {"action": "use_as_suggestions", "_selected_action": [str(finished_run.evaluator.pk)]}
    outsider = Client()
    outsider.force_login(other_researcher)
    outsider.post(url, body)
    assert not Suggestion.objects.exists()
    client = Client()
    client.force_login(researcher)
    response = client.post(url, body, follow=True)
    assert "4 suggestions on 2 documents" in response.content.decode()
    assert Suggestion.objects.count() == 4
