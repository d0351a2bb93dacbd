"""The local chat-completions server, driven by the real `openai` client over real HTTP."""

import json
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx2
import openai
import pytest

from evaluators.fake_llm import FakeChatServer, Refusal, Reply, Slow, Status, marking_responder

KEY = "sk-test-9f2c41"
MESSAGES = [
    {"role": "system", "content": "You answer with JSON only."},
    {"role": "user", "content": "List the errors in: The cat sat on teh mat."},
]
# Short server-directed waits keep the client's retries fast (its own backoff starts at 0.5 s).
SOON = {"retry-after-ms": "10"}
# Seconds that only bound a hang (a test that would otherwise wait for ever); never a speed.
HANG = 60


@pytest.fixture
def server():
    with FakeChatServer() as running:
        yield running


def client_for(server, *, max_retries=0, timeout=5.0):
    return openai.OpenAI(base_url=server.base_url, api_key=KEY, max_retries=max_retries, timeout=timeout)


def ask(client, **extra):
    return client.chat.completions.create(model="judge-1", messages=MESSAGES, **extra)


def post(server, data, headers):
    """A raw POST (for requests the `openai` client would never send); returns (status, JSON body)."""
    response = httpx2.post(f"{server.base_url}/chat/completions", content=data, headers=headers, timeout=5)
    return response.status_code, response.json()


def eventually(condition):
    """Whether `condition()` comes true before HANG seconds pass; asked every few milliseconds."""
    deadline = time.monotonic() + HANG
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def test_a_scripted_reply_comes_back_with_its_usage(server):
    server.add(Reply('{"errors": [{"span": "teh"}]}', prompt_tokens=120, completion_tokens=7))

    completion = ask(client_for(server))

    assert completion.choices[0].message.content == '{"errors": [{"span": "teh"}]}'
    assert completion.choices[0].finish_reason == "stop"
    assert completion.model == "judge-1"
    assert (completion.usage.prompt_tokens, completion.usage.completion_tokens) == (120, 7)
    assert completion.usage.total_tokens == 127


def test_without_a_script_the_default_answer_lists_no_errors_and_counts_words(server):
    completion = ask(client_for(server))

    assert json.loads(completion.choices[0].message.content) == {"errors": []}
    assert completion.usage.prompt_tokens == 5 + 10
    assert completion.usage.completion_tokens == 2


def test_the_script_is_used_in_order_before_the_responder():
    with FakeChatServer(responder=lambda body: f"for {body['model']}") as server:
        server.add(Reply("first"), Reply("second"))
        client = client_for(server)

        answers = [ask(client).choices[0].message.content for _ in range(3)]

    assert answers == ["first", "second", "for judge-1"]
    assert server.script == ()


def test_a_rate_limit_with_retry_after_is_retried_by_the_client(server):
    server.add(Status(429, headers=SOON), Reply("after the wait"))

    completion = ask(client_for(server, max_retries=2))

    assert completion.choices[0].message.content == "after the wait"
    assert server.calls == 2


def test_server_errors_past_the_retries_raise_internal_server_error(server):
    server.add(*[Status(500, headers=SOON)] * 3, Reply("never reached"))

    with pytest.raises(openai.InternalServerError) as raised:
        ask(client_for(server, max_retries=2))

    assert raised.value.status_code == 500
    assert raised.value.body["type"] == "server_error"
    assert server.calls == 3


def test_an_answer_slower_than_the_clients_timeout_is_a_timeout(server):
    server.add(Slow(HANG))  # held until the server stops: later than any timeout

    with pytest.raises(openai.APITimeoutError):
        ask(client_for(server, timeout=0.2))

    # The server may read the request after the client gave up on it.
    assert eventually(lambda: server.calls == 1)


def test_a_refusal_has_no_content(server):
    server.add(Refusal("no"))

    message = ask(client_for(server)).choices[0].message

    assert message.refusal == "no"
    assert message.content is None


