"""Calls to an OpenAI-compatible chat-completions endpoint through the official `openai` client.

The client retries 408, 409, 429, 5xx and timeouts itself, with exponential
backoff and the server's Retry-After (`max_retries` of the evaluator). It
connects only where the outbound policy allows (outbound/policy.py), checked
at every connection, and sends the key the credentials module gives
(outbound/credentials.py): an operator's key variable bound to this endpoint,
or the study's own stored key. The key is never put in a request record or
logged.
"""

import hashlib
import json
import threading
import time
from dataclasses import dataclass

import httpx2
import openai
from django.views.decorators.debug import sensitive_variables

from outbound import credentials
from outbound.transport import CheckedHttpx2Transport

# Local servers (vLLM, Ollama, llama.cpp) accept any key; the client insists on one.
NO_KEY = "no-key"
_attempts = threading.local()


@dataclass
class Exchange:
    """One document's exchange with the endpoint (or the cache)."""

    request: dict
    content: str | None = None
    refusal: str | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_ms: int | None = None
    calls: int = 0
    cached: bool = False
    error: str = ""


def request_body(evaluator, messages, schema, schema_name="error_spans"):
    """The JSON body of the chat-completions request (what the cache key and the audit record hold).

    `schema`: the answer's JSON schema, sent as a strict structured output with
    `response_format: json_schema`."""
    body = {"model": evaluator.model, "messages": messages}
    if evaluator.temperature is not None:
        body["temperature"] = evaluator.temperature
    if evaluator.seed is not None:
        body["seed"] = evaluator.seed
    if evaluator.max_tokens is not None:
        body["max_tokens"] = evaluator.max_tokens
    if evaluator.response_format == "json_schema":
        body["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": schema_name, "strict": True, "schema": schema},
        }
    elif evaluator.response_format == "json_object":
        body["response_format"] = {"type": "json_object"}
    return body


def cache_key(study_id, base_url, body):
    """SHA-256 of the study, the endpoint and the whole request body: model, parameters and rendered prompt.

    The study is part of it: an answer is reused within its study only, never
    handed to another study that copies the same settings (and pays nothing)."""
    canonical = json.dumps(
        {"study": study_id, "endpoint": base_url.rstrip("/"), "body": body},
        sort_keys=True,
        ensure_ascii=False,
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def key_problem(evaluator, study=None):
    """Why the evaluator's key cannot be sent to its endpoint, or None (nothing is decrypted)."""
    return credentials.key_problem(
        study=study, url=evaluator.base_url, variable=evaluator.api_key_env, credential=evaluator.credential
    )


def _count_attempt(request):
    _attempts.count = getattr(_attempts, "count", 0) + 1


@sensitive_variables()
def make_client(evaluator, *, connections=16):
    """An `openai` client for the evaluator's endpoint; thread-safe, shared by a run's threads.

    credentials.KeyUnavailable when its key cannot be sent there."""
    key = credentials.key_for(
        study=evaluator.study, url=evaluator.base_url, variable=evaluator.api_key_env,
        credential=evaluator.credential,
    )  # fmt: skip
    limits = httpx2.Limits(max_connections=connections, max_keepalive_connections=connections)
    http_client = openai.DefaultHttpxClient(
        transport=CheckedHttpx2Transport(limits=limits),
        trust_env=False,
        event_hooks={"request": [_count_attempt]},
    )
    return openai.OpenAI(
        base_url=evaluator.base_url,
        api_key=key or NO_KEY,
        timeout=evaluator.timeout_seconds,
        max_retries=evaluator.max_retries,
        http_client=http_client,
    )


def ask(client, body):
    """Send one request (with the client's retries); never raises for what the endpoint does."""
    _attempts.count = 0
    began = time.monotonic()
    exchange = Exchange(request=body)
    try:
        completion = client.chat.completions.create(**body)
    except openai.APIStatusError as error:
        exchange.error = f"HTTP {error.status_code}: {_short(error.message)}"
    except openai.APITimeoutError:
        exchange.error = f"timed out after {client.timeout} s"
    except openai.APIConnectionError as error:
        exchange.error = f"connection failed: {_short(str(error.__cause__ or error))}"
    except openai.OpenAIError as error:
        exchange.error = f"{type(error).__name__}: {_short(str(error))}"
    else:
        choice = completion.choices[0] if completion.choices else None
        message = choice.message if choice else None
        exchange.content = message.content if message else None
        exchange.refusal = getattr(message, "refusal", None) if message else None
        if choice is not None and choice.finish_reason == "content_filter" and not exchange.refusal:
            exchange.refusal = "the endpoint's content filter stopped the answer"
        if completion.usage is not None:
            exchange.prompt_tokens = completion.usage.prompt_tokens or 0
            exchange.completion_tokens = completion.usage.completion_tokens or 0
    exchange.latency_ms = round(1000 * (time.monotonic() - began))
    exchange.calls = getattr(_attempts, "count", 0)
    return exchange


def _short(text, limit=500):
    text = str(text)
    return text if len(text) <= limit else text[:limit] + "…"
