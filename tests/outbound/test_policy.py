"""The outbound policy at the connection: what the operator's allow-list allows, a connection going
to the very address that was checked (no second lookup), redirects, proxies, and the crowd
platforms' clients."""

import io
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import boto3
import httpx
import pytest
from django.core.management import call_command
from django.core.management.base import SystemCheckError

from crowd import ledger, mturk, prolific
from evaluators.fake_llm import FakeChatServer
from evaluators.models import Evaluator, EvaluatorResult
from outbound.policy import OutboundRefused, checked_addresses, parse_allowed_host, url_problem
from outbound.transport import checked_client
from tests.factories import make_span_study

pytestmark = pytest.mark.django_db


def test_a_connection_goes_to_the_address_that_was_checked_never_to_a_second_lookup(
    listener, connects, resolver, settings
):
    # The operator allows this one address; the name would resolve to a private one next time.
    settings.OUTBOUND_ALLOWED_HOSTS = [f"127.0.0.1:{listener.port}"]
    resolver.add("model.flip.test", "127.0.0.1", "10.0.0.9")
    with checked_client() as client:
        response = client.get(f"http://model.flip.test:{listener.port}/v1/models")
    assert response.status_code == 500  # the listener's answer: the call reached the checked address
    assert listener.connections == 1 and resolver.lookups["model.flip.test"] == 1
    assert ("127.0.0.1", listener.port) in connects and not [a for a in connects if a[0] == "10.0.0.9"]


def test_a_name_with_one_refused_address_among_public_ones_is_not_called(listener, connects, resolver):
    resolver.add("mixed.test", ["93.184.216.34", "127.0.0.1"])
    with checked_client() as client, pytest.raises(httpx.ConnectError, match="loopback"):
        client.get(f"http://mixed.test:{listener.port}/")
    assert listener.connections == 0 and not [a for a in connects if a[1] == listener.port]


@pytest.mark.parametrize(
    ("allowed", "url", "refused"),
    [
        ([], "http://127.0.0.1:8011/v1", True),
        (["127.0.0.1:8011"], "http://127.0.0.1:8011/v1", False),
        (["127.0.0.1:8011"], "http://127.0.0.1:8012/v1", True),  # another port of the same host
        (["127.0.0.1"], "http://127.0.0.1:6379/", False),  # a host without a port: every port
        (["localhost:8011"], "http://localhost:8011/v1", False),  # by name
        (["localhost:8011"], "http://127.0.0.1:8011/v1", True),  # the name, not its address
        (["10.1.0.0/16"], "http://10.1.200.3:8000/v1", False),  # a network
        (["10.1.0.0/16"], "http://10.2.0.1:8000/v1", True),
        (["[::1]:8011"], "http://[::1]:8011/v1", False),
        ([], "http://93.184.216.34/v1", False),  # public addresses need no entry
        ([], "ftp://93.184.216.34/v1", True),
        ([], "http://user:secret@93.184.216.34/v1", True),  # no credentials in URLs
    ],
)
def test_the_operators_allow_list(allowed, url, refused, settings):
    settings.OUTBOUND_ALLOWED_HOSTS = allowed
    assert (url_problem(url) is not None) is refused, url_problem(url)


def test_a_metadata_address_is_refused_even_when_a_name_for_it_is_allowed(resolver, settings):
    resolver.add("metadata.test", "169.254.169.254")
    settings.OUTBOUND_ALLOWED_HOSTS = ["metadata.test"]
    with pytest.raises(OutboundRefused, match="cloud metadata"):
        checked_addresses("metadata.test", 80)
    settings.OUTBOUND_ALLOWED_HOSTS = ["169.254.169.254:80"]  # only by its own address
    assert [str(r.address) for r in checked_addresses("metadata.test", 80)] == ["169.254.169.254"]


def test_a_name_is_checked_again_at_every_call_not_only_when_saved(resolver, settings):
    resolver.add("later.test", "93.184.216.34", "192.168.7.7")
    assert url_problem("http://later.test/v1") is None
    assert "later.test:80 resolves to a private address" in url_problem("http://later.test/v1")
    assert "192.168.7.7" not in url_problem("http://later.test/v1")  # the network's layout is not told


@pytest.mark.parametrize("entry", ["gpu box", "10.0.0.0/33", "host:99999", "[::1", "-"])
def test_a_bad_allow_list_entry_stops_the_server_with_its_reason(entry, settings):
    with pytest.raises(ValueError):
        parse_allowed_host(entry)
    settings.OUTBOUND_ALLOWED_HOSTS = [entry]
    with pytest.raises(SystemCheckError, match="outbound.E001"):
        call_command("check", stdout=io.StringIO(), stderr=io.StringIO())


