"""Evaluators in study.yaml (checked, written, exported back) and in the REST API."""

import json

import pytest
import yaml
from django.test import Client
from rest_framework.test import APIClient

from accounts.models import StudyMembership
from annotations.models import Assignment
from bundles import BundleInvalid
from bundles.services import study_export_bundle, study_import_bundle
from evaluators.admin import EvaluatorForm
from evaluators.fake_llm import FakeChatServer, Reply
from evaluators.models import Evaluator, EvaluatorRun
from tests.factories import UserFactory, make_span_study
from tests.reports.test_report_sending import broker_down, restore_celery  # noqa: F401  (fixtures)

pytestmark = pytest.mark.django_db

TAXONOMY = {
    "slug": "tiny",
    "name": "Tiny",
    "categories": [
        {"key": "RepE", "label": "Repetition", "kind": "paired", "group": "language"},
        {"key": "GramE", "label": "Grammar", "group": "language"},
    ],
}
DOCUMENTS = [
    {"id": "d1", "segments": ["The cat sat on the mat.", "The cat sat on the mat again."]},
    {"id": "d2", "segments": ["A dog ran.", "It was fast."]},
]


def write_bundle(directory, evaluators, files=None):
    study = {
        "slug": "with-evaluators",
        "title": "With evaluators",
        "taxonomy": TAXONOMY,
        "evaluators": evaluators,
    }
    (directory / "study.yaml").write_text(yaml.safe_dump(study, sort_keys=False))
    (directory / "documents.jsonl").write_text("\n".join(json.dumps(d) for d in DOCUMENTS) + "\n")
    for name, text in (files or {}).items():
        path = directory / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return directory


EVALUATORS = [
    {
        "key": "gpt-judge", "kind": "llm", "base_url": "http://127.0.0.1:9/v1", "model": "judge-1",
        "api_key_env": "JUDGE_KEY", "temperature": 0, "seed": 3, "max_tokens": 800, "concurrency": 8,
        "price_input_per_1k": 0.15, "price_output_per_1k": 0.6, "prompt_file": "prompts/judge.txt",
    },
    {"key": "repeats", "kind": "builtin", "detector": "repetition", "options": {"category": "RepE", "n": 3}},
    {"key": "detector-x", "kind": "import", "predictions": "predictions/x.jsonl"},
]  # fmt: skip
PREDICTIONS = json.dumps(
    {"document": "d2", "annotations": [{"segment": 1, "category": "GramE", "text": "fast"}]}
)


def test_a_bundle_declares_evaluators_and_imported_predictions_load_as_a_run(tmp_path):
    directory = write_bundle(
        tmp_path, EVALUATORS,
        {"prompts/judge.txt": "Find errors in {{ segments|length }} segments.", "predictions/x.jsonl": PREDICTIONS + "\n"},
    )  # fmt: skip
    study = study_import_bundle(directory=directory).study
    judge = study.evaluators.get(key="gpt-judge")
    assert (judge.kind, judge.model, judge.api_key_env, judge.seed, judge.concurrency) == (
        "llm", "judge-1", "JUDGE_KEY", 3, 8
    )  # fmt: skip
    assert judge.prompt_template == "Find errors in {{ segments|length }} segments."
    assert study.evaluators.get(key="repeats").options == {"category": "RepE", "n": 3}
    run = EvaluatorRun.objects.get(evaluator__key="detector-x")
    assert run.status == "done" and run.finished == 1
    model = Assignment.objects.get(study=study, kind="model", worker__external_id="detector-x")
    assert [(a.category.key, a.text) for a in model.annotations.all()] == [("GramE", "fast")]

    # Exported back: the evaluators in study.yaml (no key, no file), the predictions as model lines.
    out = tmp_path / "out"
    study_export_bundle(study=study, directory=out)
    exported = yaml.safe_load((out / "study.yaml").read_text())
    by_key = {entry["key"]: entry for entry in exported["evaluators"]}
    assert by_key["gpt-judge"]["prompt_template"].startswith("Find errors")
    assert by_key["gpt-judge"]["price_output_per_1k"] == pytest.approx(0.6)
    assert by_key["repeats"] == {"key": "repeats", "kind": "builtin", "detector": "repetition",
                                 "options": {"category": "RepE", "n": 3}}  # fmt: skip
    lines = [json.loads(line) for line in (out / "assignments.jsonl").read_text().splitlines()]
    assert [(line["annotator"], line["kind"]) for line in lines] == [("detector-x", "model")]

    # ... and the export imports again as an equal study.
    (out / "study.yaml").write_text((out / "study.yaml").read_text().replace("with-evaluators", "again"))
    again = study_import_bundle(directory=out).study
    assert sorted(again.evaluators.values_list("key", flat=True)) == ["detector-x", "gpt-judge", "repeats"]
    assert Assignment.objects.filter(study=again, kind="model").count() == 1


