"""What a researcher's evaluator settings may ask of the server: bounded numbers, prompt templates
that cannot render without end, answers cached per study, and no run done inside a web request."""

import io
import json
import threading
import time

import pytest
import yaml
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.core.management.base import CommandError
from django.db import IntegrityError, transaction
from django.test import Client

from evaluators.admin import EvaluatorForm
from evaluators.fake_llm import EMPTY_ANSWER, FakeChatServer
from evaluators.models import CachedResponse, Evaluator, EvaluatorResult, EvaluatorRun
from evaluators.services import evaluator_check, evaluator_run_request
from tests.factories import make_span_study

pytestmark = pytest.mark.django_db

# (field, a value below its bounds, a value above them, the largest value within them)
BOUNDED = [
    ("concurrency", 0, 2147483647, 64),
    ("timeout_seconds", 0.5, 601, 600),
    ("max_retries", -1, 11, 10),
    ("max_tokens", 0, 32_769, 32_768),
    ("temperature", -0.1, 2.01, 2),
    ("price_input_per_1k", "-8.0", None, "999.5"),
    ("price_output_per_1k", "-0.000001", None, "0"),
]


@pytest.fixture
def study(researcher):
    return make_span_study(documents=2, segments=2, researcher=researcher, slug="limits")


@pytest.fixture
def server():
    with FakeChatServer() as running:
        yield running


@pytest.fixture
def run(django_capture_on_commit_callbacks):
    def run_it(evaluator, **options):
        with django_capture_on_commit_callbacks(execute=True):
            started, _ = evaluator_run_request(evaluator=evaluator, here=True, **options)
        started.refresh_from_db()
        return started

    return run_it


def form(study, **fields):
    data = {
        "study": study.pk, "key": "judge", "kind": "llm", "base_url": "http://127.0.0.1:9/v1", "model": "m",
        "occurrences": "all", "response_format": "json_schema", "timeout_seconds": 60, "max_retries": 4,
        "concurrency": 4, "price_input_per_1k": 0, "price_output_per_1k": 0, "options": "{}",
    }  # fmt: skip
    return EvaluatorForm(data={**data, **fields})


def bundle_problems(tmp_path, **fields):
    """What import_study says of a bundle with one LLM evaluator holding `fields`."""
    evaluator = {"key": "judge", "kind": "llm", "base_url": "http://127.0.0.1:9/v1", "model": "m", **fields}
    study = {
        "slug": "bounded", "title": "Bounded", "evaluators": [evaluator],
        "taxonomy": {"slug": "t-b", "name": "T", "categories": [{"key": "GramE", "label": "Grammar"}]},
    }  # fmt: skip
    directory = tmp_path / "bundle"
    directory.mkdir(exist_ok=True)
    (directory / "study.yaml").write_text(yaml.safe_dump(study, sort_keys=False))
    (directory / "documents.jsonl").write_text(json.dumps({"id": "d1", "segments": ["A text."]}) + "\n")
    printed = io.StringIO()
    try:
        call_command("import_study", str(directory), stdout=printed, stderr=printed)
    except CommandError:
        return printed.getvalue()
    return ""


# --- Bounds ---


@pytest.mark.parametrize(("field", "low", "high", "most"), BOUNDED)
def test_every_setting_outside_its_bounds_is_refused_by_the_form_the_bundle_and_the_database(
    field, low, high, most, study, tmp_path
):
    for value in (low, high):
        if value is None:
            continue
        assert field in form(study, **{field: value}).errors, (field, value)
        assert f"{field}:" in bundle_problems(
            tmp_path, **{field: float(value) if isinstance(value, str) else value}
        )
        with pytest.raises(IntegrityError), transaction.atomic():  # a row written past the form
            Evaluator.objects.create(study=study, key="raw", kind="llm", **{field: value})
    assert form(study, **{field: most}).is_valid(), form(study, **{field: most}).errors
    assert not bundle_problems(tmp_path, **{field: float(most) if isinstance(most, str) else most})


def test_not_a_number_is_refused_where_comparisons_would_let_it_pass(study, tmp_path):
    assert "timeout_seconds is not finite" in bundle_problems(tmp_path, timeout_seconds=float("nan"))
    for field in ("timeout_seconds", "temperature"):
        evaluator = Evaluator(study=study, key="nan", kind="llm", **{field: float("nan")})
        with pytest.raises(ValidationError, match="Give a finite number"):
            evaluator.full_clean()