class _Redirecting(BaseHTTPRequestHandler):
    target = ""

    def do_POST(self):  # noqa: N802
        self.send_response(307)
        self.send_header("Location", self.target)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_GET = do_POST  # noqa: N815

    def log_message(self, *args):
        pass


@pytest.fixture
def redirecting(listener):
    handler = type(
        "Handler", (_Redirecting,), {"target": f"http://localhost:{listener.port}/v1/chat/completions"}
    )
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


def test_a_redirect_to_a_refused_address_is_not_followed(redirecting, listener, connects, settings):
    settings.OUTBOUND_ALLOWED_HOSTS = [f"127.0.0.1:{redirecting}"]
    with checked_client(follow_redirects=True) as client, pytest.raises(httpx.ConnectError, match="loopback"):
        client.get(f"http://127.0.0.1:{redirecting}/v1/models")
    assert listener.connections == 0 and not [a for a in connects if a[1] == listener.port]


def test_an_evaluators_endpoint_that_redirects_to_a_refused_address_fails_its_documents(
    redirecting, listener, settings, eager_celery, django_capture_on_commit_callbacks
):
    settings.OUTBOUND_ALLOWED_HOSTS = [f"127.0.0.1:{redirecting}"]
    study = make_span_study(documents=1, segments=1)
    evaluator = Evaluator.objects.create(
        study=study, key="redirected", kind="llm", base_url=f"http://127.0.0.1:{redirecting}/v1", model="m",
        max_retries=0,
    )  # fmt: skip
    from evaluators.services import evaluator_run_request

    with django_capture_on_commit_callbacks(execute=True):
        evaluator_run_request(evaluator=evaluator, here=True)
    (result,) = EvaluatorResult.objects.all()
    assert result.status == "failed" and "does not call it" in result.problem
    assert listener.connections == 0


def test_proxies_from_the_environment_are_not_used(listener, monkeypatch, settings):
    """A proxy would connect on the platform's behalf to an address never checked here."""
    with FakeChatServer() as server:
        settings.OUTBOUND_ALLOWED_HOSTS = [f"127.0.0.1:{server.port}"]
        for variable in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "all_proxy"):
            monkeypatch.setenv(variable, f"http://127.0.0.1:{listener.port}")
        monkeypatch.delenv("NO_PROXY", raising=False)
        monkeypatch.delenv("no_proxy", raising=False)
        with checked_client() as client:
            # The local server's own answer (it wants a key), not the proxy's.
            assert client.get(f"{server.base_url}/models").status_code == 401
    assert listener.connections == 0


def test_prolific_is_called_only_where_the_policy_allows(listener, connects, settings):
    client = prolific.ProlificClient(base_url=f"http://127.0.0.1:{listener.port}", token="prolific-token")
    with pytest.raises(ledger.PlatformError, match="does not call it"):
        client._send("GET", "/api/v1/users/me/")
    assert listener.connections == 0 and not [a for a in connects if a[1] == listener.port]
    settings.OUTBOUND_ALLOWED_HOSTS = [f"127.0.0.1:{listener.port}"]  # the operator allows it
    with pytest.raises(ledger.PlatformError, match="500"):
        client._send("GET", "/api/v1/users/me/")
    assert listener.connections == 1


def test_mechanical_turk_is_called_only_where_the_policy_allows(listener, monkeypatch, settings):
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "not-a-real-secret")
    monkeypatch.setitem(mturk.ENDPOINTS, True, f"http://127.0.0.1:{listener.port}")
    client = mturk.client_from_env(sandbox=True)
    with pytest.raises(mturk.OutboundRefusedError, match="does not call it"):
        client.boto.get_account_balance()
    assert listener.connections == 0
    # boto3 itself, without the platform's check, would have connected: the check is what stops it.
    bare = boto3.client("mturk", region_name="us-east-1", endpoint_url=f"http://127.0.0.1:{listener.port}")
    with pytest.raises(Exception):  # noqa: B017 (the listener's 500, whatever botocore makes of it)
        bare.get_account_balance()
    assert listener.connections >= 1


def test_the_outbound_messages_never_hold_the_key_variables_value(monkeypatch, settings):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-value-never-in-a-message")
    settings.EVALUATOR_KEY_VARIABLES = "OPENAI_API_KEY=api.openai.com"
    study = make_span_study(documents=1, segments=1)
    evaluator = Evaluator(study=study, key="k", kind="llm", base_url="http://evil.example.org/v1", model="m",
                          api_key_env="OPENAI_API_KEY")  # fmt: skip
    from evaluators.checks import settings_problems

    problems = json.dumps(settings_problems(evaluator, {}, study=study))
    assert "api.openai.com" in problems and "sk-value-never-in-a-message" not in problems