def test_a_request_without_an_api_key_is_refused_with_401(server):
    body = json.dumps({"model": "judge-1", "messages": MESSAGES}).encode()

    status, answer = post(server, body, {"Content-Type": "application/json"})

    assert status == 401
    assert answer["error"]["code"] == "invalid_api_key"
    assert not server.requests[0].has_key


@pytest.mark.parametrize(
    ("data", "param"),
    [
        (b"{not json", None),
        (json.dumps({"model": "judge-1"}).encode(), "messages"),
        (json.dumps({"messages": MESSAGES}).encode(), "model"),
    ],
)
def test_a_malformed_request_is_refused_with_400_in_the_error_shape(server, data, param):
    server.add(Reply("kept for a valid request"))

    status, answer = post(
        server, data, {"Authorization": f"Bearer {KEY}", "Content-Type": "application/json"}
    )

    assert status == 400
    assert set(answer["error"]) == {"message", "type", "param", "code"}
    assert answer["error"]["type"] == "invalid_request_error"
    assert answer["error"]["param"] == param
    assert server.script == (Reply("kept for a valid request"),)


def test_the_model_list_names_one_model(server):
    assert [model.id for model in client_for(server).models.list()] == ["local-fake"]


def test_concurrent_requests_overlap_instead_of_queueing():
    # Each answer waits until 16 requests are held at once: a server that queued them would
    # never gather 16, and every request would fail with a 500 (the broken barrier).
    together = threading.Barrier(16, timeout=HANG)

    def responder(body):
        together.wait()
        return '{"errors": []}'

    with FakeChatServer(responder=responder) as server:
        client = client_for(server, timeout=2 * HANG)
        failures = []

        def two_requests():
            try:
                ask(client)
                ask(client)
            except Exception as error:
                failures.append(error)

        threads = [threading.Thread(target=two_requests) for _ in range(16)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

    assert failures == []
    assert server.calls == 32


def test_a_json_schema_response_format_is_accepted_and_recorded(server):
    response_format = {
        "type": "json_schema",
        "json_schema": {
            "name": "error_spans",
            "strict": True,
            "schema": {"type": "object", "properties": {"errors": {"type": "array"}}, "required": ["errors"]},
        },
    }

    ask(client_for(server), response_format=response_format, temperature=0)

    body = server.requests[0].body
    assert body["response_format"] == response_format
    assert body["temperature"] == 0
    assert body["messages"] == MESSAGES


def test_the_recorded_requests_never_hold_the_api_key(server):
    client = client_for(server, max_retries=1)
    server.add(Status(503, headers=SOON))
    ask(client)

    assert server.calls == 2
    assert all(request.has_key for request in server.requests)
    assert len({request.key_fingerprint for request in server.requests}) == 1
    assert server.requests[0].headers["authorization"] == "Bearer ***"
    assert KEY not in repr(server.requests)


def test_reset_forgets_requests_and_the_unused_script(server):
    server.add(Reply("used"), Reply("unused"))
    ask(client_for(server))

    server.reset()

    assert (server.calls, server.requests, server.script) == (0, [], ())


def test_the_marking_responder_lists_the_words_it_finds_in_order_of_appearance():
    responder = marking_responder(
        {"teh": "spelling", "mat": "word-choice", "cat": "grammar", "he": "pronoun"}
    )
    with FakeChatServer(responder=responder) as server:
        content = ask(client_for(server)).choices[0].message.content

    errors = json.loads(content)["errors"]
    assert [(error["span"], error["category"]) for error in errors] == [
        ("cat", "grammar"),
        ("teh", "spelling"),
        ("mat", "word-choice"),
    ]
    assert all(error["explanation"] for error in errors)


def test_a_stopped_server_refuses_connections():
    server = FakeChatServer().start()
    client = client_for(server)
    ask(client)

    server.stop()

    with pytest.raises(openai.APIConnectionError):
        ask(client)


def test_the_client_reuses_one_kept_alive_connection(server):
    client = client_for(server)

    for _ in range(3):
        ask(client)

    assert len({request.connection for request in server.requests}) == 1


def test_the_server_runs_without_django():
    code = "import sys, evaluators.fake_llm; assert not any(m.startswith('django') for m in sys.modules)"

    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).parents[2])