def test_a_setting_out_of_bounds_refuses_the_run_before_any_call(study, server, settings):
    settings.OUTBOUND_ALLOWED_HOSTS = ["127.0.0.1"]
    evaluator = Evaluator(study=study, key="judge", kind="llm", base_url=server.base_url, model="m",
                          concurrency=2147483647)  # fmt: skip
    assert "concurrency" in evaluator_check(evaluator)
    assert server.calls == 0


# --- Prompt templates ---

THREE_LOOPS = "{% for a in segments %}{% for b in segments %}{% for c in segments %}x{% endfor %}{% endfor %}{% endfor %}"


def test_loops_nested_three_deep_are_refused_in_admin_in_a_bundle_and_at_the_run(
    study, tmp_path, server, settings
):
    settings.OUTBOUND_ALLOWED_HOSTS = ["127.0.0.1"]
    assert "nests 3 loops" in " ".join(form(study, prompt_template=THREE_LOOPS).errors["prompt_template"])
    assert "nests 3 loops" in bundle_problems(tmp_path, prompt_template=THREE_LOOPS)
    stored = Evaluator.objects.create(study=study, key="old", kind="llm", base_url=server.base_url, model="m",
                                      prompt_template=THREE_LOOPS)  # fmt: skip
    assert "nests 3 loops" in evaluator_check(stored)
    assert server.calls == 0


@pytest.mark.parametrize(
    "template",
    [
        "{% lorem 1000000 w %}",
        '{{ document.source|ljust:"100000000" }}',
        '{{ document.source|stringformat:"0100000000d" }}',
        "{% debug %}",
        '{% include "evaluators/span_prompt.txt" %}',
        "{% load static %}",
    ],
)
def test_tags_and_filters_whose_output_does_not_follow_their_input_are_refused(template, study):
    errors = form(study, prompt_template=template).errors
    assert "does not parse" in " ".join(errors["prompt_template"])


def long_source_study(researcher, source_length):
    study = make_span_study(documents=2, segments=1, researcher=researcher, slug="long-source")
    first, second = study.documents.order_by("position")
    first.source = "a" * source_length  # one document with a long input; the other none
    first.save()
    return study, first, second


def test_a_prompt_that_grows_past_its_budget_fails_that_document_only(researcher, server, run, settings):
    settings.OUTBOUND_ALLOWED_HOSTS = ["127.0.0.1"]
    settings.EVALUATOR_PROMPT_MAX_CHARS = 20_000
    study, long_one, short_one = long_source_study(researcher, 3_000)
    # One loop, few steps, but each step writes the whole source: 3,000 x 3,000 characters.
    template = "{% for a in document.source %}{{ document.source }}{% endfor %}{{ segments.0.text }}"
    evaluator = Evaluator.objects.create(study=study, key="bomb", kind="llm", base_url=server.base_url, model="m",
                                         prompt_template=template)  # fmt: skip
    finished = run(evaluator)
    assert finished.status == "done" and finished.finished == 2
    bombed = EvaluatorResult.objects.get(run=finished, document=long_one)
    assert bombed.status == "failed" and bombed.problem.startswith("prompt: ")
    assert "was stopped" in bombed.problem
    assert EvaluatorResult.objects.get(run=finished, document=short_one).status == "ok"
    assert server.calls == 1  # only the document whose prompt could be made


def test_loops_that_produce_nothing_are_stopped_by_their_steps(researcher, server, run, settings):
    settings.OUTBOUND_ALLOWED_HOSTS = ["127.0.0.1"]
    study, long_one, _ = long_source_study(researcher, 3_000)
    template = "{% for a in document.source %}{% for b in document.source %}{% endfor %}{% endfor %}Check it."
    evaluator = Evaluator.objects.create(study=study, key="spin", kind="llm", base_url=server.base_url, model="m",
                                         prompt_template=template)  # fmt: skip
    finished = run(evaluator)
    problem = EvaluatorResult.objects.get(run=finished, document=long_one).problem
    assert "steps" in problem and "was stopped" in problem


