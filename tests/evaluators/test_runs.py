"""Evaluator runs end to end: the real `openai` client talks HTTP to a local OpenAI-compatible
server answering from a script; built-in detectors; imported predictions; resuming and caching."""

import json
import logging
import threading
import time

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client

from accounts.models import StudyMembership
from annotations.models import Assignment
from evaluators.fake_llm import FakeChatServer, Refusal, Reply, Slow, Status
from evaluators.models import CachedResponse, Evaluator, EvaluatorResult, EvaluatorRun
from evaluators.services import RunRefused, evaluator_run_cancel, evaluator_run_execute, evaluator_run_request
from protocols.span.models import ErrorAnnotation
from tests.factories import make_span_study

pytestmark = pytest.mark.django_db

# Seconds that only bound a hang (a test that would otherwise wait for ever); never a speed.
HANG = 60


def answer(*errors):
    return json.dumps({"errors": list(errors)})


def error(category, span, segment=None, occurrence=None, earlier=None, explanation="why"):
    return {
        "category": category, "span": span, "segment": segment, "occurrence": occurrence,
        "earlier_span": earlier, "explanation": explanation,
    }  # fmt: skip


@pytest.fixture
def run_now(django_capture_on_commit_callbacks):
    """Request a run and let its job go (Celery eager: it runs here) once the transaction commits."""

    def request(**arguments):
        with django_capture_on_commit_callbacks(execute=True):
            return evaluator_run_request(**arguments)

    return request


@pytest.fixture
def server():
    with FakeChatServer() as running:
        yield running


@pytest.fixture
def study():
    # Segment s of document d: "Segment s of document d. Anna met Ben."
    return make_span_study(documents=3, segments=2)


def llm(study, server, **fields):
    defaults = {
        "key": "llm-a", "kind": Evaluator.Kind.LLM, "base_url": server.base_url, "model": "local-model",
        "temperature": 0.0, "seed": 7, "max_retries": 2, "timeout_seconds": 5, "concurrency": 1,
        "price_input_per_1k": "0.5", "price_output_per_1k": "1.5",
    }  # fmt: skip
    return Evaluator.objects.create(study=study, **{**defaults, **fields})


def spans_of(evaluator, document):
    assignment = Assignment.objects.get(document=document, worker__external_id=evaluator.key, kind="model")
    return sorted(
        (a.category.key, a.segment.index, a.start, a.end, a.text, a.paired_segment and a.paired_segment.index)
        for a in ErrorAnnotation.objects.filter(assignment=assignment).select_related("category", "segment")
    )


def test_answers_become_model_annotations_located_exactly(study, server, run_now):
    evaluator = llm(study, server)
    first, second, third = study.documents.order_by("position")
    server.add(
        Reply(answer(error("CharE", "Ben", segment=2), error("RepE", "Anna met Ben", segment=2, earlier="Anna met Ben"))),
        Reply(answer(error("CharE", "Anna"))),  # no segment: every occurrence
        Reply(answer(error("CharE", "Zed"))),  # not in the text
    )  # fmt: skip
    run, created = run_now(evaluator=evaluator)
    assert created
    run.refresh_from_db()
    assert run.status == "done" and run.finished == 3 and run.calls == 3

    assert spans_of(evaluator, first) == [
        ("CharE", 1, 34, 37, "Ben", None),
        ("RepE", 1, 25, 37, "Anna met Ben", 0),
    ]
    assert spans_of(evaluator, second) == [
        ("CharE", 0, 25, 29, "Anna", None),
        ("CharE", 1, 25, 29, "Anna", None),
    ]
    assert spans_of(evaluator, third) == []
    kept = EvaluatorResult.objects.get(run=run, document=third).items
    assert [(item["span"], item["status"]) for item in kept] == [("Zed", "not_found")]
    # The model's annotations are of their own kind, by a worker named after the evaluator.
    assignment = Assignment.objects.filter(kind="model").first()
    assert assignment.worker.platform == "model" and assignment.status == "submitted"


