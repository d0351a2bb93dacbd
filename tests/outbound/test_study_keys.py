"""A study's own key: stored by its researchers in admin or through the API, encrypted at rest, sent
by the study's evaluators and by nothing else, shown to nobody, rotatable; and the operator's key
variables per team."""

import hashlib
import io
import json
import logging

import pytest
import yaml
from cryptography.fernet import Fernet
from django.contrib.auth.models import Group
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from accounts.models import StudyMembership
from bundles.services import study_export_bundle
from evaluators.fake_llm import FakeChatServer
from evaluators.models import Evaluator, EvaluatorResult, EvaluatorRun
from evaluators.services import evaluator_run_request
from outbound.models import StudyCredential
from outbound.services import study_credential_store
from tests.factories import make_span_study

pytestmark = pytest.mark.django_db

KEY = "sk-study-own-key-4f1c2a9e7b"
ROTATED = "sk-study-rotated-key-83d0c"


def fingerprint(key):
    return hashlib.sha256(key.encode()).hexdigest()[:12]


@pytest.fixture
def study(researcher):
    return make_span_study(documents=2, segments=2, researcher=researcher, slug="keyed")


@pytest.fixture
def server(settings):
    with FakeChatServer() as running:
        settings.OUTBOUND_ALLOWED_HOSTS = [f"127.0.0.1:{running.port}"]
        yield running


@pytest.fixture
def run(django_capture_on_commit_callbacks):
    def run_it(evaluator):
        with django_capture_on_commit_callbacks(execute=True):
            started, _ = evaluator_run_request(evaluator=evaluator, here=True)
        started.refresh_from_db()
        return started

    return run_it


def llm(study, server, **fields):
    return Evaluator.objects.create(
        study=study, key=fields.pop("key", "judge"), kind="llm", base_url=server.base_url, model="m", **fields
    )


def researcher_client(user):
    client = Client()
    client.force_login(user)
    return client


def test_a_key_stored_in_admin_is_encrypted_sent_by_the_studys_evaluator_and_never_shown(
    study, researcher, server, run, caplog
):
    caplog.set_level(logging.DEBUG)
    client = researcher_client(researcher)
    response = client.post(
        reverse("admin:outbound_studycredential_add"), {"study": study.pk, "name": "openai", "key": KEY}
    )
    assert response.status_code == 302
    stored = StudyCredential.objects.get(study=study, name="openai")
    assert KEY not in stored.encrypted and stored.updated_by == researcher
    # At rest it is a Fernet token of the operator's key: readable with CREDENTIALS_KEYS only.
    from django.conf import settings

    assert Fernet(settings.CREDENTIALS_KEYS[0]).decrypt(stored.encrypted.encode()).decode() == KEY

    evaluator = llm(study, server, credential="openai")
    finished = run(evaluator)
    assert finished.status == "done"
    assert {request.key_fingerprint for request in server.requests if request.is_chat} == {fingerprint(KEY)}

    # Never shown again: not on its pages, not in the run's records, not in the logs.
    for url in (
        reverse("admin:outbound_studycredential_changelist"),
        reverse("admin:outbound_studycredential_change", args=[stored.pk]),
        reverse("admin:evaluators_evaluatorrun_change", args=[finished.pk]),
        reverse("admin:evaluators_evaluatorresult_changelist"),
    ):
        page = client.get(url)
        assert page.status_code == 200 and KEY not in page.content.decode(), url
    records = json.dumps(list(EvaluatorResult.objects.values("request", "response", "problem")))
    assert KEY not in records and KEY not in caplog.text