@pytest.mark.parametrize(
    "evaluator, message",
    [
        ({"key": "k", "kind": "llm", "model": "m"}, "an LLM evaluator needs 'base_url'"),
        ({"key": "k", "kind": "llm", "model": "m", "base_url": "file:///etc/passwd"}, "base_url"),
        ({"key": "k", "kind": "llm", "model": "m", "base_url": "http://judge-box:8000/v1", "api_key": "sk-1"}, "never stored"),
        ({"key": "k", "kind": "llm", "model": "m", "base_url": "http://judge-box:8000/v1", "prompt_template": "{% if %}"}, "prompt"),
        ({"key": "k", "kind": "builtin", "detector": "repetition", "options": {"category": "Nope"}}, "category"),
        ({"key": "k", "kind": "builtin", "detector": "telepathy"}, "unknown detector"),
        ({"key": "k", "kind": "oracle"}, "kind"),
        ({"key": "k", "kind": "import", "predictions": "../../etc/passwd"}, "inside the bundle"),
        ({"key": "bad key!", "kind": "builtin", "detector": "repetition", "options": {"category": "RepE"}}, "key"),
        ({"key": "k", "kind": "llm", "model": "m", "base_url": "http://judge-box:8000/v1", "colour": "red"}, "unknown field"),
    ],
)  # fmt: skip
def test_bad_evaluators_are_named_with_file_and_line_and_nothing_is_written(tmp_path, evaluator, message):
    directory = write_bundle(tmp_path, [evaluator])
    with pytest.raises(BundleInvalid) as raised:
        study_import_bundle(directory=directory)
    described = raised.value.describe()
    assert "study.yaml:" in described and message in described and "evaluators[1]" in described
    assert not Evaluator.objects.exists()


def test_a_bad_predictions_file_stops_the_whole_import(tmp_path):
    directory = write_bundle(
        tmp_path, [EVALUATORS[2]], {"predictions/x.jsonl": PREDICTIONS + "\n" + '{"document": "nope"}\n'}
    )
    with pytest.raises(BundleInvalid, match="x.jsonl:2: unknown document 'nope'"):
        study_import_bundle(directory=directory)
    assert not Evaluator.objects.exists() and not EvaluatorRun.objects.exists()


@pytest.fixture
def api_study(researcher):
    study = make_span_study(documents=2, segments=2, researcher=researcher)
    analyst = UserFactory(username="analyst-x", is_staff=True)
    StudyMembership.objects.create(study=study, user=analyst, role="analyst")
    return study, analyst


def client_for(user):
    client = APIClient()
    client.force_authenticate(user)
    return client


def test_the_api_starts_reads_and_cancels_runs_for_researchers_only(
    api_study, researcher, django_capture_on_commit_callbacks
):
    study, analyst = api_study
    with FakeChatServer(responder=lambda body: Reply('{"errors": []}')) as server:
        Evaluator.objects.create(study=study, key="llm-a", kind="llm", base_url=server.base_url, model="m")
        Evaluator.objects.create(study=study, key="given", kind="import")
        refused = client_for(analyst).post(
            "/api/evaluator-runs/", {"study": study.pk, "evaluator": "llm-a"}, format="json"
        )
        assert refused.status_code == 403
        with django_capture_on_commit_callbacks(execute=True):
            started = client_for(researcher).post(
                "/api/evaluator-runs/", {"study": study.pk, "evaluator": "llm-a"}, format="json"
            )
        assert started.status_code == 202
        run = EvaluatorRun.objects.get(pk=started.json()["id"])
        run.refresh_from_db()
        assert run.status == "done" and server.calls == 2
    detail = client_for(analyst).get(f"/api/evaluator-runs/{run.pk}/")
    assert detail.status_code == 200 and detail.json()["evaluator"] == "llm-a"
    assert client_for(analyst).post(f"/api/evaluator-runs/{run.pk}/cancel/").status_code == 403
    imported = client_for(researcher).post(
        "/api/evaluator-runs/", {"study": study.pk, "evaluator": "given"}, format="json"
    )
    assert imported.status_code == 400 and "imported" in json.dumps(imported.json())
    unknown = client_for(researcher).post(
        "/api/evaluator-runs/", {"study": study.pk, "evaluator": "nope"}, format="json"
    )
    assert unknown.status_code == 400
    outsider = UserFactory(username="outsider")
    assert client_for(outsider).get(f"/api/evaluator-runs/{run.pk}/").status_code == 404