def test_requests_carry_parameters_schema_and_key_from_the_environment(
    study, server, monkeypatch, run_now, caplog
):
    caplog.set_level(logging.DEBUG)  # every logger, the openai and HTTP clients' included
    monkeypatch.setenv("EVAL_KEY_FOR_TEST", "sk-secret-value-123")
    evaluator = llm(study, server, api_key_env="EVAL_KEY_FOR_TEST", max_tokens=300)
    run_now(evaluator=evaluator, documents=[study.documents.first().external_id])
    (received,) = [request for request in server.requests if request.is_chat]
    assert received.has_key
    body = received.body
    assert body["model"] == "local-model" and body["temperature"] == 0.0 and body["seed"] == 7
    assert body["max_tokens"] == 300
    assert body["response_format"]["type"] == "json_schema"
    schema = body["response_format"]["json_schema"]["schema"]
    assert schema["properties"]["errors"]["items"]["properties"]["category"]["enum"] == [
        "CharE",
        "RepE",
        "SceneE",
    ]
    prompt = body["messages"][-1]["content"]
    assert "[Segment 1]" in prompt and "Anna met Ben." in prompt and "CharE" in prompt
    # The key is sent, never stored.
    result = EvaluatorResult.objects.get()
    assert "sk-secret-value-123" not in json.dumps(result.request) + result.response
    assert "sk-secret-value-123" not in json.dumps(list(Evaluator.objects.values()), default=str)
    assert caplog.records and "sk-secret-value-123" not in caplog.text


def test_a_missing_key_variable_fails_the_run_with_a_clear_error(
    study, server, monkeypatch, run_now, settings
):
    settings.EVALUATOR_KEY_VARIABLES = "NOT_SET_ANYWHERE=127.0.0.1"  # allowed by the operator, but not set
    monkeypatch.delenv("NOT_SET_ANYWHERE", raising=False)
    evaluator = llm(study, server, api_key_env="NOT_SET_ANYWHERE")
    run, _ = run_now(evaluator=evaluator)
    run.refresh_from_db()
    assert run.status == "failed" and "NOT_SET_ANYWHERE" in run.error
    assert server.calls == 0


def test_bad_answers_are_recorded_per_document_never_a_crashed_run(study, server, run_now):
    evaluator = llm(study, server, max_retries=1)
    server.add(
        Reply("this is not JSON"),
        Reply(answer(error("NoSuchE", "Anna"), error("CharE", "Ben", segment=1))),
        Refusal("I cannot help with that."),
    )
    run, _ = run_now(evaluator=evaluator)
    run.refresh_from_db()
    assert run.status == "done"
    by_status = {r.document.external_id: r for r in run.results.select_related("document")}
    first, second, third = (d.external_id for d in study.documents.order_by("position"))
    assert by_status[first].status == "malformed" and by_status[first].response == "this is not JSON"
    assert by_status[second].status == "ok"
    assert [i["status"] for i in by_status[second].items] == ["unknown_category", "found"]
    assert by_status[third].status == "refused" and "cannot help" in by_status[third].problem


def test_429_and_5xx_are_retried_and_a_document_fails_once_its_retries_are_used(study, server, run_now):
    evaluator = llm(study, server, max_retries=2, concurrency=1)
    soon = {"retry-after-ms": "20"}
    server.add(
        Status(429, headers=soon), Reply(answer(error("CharE", "Ben", segment=1))),
        Status(503, headers=soon), Reply(answer()),
        Status(500, headers=soon), Status(502, headers=soon), Status(503, headers=soon),
    )  # fmt: skip
    run, _ = run_now(evaluator=evaluator)
    run.refresh_from_db()
    results = list(run.results.order_by("document__position"))
    assert [r.status for r in results] == ["ok", "ok", "failed"]
    assert "HTTP 503" in results[2].problem
    assert run.calls == 7  # 2 + 2 + 3 attempts
    assert results[0].items[0]["status"] == "found"


def test_an_answer_that_never_comes_times_out_on_every_attempt(server, run_now):
    study = make_span_study(documents=1, segments=2)
    evaluator = llm(study, server, max_retries=2, timeout_seconds=1)  # the least the bounds allow
    server.add(*[Slow(HANG)] * 3)  # held until the server stops: later than any timeout
    run, _ = run_now(evaluator=evaluator)
    run.refresh_from_db()
    [result] = run.results.all()
    assert result.status == "failed" and "timed out" in result.problem
    assert run.status == "done" and run.calls == 3  # 1 + 2 retries