def test_the_change_page_keeps_the_key_unless_a_new_one_is_given_and_a_new_one_rotates_it(
    study, researcher, server, run
):
    credential, _ = study_credential_store(study=study, name="openai", secret=KEY, user=researcher)
    client = researcher_client(researcher)
    url = reverse("admin:outbound_studycredential_change", args=[credential.pk])
    assert client.post(url, {"key": ""}).status_code == 302  # saved without a key: the stored one stays
    evaluator = llm(study, server, credential="openai")
    run(evaluator)
    assert client.post(url, {"key": ROTATED}).status_code == 302
    evaluator.temperature = 0.5  # a new request, not the cached answer
    evaluator.save()
    run(evaluator)
    sent = [request.key_fingerprint for request in server.requests if request.is_chat]
    assert sent == [fingerprint(KEY)] * 2 + [fingerprint(ROTATED)] * 2


def test_the_api_stores_replaces_and_deletes_keys_and_never_answers_one(study, researcher, settings):
    client = researcher_client(researcher)
    created = client.post(
        "/api/study-credentials/",
        {"study": study.pk, "name": "openai", "key": KEY},
        content_type="application/json",
    )
    assert created.status_code == 201 and KEY not in created.content.decode()
    assert set(created.json()) == {"id", "study", "name", "created_at", "updated_at"}
    number = created.json()["id"]
    again = client.post(
        "/api/study-credentials/",
        {"study": study.pk, "name": "openai", "key": "x"},
        content_type="application/json",
    )
    assert again.status_code == 400 and "PUT" in again.json()["name"][0]
    replaced = client.put(
        f"/api/study-credentials/{number}/", {"key": ROTATED}, content_type="application/json"
    )
    assert replaced.status_code == 200 and ROTATED not in replaced.content.decode()
    listed = client.get("/api/study-credentials/")
    assert [row["name"] for row in listed.json()["results"]] == ["openai"]
    assert KEY not in listed.content.decode() and ROTATED not in listed.content.decode()
    bad = client.post(
        "/api/study-credentials/", {"study": study.pk, "name": "two", "key": "has a space"},
        content_type="application/json",
    )  # fmt: skip
    assert bad.status_code == 400 and "without spaces" in bad.json()["key"][0]
    assert client.delete(f"/api/study-credentials/{number}/").status_code == 204
    assert not StudyCredential.objects.exists()


def test_analysts_and_other_researchers_neither_see_nor_store_a_studys_keys(
    study, researcher, other_researcher
):
    from accounts.services import researcher_create

    analyst = researcher_create(username="analyst-k", password="pass-w0rd-for-tests")
    StudyMembership.objects.create(study=study, user=analyst, role=StudyMembership.Role.ANALYST)
    credential, _ = study_credential_store(study=study, name="openai", secret=KEY, user=researcher)
    for user in (analyst, other_researcher):
        client = researcher_client(user)
        assert client.get("/api/study-credentials/").json()["results"] == []
        assert client.get(f"/api/study-credentials/{credential.pk}/").status_code == 404
        assert client.put(
            f"/api/study-credentials/{credential.pk}/", {"key": "sk-mine"}, content_type="application/json"
        ).status_code in (403, 404)
        stored = client.post(
            "/api/study-credentials/", {"study": study.pk, "name": "mine", "key": "sk-mine"},
            content_type="application/json",
        )  # fmt: skip
        assert stored.status_code in (400, 403)
        page = client.get(reverse("admin:outbound_studycredential_changelist"))
        assert "openai" not in page.content.decode()
        assert client.get(reverse("admin:outbound_studycredential_change", args=[credential.pk])).status_code in (
            302, 403, 404,
        )  # fmt: skip
    assert list(StudyCredential.objects.values_list("name", flat=True)) == ["openai"]


def test_a_key_serves_its_own_study_only(study, researcher, server, run):
    study_credential_store(study=study, name="openai", secret=KEY, user=researcher)
    other = make_span_study(documents=1, segments=1, researcher=researcher, slug="other")
    evaluator = Evaluator(
        study=other, key="copy", kind="llm", base_url=server.base_url, model="m", credential="openai"
    )
    from evaluators.services import evaluator_check

    assert "has no stored key named 'openai'" in evaluator_check(evaluator)
    assert server.calls == 0


