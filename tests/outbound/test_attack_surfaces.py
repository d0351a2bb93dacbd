"""Every surface through which an evaluator is configured or run, tried with every server secret's
variable name as its key and with every kind of address the platform must not call.

Surfaces: admin's evaluator form, admin's bundle upload, `import_study`, the REST API's run
request, and `run_evaluator`. Each attempt must be refused, and nothing may connect: a listener
on every local address of the attacked port counts the connections it receives, and every
connect this process attempts is recorded. The control at the end shows the listener does
count a call the operator allows.
"""

import io
import json
import re
import zipfile

import pytest
import yaml
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError
from django.test import Client
from django.urls import reverse

from evaluators.models import Evaluator, EvaluatorRun
from outbound.credentials import PLATFORM_SECRETS
from studies.models import Study
from tests.factories import make_span_study
from tests.outbound.conftest import own_addresses

pytestmark = pytest.mark.django_db

# The server's secrets an attacker would name as their evaluator's key (PLATFORM_SECRETS holds them all).
SECRET_VARIABLES = sorted(
    PLATFORM_SECRETS | {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"}
)

# Hosts the platform must not call (the port is the listener's). Loopback in every spelling,
# private, link-local, cloud metadata, shared, multicast, and IPv4 addresses wrapped in IPv6.
REFUSED_HOSTS = [
    "127.0.0.1", "127.9.8.7", "localhost", "[::1]", "[::ffff:127.0.0.1]", "2130706433", "0x7f000001",
    "0.0.0.0", "[::]", "10.0.0.1", "172.16.5.4", "192.168.1.1", "[fd00::1]", "169.254.1.1", "[fe80::1]",
    "169.254.169.254", "[fd00:ec2::254]", "100.100.100.200", "100.64.0.1", "224.0.0.1", "[2002:7f00:1::]",
    "[64:ff9b::7f00:1]",
    *[f"[{address}]" if ":" in address else address for address in own_addresses()],
]  # fmt: skip

SURFACES = ["admin_form", "admin_upload", "import_study", "api_run", "run_evaluator"]


@pytest.fixture
def study(researcher):
    return make_span_study(documents=2, segments=2, researcher=researcher, slug="target-study")


def llm_fields(base_url, **extra):
    return {"key": "attacker-llm", "kind": "llm", "base_url": base_url, "model": "m", **extra}


def _bundle(directory, fields):
    study = {
        "slug": "uploaded-study",
        "title": "Uploaded",
        "taxonomy": {"slug": "tiny-t", "name": "Tiny", "categories": [{"key": "GramE", "label": "Grammar"}]},
        "evaluators": [fields],
    }
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "study.yaml").write_text(yaml.safe_dump(study, sort_keys=False))
    (directory / "documents.jsonl").write_text(json.dumps({"id": "d1", "segments": ["A text."]}) + "\n")
    return directory


def _zip(directory):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path in directory.iterdir():
            archive.writestr(path.name, path.read_bytes())
    return SimpleUploadedFile("bundle.zip", buffer.getvalue(), content_type="application/zip")


def admin_form_data(study, fields):
    data = {
        "study": study.pk, "description": "", "occurrences": "all", "response_format": "json_schema",
        "timeout_seconds": "60", "max_retries": "4", "concurrency": "4", "price_input_per_1k": "0",
        "price_output_per_1k": "0", "options": "{}", "api_key_env": "", "credential": "",
    }  # fmt: skip
    return {**data, **fields}