def test_an_unchanged_rerun_makes_no_call_and_costs_nothing(study, server, run_now):
    evaluator = llm(study, server)
    server.add(
        *[Reply(answer(error("CharE", "Ben", segment=1)), prompt_tokens=1000, completion_tokens=100)] * 3
    )
    first, _ = run_now(evaluator=evaluator)
    first.refresh_from_db()
    assert server.calls == 3 and first.calls == 3
    assert first.prompt_tokens == 3000 and first.completion_tokens == 300
    assert float(first.cost) == pytest.approx(3 * (1000 * 0.5 + 100 * 1.5) / 1000)
    second, _ = run_now(evaluator=evaluator)
    second.refresh_from_db()
    assert server.calls == 3  # nothing new was sent
    assert second.calls == 0 and second.cached == 3 and float(second.cost) == 0
    # The annotations are those of the answers, once.
    document = study.documents.order_by("position").first()
    assert spans_of(evaluator, document) == [("CharE", 0, 34, 37, "Ben", None)]
    # A changed parameter is a new request.
    evaluator.temperature = 0.7
    evaluator.save()
    run_now(evaluator=evaluator, documents=[document.external_id])
    assert server.calls == 4
    assert CachedResponse.objects.count() == 4  # one per document's prompt, and the new one


def test_a_resumed_run_does_not_ask_again_for_finished_documents(study, server):
    evaluator = llm(study, server)
    run = EvaluatorRun.objects.create(evaluator=evaluator, total=3, status="running")
    # A worker was killed after the first document: its result is stored, the run still says running.
    first = study.documents.order_by("position").first()
    EvaluatorResult.objects.create(run=run, document=first, status="ok")
    evaluator_run_execute(run_id=run.pk)  # heartbeat empty: taken to be stale, resumed
    run.refresh_from_db()
    assert run.status == "done" and server.calls == 2
    assert run.results.count() == 3


def test_a_redelivered_job_of_a_finished_run_does_nothing(study, server, run_now):
    evaluator = llm(study, server)
    run, _ = run_now(evaluator=evaluator)
    assert server.calls == 3
    evaluator_run_execute(run_id=run.pk)
    assert server.calls == 3


def test_cancel_stops_a_queued_run(study, server):
    evaluator = llm(study, server)
    run = EvaluatorRun.objects.create(evaluator=evaluator, total=3)
    evaluator_run_cancel(run=run)
    evaluator_run_execute(run_id=run.pk)
    run.refresh_from_db()
    assert run.status == "cancelled" and server.calls == 0


def test_endpoint_urls_must_be_http(study):
    evaluator = Evaluator(study=study, key="bad", kind="llm", base_url="file:///etc/passwd", model="m")
    with pytest.raises(Exception, match="http"):
        evaluator.full_clean()


def test_repetition_detector_marks_repeated_ngrams_as_paired_spans(study, run_now):
    document = study.documents.order_by("position").first()
    evaluator = Evaluator.objects.create(
        study=study,
        key="repeats",
        kind="builtin",
        detector="repetition",
        options={"category": "RepE", "n": 3},
    )
    run, _ = run_now(evaluator=evaluator, documents=[document.external_id])
    run.refresh_from_db()
    assert run.status == "done" and run.calls == 0
    # "of document 0. Anna met Ben." repeats across the two segments.
    assert spans_of(evaluator, document) == [("RepE", 1, 10, 37, "of document 0. Anna met Ben", 0)]


def test_bad_detector_options_refuse_the_run(study, run_now):
    evaluator = Evaluator.objects.create(
        study=study, key="r", kind="builtin", detector="repetition", options={}
    )
    with pytest.raises(RunRefused, match="category"):
        evaluator_run_request(evaluator=evaluator)
    assert not EvaluatorRun.objects.exists()


def test_imported_predictions_load_as_a_finished_run(study, tmp_path):
    evaluator = Evaluator.objects.create(study=study, key="snac-model", kind="import")
    first, second, _ = (d.external_id for d in study.documents.order_by("position"))
    path = tmp_path / "predictions.jsonl"
    lines = [
        {"document": first, "annotations": [
            {"segment": 0, "category": "CharE", "start": 25, "end": 29, "text": "Anna"},
            {"segment": 1, "category": "RepE", "text": "Anna met Ben",
             "paired": {"segment": 0, "start": 25, "end": 37, "text": "Anna met Ben"}},
        ]},
        {"document": second, "annotations": [{"segment": 1, "category": "CharE", "text": "nowhere"}]},
    ]  # fmt: skip
    path.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    call_command("run_evaluator", study.slug, "snac-model", "--predictions", str(path))
    run = EvaluatorRun.objects.get()
    assert run.status == "done" and run.finished == 2
    document = study.documents.get(external_id=first)
    assert spans_of(evaluator, document) == [
        ("CharE", 0, 25, 29, "Anna", None), ("RepE", 1, 25, 37, "Anna met Ben", 0)
    ]  # fmt: skip
    (missing,) = run.results.get(document__external_id=second).items
    assert missing["status"] == "not_found"