def test_the_admin_runs_evaluators_and_an_analyst_cannot_cancel(
    api_study, researcher, django_capture_on_commit_callbacks
):
    study, analyst = api_study
    evaluator = Evaluator.objects.create(
        study=study,
        key="repeats",
        kind="builtin",
        detector="repetition",
        options={"category": "RepE", "n": 2},
    )
    client = Client()
    client.force_login(researcher)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            "/admin/evaluators/evaluator/",
            {"action": "run_evaluators", "_selected_action": [evaluator.pk]},
            follow=True,
        )
    assert response.status_code == 200
    run = EvaluatorRun.objects.get()
    assert run.status == "done" and run.finished == 2
    page = client.get(f"/admin/evaluators/evaluatorrun/{run.pk}/change/")
    assert page.status_code == 200 and b"2 of 2 documents" in page.content
    # A queued run can be cancelled by the researcher, not by an analyst.
    queued = EvaluatorRun.objects.create(evaluator=evaluator, total=2)
    reader = Client()
    reader.force_login(analyst)
    assert reader.post(f"/admin/evaluators/evaluatorrun/{queued.pk}/cancel/").status_code == 403
    queued.refresh_from_db()
    assert queued.status == "queued"
    client.post(f"/admin/evaluators/evaluatorrun/{queued.pk}/cancel/")
    queued.refresh_from_db()
    assert queued.status == "cancelled"


def test_a_model_span_of_a_paired_category_without_its_earlier_span_round_trips(tmp_path):
    directory = write_bundle(tmp_path, [])
    people_line = {"document": "d1", "annotator": "w1", "kind": "main", "annotations": [
        {"segment": 1, "category": "RepE", "start": 0, "end": 3, "text": "The"}]}  # fmt: skip
    model_line = {"document": "d1", "annotator": "llm", "platform": "model", "kind": "model", "annotations": [
        {"segment": 1, "category": "RepE", "start": 0, "end": 3, "text": "The"}]}  # fmt: skip
    (directory / "study.yaml").write_text(
        (directory / "study.yaml").read_text().replace("evaluators: []\n", "")
    )
    (directory / "assignments.jsonl").write_text(json.dumps(model_line) + "\n")
    study = study_import_bundle(directory=directory).study
    annotation = Assignment.objects.get(study=study, kind="model").annotations.get()
    assert annotation.paired_segment is None and annotation.text == "The"
    # People still need the earlier span of a paired category.
    (directory / "study.yaml").write_text(
        (directory / "study.yaml").read_text().replace("with-evaluators", "p")
    )
    (directory / "assignments.jsonl").write_text(json.dumps(people_line) + "\n")
    with pytest.raises(BundleInvalid, match="needs its paired span"):
        study_import_bundle(directory=directory)


@pytest.mark.django_db(transaction=True)
def test_with_the_broker_down_a_run_request_is_refused_and_leaves_no_row(researcher, broker_down):  # noqa: F811
    study = make_span_study(documents=2, segments=1, researcher=researcher)
    Evaluator.objects.create(
        study=study, key="r", kind="builtin", detector="repetition", options={"category": "RepE"}
    )
    response = client_for(researcher).post(
        "/api/evaluator-runs/", {"study": study.pk, "evaluator": "r"}, format="json"
    )
    assert response.status_code == 503 and "not reachable" in response.json()["detail"]
    assert not EvaluatorRun.objects.exists()


def test_the_admin_form_checks_an_evaluator_by_the_same_rules_as_study_yaml(api_study):
    study, _ = api_study
    base = {"study": study.pk, "key": "k", "occurrences": "all", "response_format": "json_schema",
            "timeout_seconds": 60, "max_retries": 4, "concurrency": 4, "price_input_per_1k": 0,
            "price_output_per_1k": 0, "options": "{}"}  # fmt: skip
    llm = EvaluatorForm(data={**base, "kind": "llm", "model": "m", "prompt_template": "{% if %}"})
    assert not llm.is_valid()
    assert "an LLM evaluator needs 'base_url'" in llm.errors["base_url"][0]
    assert "prompt template" in llm.errors["prompt_template"][0]
    detector = EvaluatorForm(
        data={**base, "kind": "builtin", "detector": "repetition", "options": '{"n": 2}'}
    )
    assert not detector.is_valid() and "category" in detector.errors["options"][0]
    good = EvaluatorForm(
        data={**base, "kind": "builtin", "detector": "repetition", "options": '{"category": "RepE"}'}
    )
    assert good.is_valid(), good.errors