def attempt(surface, *, study, researcher, fields, tmp_path):
    """Configure or run an evaluator with `fields` through `surface`; what the surface answered
    when it refused, or "" when it accepted (the caller then fails)."""
    client = Client()
    client.force_login(researcher)
    if surface == "admin_form":
        response = client.post(reverse("admin:evaluators_evaluator_add"), admin_form_data(study, fields))
        stored = Evaluator.objects.filter(key=fields["key"]).exists()
        return "" if stored or response.status_code != 200 else response.content.decode()
    if surface == "admin_upload":
        upload = _zip(_bundle(tmp_path / "bundle", fields))
        response = client.post(reverse("admin:studies_study_import"), {"bundle": upload})
        page = response.content.decode()
        refused = "Nothing was imported." in page and not Study.objects.filter(slug="uploaded-study").exists()
        return page if refused else ""
    if surface == "import_study":
        printed = io.StringIO()
        try:
            call_command(
                "import_study", str(_bundle(tmp_path / "bundle", fields)), stdout=printed, stderr=printed
            )
        except CommandError as error:
            return f"{printed.getvalue()}\n{error}"
        return ""
    # A row stored before the checks existed (or by hand): running it is refused.
    evaluator = Evaluator.objects.create(study=study, **fields)
    if surface == "api_run":
        response = client.post(
            "/api/evaluator-runs/",
            {"study": study.pk, "evaluator": evaluator.key},
            content_type="application/json",
        )
        refused = response.status_code == 400 and not EvaluatorRun.objects.exists()
        return response.content.decode() if refused else ""
    try:
        call_command("run_evaluator", study.slug, evaluator.key, stdout=io.StringIO())
    except CommandError as error:
        return str(error) if not EvaluatorRun.objects.exists() else ""
    return ""


def assert_nothing_reached(listener, connects, secret=None):
    assert listener.connections == 0, "the refused endpoint received a connection"
    assert not [a for a in connects if a[1] == listener.port], f"a connect was attempted: {connects}"
    if secret is not None:
        assert not any(secret.encode() in received for received in listener.received)


@pytest.mark.parametrize("surface", SURFACES)
@pytest.mark.parametrize("variable", SECRET_VARIABLES)
def test_no_surface_sends_a_server_secret_as_an_evaluators_key(
    surface, variable, study, researcher, listener, connects, monkeypatch, settings, tmp_path
):
    secret = f"the-server's-{variable}-value"
    monkeypatch.setenv(variable, secret)
    # The endpoint is one the operator allows (a local model server): only the key is wrong.
    settings.OUTBOUND_ALLOWED_HOSTS = [f"127.0.0.1:{listener.port}"]
    # Even an operator who listed the variable by mistake (the start-up check also refuses it).
    settings.EVALUATOR_KEY_VARIABLES = f"OPENAI_API_KEY=api.openai.com {variable}=127.0.0.1"
    fields = llm_fields(f"http://127.0.0.1:{listener.port}/v1", api_key_env=variable)
    answer = attempt(surface, study=study, researcher=researcher, fields=fields, tmp_path=tmp_path)
    assert answer, f"{surface} accepted {variable} as an evaluator key"
    assert f"'{variable}' is not a key variable the operator allows" in answer.replace("&#x27;", "'")
    assert_nothing_reached(listener, connects, secret)


@pytest.mark.parametrize("surface", SURFACES)
def test_a_variable_the_operator_did_not_list_is_refused_without_saying_whether_it_is_set(
    surface, study, researcher, listener, monkeypatch, settings, tmp_path
):
    settings.OUTBOUND_ALLOWED_HOSTS = [f"127.0.0.1:{listener.port}"]
    answers = []
    for variable, present in (("SOME_SET_VARIABLE", True), ("SOME_UNSET_VARIABLE", False)):
        Evaluator.objects.all().delete()
        Study.objects.filter(slug="uploaded-study").delete()
        if present:
            monkeypatch.setenv(variable, "a value")
        else:
            monkeypatch.delenv(variable, raising=False)
        fields = llm_fields(f"http://127.0.0.1:{listener.port}/v1", api_key_env=variable)
        answer = attempt(surface, study=study, researcher=researcher, fields=fields, tmp_path=tmp_path)
        assert answer
        answers.append(re.sub(r'value="\w{64}"', "", answer.replace(variable, "NAME")))  # no CSRF tokens
    assert answers[0] == answers[1]  # the same words whether the variable is set or not
    assert listener.connections == 0