def test_a_prompt_over_the_size_limit_is_refused_with_its_size(researcher, server, run, settings):
    settings.OUTBOUND_ALLOWED_HOSTS = ["127.0.0.1"]
    settings.EVALUATOR_PROMPT_MAX_CHARS = 2_000
    study, long_one, short_one = long_source_study(researcher, 2_500)
    evaluator = Evaluator.objects.create(study=study, key="long", kind="llm", base_url=server.base_url, model="m",
                                         prompt_template="{{ document.source }}{{ segments.0.text }}")  # fmt: skip
    finished = run(evaluator)
    problem = EvaluatorResult.objects.get(run=finished, document=long_one).problem
    assert "the prompt is 2," in problem and "over the limit of 2,000 (EVALUATOR_PROMPT_MAX_CHARS)" in problem
    assert EvaluatorResult.objects.get(run=finished, document=short_one).status == "ok"


def test_the_default_prompt_stays_within_the_limits(study, server, run, settings):
    settings.OUTBOUND_ALLOWED_HOSTS = ["127.0.0.1"]
    evaluator = Evaluator.objects.create(
        study=study, key="default", kind="llm", base_url=server.base_url, model="m"
    )
    finished = run(evaluator)
    assert finished.status == "done" and server.calls == 2
    assert not EvaluatorResult.objects.filter(run=finished).exclude(status="ok").exists()


# --- The response cache ---


def test_a_study_that_copies_another_studys_evaluator_pays_for_its_own_answers(
    researcher, server, run, settings
):
    settings.OUTBOUND_ALLOWED_HOSTS = ["127.0.0.1"]
    # Two studies with the same documents (make_span_study gives them the same texts).
    first = make_span_study(documents=2, segments=1, researcher=researcher, slug="first")
    copy = make_span_study(documents=2, segments=1, researcher=researcher, slug="copy")
    for study in (first, copy):
        study.title = "Same title"  # what the default prompt shows of the study
        study.save()
        for document in study.documents.all():
            document.external_id = f"doc{document.position}"
            document.save()
    fields = {"key": "judge", "kind": "llm", "base_url": server.base_url, "model": "m", "temperature": 0.0}
    run(Evaluator.objects.create(study=first, **fields))
    assert server.calls == 2
    second = run(Evaluator.objects.create(study=copy, **fields))
    assert server.calls == 4 and second.cached == 0  # nothing from the first study's answers
    assert CachedResponse.objects.filter(study=copy).count() == 2


def test_another_model_never_reuses_the_first_models_answers(study, server, run, settings):
    settings.OUTBOUND_ALLOWED_HOSTS = ["127.0.0.1"]
    fields = {"kind": "llm", "base_url": server.base_url, "temperature": 0.0}
    run(Evaluator.objects.create(study=study, key="small", model="small-model", **fields))
    assert server.calls == 2
    second = run(Evaluator.objects.create(study=study, key="large", model="large-model", **fields))
    assert server.calls == 4 and second.cached == 0
    assert {r.body["model"] for r in server.requests if r.is_chat} == {"small-model", "large-model"}


# --- No run in the web request ---


@pytest.mark.django_db(transaction=True)
def test_a_run_request_answers_before_the_run_does_its_work(settings, researcher):
    """The embedded default (no broker): the run goes to a thread of its own, the request answers 202."""
    settings.EAGER_JOBS_IN_BACKGROUND = True
    settings.OUTBOUND_ALLOWED_HOSTS = ["127.0.0.1"]
    released = threading.Event()

    def held(body):
        released.wait(60)  # the endpoint answers only once the test has its response
        return EMPTY_ANSWER

    study = make_span_study(documents=1, segments=1, researcher=researcher, slug="background")
    with FakeChatServer(responder=held) as server:
        Evaluator.objects.create(study=study, key="held", kind="llm", base_url=server.base_url, model="m")
        client = Client()
        client.force_login(researcher)
        response = client.post(
            "/api/evaluator-runs/", {"study": study.pk, "evaluator": "held"}, content_type="application/json"
        )
        assert response.status_code == 202
        assert EvaluatorRun.objects.get().status in ("queued", "running")  # the answer is still held
        released.set()
        deadline = time.monotonic() + 120  # bounds a hang only: no speed is asserted
        while EvaluatorRun.objects.get().status != "done" and time.monotonic() < deadline:
            time.sleep(0.05)
    run = EvaluatorRun.objects.get()
    assert run.status == "done" and run.finished == 1 and server.calls == 1