def test_a_malformed_predictions_file_names_line_and_problem_and_writes_nothing(study, tmp_path):
    Evaluator.objects.create(study=study, key="snac-model", kind="import")
    path = tmp_path / "predictions.jsonl"
    first = study.documents.order_by("position").first().external_id
    path.write_text(
        json.dumps({"document": first, "annotations": [{"segment": 0, "category": "CharE", "text": "Anna"}]})
        + "\n{not json\n"
        + json.dumps({"document": "no-such-doc", "annotations": []})
        + "\n"
    )
    with pytest.raises(CommandError) as raised:
        call_command("run_evaluator", study.slug, "snac-model", "--predictions", str(path))
    message = str(raised.value)
    assert (
        "predictions.jsonl:2:" in message and "predictions.jsonl:3: unknown document 'no-such-doc'" in message
    )
    assert not EvaluatorRun.objects.exists() and not Assignment.objects.filter(kind="model").exists()


def test_model_annotations_stay_out_of_the_people_s_figures(study, server, run_now):
    from reports.study_report import study_report_data

    evaluator = llm(study, server)
    server.add(*[Reply(answer(error("CharE", "Anna")))] * 3)
    run_now(evaluator=evaluator)
    report = study_report_data(study)
    assert report["annotators"] == {}
    assert report["distribution"]["by_category"]["CharE"]["count"] == 0
    assert report["categories"]["CharE"]["spans"] == 0


@pytest.mark.django_db(transaction=True)
def test_the_command_prints_the_run_and_refuses_unknown_keys(study, server, capsys):
    llm(study, server)
    call_command("run_evaluator", study.slug, "llm-a")  # no broker: the job runs as the request commits
    out = capsys.readouterr().out
    assert "3 of 3 documents" in out and "calls: 3" in out
    with pytest.raises(CommandError, match="no evaluator 'nope'"):
        call_command("run_evaluator", study.slug, "nope")


def test_calls_overlap_up_to_the_evaluator_s_concurrency_and_no_further(run_now):
    # The server holds the first calls until three are held at once, so the run finishes only if
    # it keeps three calls in flight; the server counts the most it ever held. Once three are held
    # they linger a moment, so that a fourth call, were one sent, is held beside them: the pause
    # can only let an overshooting run go unseen on a slow machine, never fail a correct one.
    study = make_span_study(documents=8, segments=1)
    in_flight, most, lock = [0], [0], threading.Lock()
    three_held, released = threading.Event(), threading.Event()

    def responder(body):
        with lock:
            in_flight[0] += 1
            most[0] = max(most[0], in_flight[0])
            third = in_flight[0] == 3 and not three_held.is_set()
        if third:
            three_held.set()
            time.sleep(0.2)
            released.set()
        if not released.wait(timeout=HANG):
            released.set()  # three never came: every call goes now, and the test fails below
        with lock:
            in_flight[0] -= 1
        return answer()

    with FakeChatServer(responder=responder) as server:
        evaluator = llm(study, server, concurrency=3, timeout_seconds=2 * HANG)
        run, _ = run_now(evaluator=evaluator)
    run.refresh_from_db()
    assert three_held.is_set(), "three calls were never in flight at once"
    assert run.status == "done" and run.calls == 8
    assert most[0] == 3  # never more than the limit


def test_the_raw_exchange_is_escaped_on_its_admin_page(study, server, run_now, researcher):
    StudyMembership.objects.create(study=study, user=researcher)
    evaluator = llm(study, server)
    server.add(Reply("<script>alert('answer')</script>"), Reply(answer()), Reply(answer()))
    run, _ = run_now(evaluator=evaluator)
    result = EvaluatorResult.objects.get(run=run, status="malformed")
    client = Client()
    client.force_login(researcher)
    page = client.get(f"/admin/evaluators/evaluatorresult/{result.pk}/change/").content.decode()
    assert "&lt;script&gt;alert(" in page and "<script>alert(" not in page