@pytest.mark.parametrize("surface", SURFACES)
def test_an_operators_key_goes_only_to_the_hosts_it_is_listed_for(
    surface, study, researcher, listener, connects, monkeypatch, settings, tmp_path
):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-operator-key")
    settings.EVALUATOR_KEY_VARIABLES = "OPENAI_API_KEY=api.openai.com"
    settings.OUTBOUND_ALLOWED_HOSTS = [f"127.0.0.1:{listener.port}"]
    fields = llm_fields(f"http://127.0.0.1:{listener.port}/v1", api_key_env="OPENAI_API_KEY")
    answer = attempt(surface, study=study, researcher=researcher, fields=fields, tmp_path=tmp_path)
    assert "is sent only to api.openai.com" in answer
    assert_nothing_reached(listener, connects, "sk-operator-key")


@pytest.mark.parametrize("surface", SURFACES)
@pytest.mark.parametrize("host", REFUSED_HOSTS)
def test_no_surface_calls_a_loopback_private_link_local_or_metadata_address(
    surface, host, study, researcher, listener, connects, tmp_path
):
    fields = llm_fields(f"http://{host}:{listener.port}/v1")
    answer = attempt(surface, study=study, researcher=researcher, fields=fields, tmp_path=tmp_path)
    assert answer, f"{surface} accepted a base_url on {host}"
    assert "the platform does not call it unless the operator allows it" in answer
    assert_nothing_reached(listener, connects)


@pytest.mark.parametrize("surface", SURFACES)
def test_a_name_that_resolves_to_loopback_only_at_its_second_lookup_is_refused(
    surface, study, researcher, listener, connects, resolver, tmp_path, django_capture_on_commit_callbacks
):
    # Public at the first lookup (what a check at save time sees), loopback at every later one.
    resolver.add("llm.rebind.test", "93.184.216.34", "127.0.0.1")
    fields = llm_fields(f"http://llm.rebind.test:{listener.port}/v1")
    if surface in ("admin_form", "admin_upload", "import_study"):
        # Saved (the name was public then); then every way of running it is refused.
        assert not attempt(surface, study=study, researcher=researcher, fields=fields, tmp_path=tmp_path)
        evaluator = Evaluator.objects.get(key="attacker-llm")
        with pytest.raises(CommandError, match="the platform does not call it"):
            call_command("run_evaluator", evaluator.study.slug, evaluator.key, stdout=io.StringIO())
        assert not EvaluatorRun.objects.exists()
    else:
        # Stored, asked for (the first lookup is public): the run resolves again and is refused.
        evaluator = Evaluator.objects.create(study=study, **fields)
        if surface == "api_run":
            client = Client()
            client.force_login(researcher)
            with django_capture_on_commit_callbacks(
                execute=True
            ):  # the run's job, sent as the request commits
                response = client.post(
                    "/api/evaluator-runs/", {"study": study.pk, "evaluator": evaluator.key},
                    content_type="application/json",
                )  # fmt: skip
            assert response.status_code == 202
        else:
            with django_capture_on_commit_callbacks(execute=True):
                call_command("run_evaluator", study.slug, evaluator.key, stdout=io.StringIO())
        run = EvaluatorRun.objects.get()
        assert run.status == "failed" and "llm.rebind.test" in run.error and "loopback" in run.error
    assert resolver.lookups["llm.rebind.test"] >= 2
    assert_nothing_reached(listener, connects)
    assert not [a for a in connects if a[0] == "93.184.216.34"]


def test_control_the_listener_counts_a_call_the_operator_allows(
    study, listener, connects, settings, django_capture_on_commit_callbacks
):
    """Without this the tests above could pass with a listener that never counts anything."""
    settings.OUTBOUND_ALLOWED_HOSTS = [f"127.0.0.1:{listener.port}"]
    evaluator = Evaluator.objects.create(
        study=study, max_retries=0, **llm_fields(f"http://127.0.0.1:{listener.port}/v1")
    )
    with django_capture_on_commit_callbacks(execute=True):
        call_command("run_evaluator", study.slug, evaluator.key, stdout=io.StringIO(), stderr=io.StringIO())
    assert listener.connections >= 1
    assert [a for a in connects if a[1] == listener.port]
    assert any(received.startswith(b"POST /v1/chat/completions") for received in listener.received)