def test_operator_keys_can_be_rotated_and_a_lost_key_fails_clearly(study, researcher, server, run, settings):
    old, new = settings.CREDENTIALS_KEYS[0], Fernet.generate_key().decode()
    study_credential_store(study=study, name="openai", secret=KEY, user=researcher)
    settings.CREDENTIALS_KEYS = [new, old]  # the new key first, the old one still there
    out = io.StringIO()
    call_command("rotate_credentials", stdout=out)
    assert "1 study key(s)" in out.getvalue()
    settings.CREDENTIALS_KEYS = [new]  # the old one dropped
    evaluator = llm(study, server, credential="openai")
    assert run(evaluator).status == "done"
    assert {request.key_fingerprint for request in server.requests if request.is_chat} == {fingerprint(KEY)}

    settings.CREDENTIALS_KEYS = [Fernet.generate_key().decode()]  # a key it was never stored with
    evaluator.temperature = 0.3
    evaluator.save()
    failed = run(evaluator)
    assert failed.status == "failed" and "cannot be decrypted" in failed.error and KEY not in failed.error


def test_without_credentials_keys_no_key_can_be_stored(study, researcher, settings):
    settings.CREDENTIALS_KEYS = []
    client = researcher_client(researcher)
    page = client.post(
        reverse("admin:outbound_studycredential_add"), {"study": study.pk, "name": "openai", "key": KEY}
    )
    assert page.status_code == 200 and "CREDENTIALS_KEYS" in page.content.decode()
    answer = client.post(
        "/api/study-credentials/",
        {"study": study.pk, "name": "openai", "key": KEY},
        content_type="application/json",
    )
    assert answer.status_code == 400 and "CREDENTIALS_KEYS" in answer.json()["key"][0]
    assert not StudyCredential.objects.exists()


def test_a_bundle_names_the_key_and_never_holds_it(study, researcher, tmp_path):
    study_credential_store(study=study, name="openai", secret=KEY, user=researcher)
    Evaluator.objects.create(study=study, key="judge", kind="llm", base_url="https://api.example.org/v1", model="m",
                             credential="openai")  # fmt: skip
    study.refresh_from_db()  # its fields as stored (the factory leaves enum members)
    study_export_bundle(study=study, directory=tmp_path / "out")
    exported = yaml.safe_load((tmp_path / "out" / "study.yaml").read_text())
    assert exported["evaluators"][0]["credential"] == "openai"
    assert not [path for path in (tmp_path / "out").rglob("*") if path.is_file() and KEY in path.read_text()]


def test_an_operators_team_key_serves_only_studies_run_by_that_team(
    study, researcher, other_researcher, server, run, monkeypatch, settings
):
    monkeypatch.setenv("LAB_A_KEY", "sk-lab-a-key")
    settings.EVALUATOR_KEY_VARIABLES = f"LAB_A_KEY=127.0.0.1:{server.port}@lab-a"
    lab_a = Group.objects.create(name="lab-a")
    evaluator = llm(study, server, api_key_env="LAB_A_KEY")
    from evaluators.services import evaluator_check

    assert "serves only studies whose researchers are all in lab-a" in evaluator_check(evaluator)
    researcher.groups.add(lab_a)
    assert evaluator_check(evaluator) is None
    assert run(evaluator).status == "done"
    assert {request.key_fingerprint for request in server.requests if request.is_chat} == {
        fingerprint("sk-lab-a-key")
    }
    # A researcher from outside the team joins the study: the team's key no longer serves it.
    StudyMembership.objects.create(study=study, user=other_researcher)
    assert "lab-a" in evaluator_check(evaluator)
    assert EvaluatorRun.objects.count() == 1


def test_the_evaluator_form_names_the_allowed_variables_and_never_their_values(
    study, researcher, monkeypatch, settings
):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-operator-value")
    settings.EVALUATOR_KEY_VARIABLES = "OPENAI_API_KEY=api.openai.com"
    page = researcher_client(researcher).get(reverse("admin:evaluators_evaluator_add")).content.decode()
    assert "OPENAI_API_KEY (for api.openai.com)" in page and "sk-operator-value" not in page
