"""A local OpenAI-compatible chat-completions server for tests, the demo and the benchmark.

It speaks real HTTP/1.1 (keep-alive, so the `openai` client's connection pool
reuses connections) and answers each ``POST /v1/chat/completions`` from a
script of behaviours, consumed one per request, then from a responder:

    with FakeChatServer() as server:
        server.add(Status(429, headers={"retry-after-ms": "10"}), Reply('{"errors": []}'))
        client = openai.OpenAI(base_url=server.base_url, api_key="sk-test")

Every request is recorded with its Authorization value redacted. Standard
library only, and nothing from Django, so that it runs on its own:

    python -m evaluators.fake_llm --port 8011 --latency 0.3 --mark teh=spelling
"""

import argparse
import contextlib
import hashlib
import json
import re
import socket
import sys
import threading
import time
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

CHAT_PATHS = ("/v1/chat/completions", "/chat/completions")
MODELS_PATHS = ("/v1/models", "/models")
MODEL = "local-fake"
EMPTY_ANSWER = '{"errors": []}'
REDACTED = "Bearer ***"


@dataclass(frozen=True)
class Reply:
    """A normal answer; the content is sent as given, well-formed JSON or not."""

    content: str
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    finish_reason: str = "stop"


@dataclass(frozen=True)
class Refusal:
    """The model declines: ``message.content`` is null and ``message.refusal`` holds the text."""

    text: str


@dataclass(frozen=True)
class Status:
    """An HTTP status instead of an answer; a dict body is sent as JSON, a str body as plain text."""

    code: int
    body: dict | str | None = None
    headers: Mapping[str, str] | None = None


@dataclass(frozen=True)
class Slow:
    """Wait `seconds` (e.g. past the client's timeout), then behave as `then`."""

    seconds: float
    then: "Behaviour" = Reply(EMPTY_ANSWER)


Behaviour = Reply | Refusal | Status | Slow


@dataclass(frozen=True)
class ReceivedRequest:
    """One request as the server saw it; the API key itself is never kept."""

    method: str
    path: str
    connection: int  # numbered as accepted: requests sharing one were sent over a kept-alive connection
    body: dict | None
    headers: dict[str, str]
    key_fingerprint: str | None
    received_at: float

    @property
    def has_key(self):
        return self.key_fingerprint is not None

    @property
    def is_chat(self):
        return self.method == "POST" and self.path in CHAT_PATHS


def empty_responder(body):
    return EMPTY_ANSWER


def marking_responder(categories):
    """A responder that marks each word of `categories` ({word: category}) found in the messages.

    Words match case-sensitively and whole; each is listed once, in the order
    of its first occurrence, in the shape of the evaluators' strict schema.
    """
    patterns = {word: re.compile(rf"(?<!\w){re.escape(word)}(?!\w)") for word in categories}

    def respond(body):
        text = "\n".join(_message_text(message) for message in body.get("messages", []))
        found = sorted(
            (match.start(), word) for word, pattern in patterns.items() if (match := pattern.search(text))
        )
        errors = [
            {
                "category": categories[word],
                "span": word,
                "segment": None,
                "occurrence": None,
                "earlier_span": None,
                "explanation": f"'{word}' is marked as {categories[word]} by the local test server.",
            }
            for _, word in found
        ]
        return json.dumps({"errors": errors})

    return respond


class FakeChatServer:
    """The server; `start()` it (or use `with`), then point a client at `base_url`."""

    def __init__(self, responder=None, latency=0.0, host="127.0.0.1", port=0):
        self.responder = responder or empty_responder
        self.latency = latency
        self.host = host
        self.port = port
        self.base_url = None
        self._lock = threading.Lock()
        self._script = deque()
        self._requests = []
        self._completions = 0
        self._stopping = threading.Event()
        self._httpd = None
        self._thread = None
        self._connections = set()
        self._accepted = 0

    def start(self):
        if self._httpd is not None:
            raise RuntimeError("the server is already running")
        self._stopping.clear()
        self._httpd = _HTTPServer((self.host, self.port), _Handler)
        self._httpd.fake = self
        self.port = self._httpd.server_address[1]
        self.base_url = f"http://{self.host}:{self.port}/v1"
        # A short poll interval: stop() waits for the loop to notice, once per test.
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02}, name="fake-llm", daemon=True
        )
        self._thread.start()
        return self

    def stop(self):
        if self._httpd is None:
            return
        self._stopping.set()  # wakes handlers sleeping for latency or Slow
        self._httpd.shutdown()
        self._httpd.server_close()
        with self._lock:
            connections, self._connections = list(self._connections), set()
        for connection in connections:  # idle keep-alive connections would keep their threads waiting
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)
        self._thread.join()
        self._httpd = self._thread = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc_info):
        self.stop()

    def add(self, *behaviours):
        """Append behaviours to the script; each answers one chat-completions request, in order."""
        with self._lock:
            self._script.extend(behaviours)

    @property
    def script(self):
        """The behaviours not yet used."""
        with self._lock:
            return tuple(self._script)

    @property
    def requests(self):
        with self._lock:
            return list(self._requests)

    @property
    def calls(self):
        """Chat-completions requests received, whatever they were answered with."""
        with self._lock:
            return self._completions

    def reset(self):
        """Forget the recorded requests and the unused script."""
        with self._lock:
            self._requests.clear()
            self._script.clear()
            self._completions = 0

    def _record(self, request):
        with self._lock:
            self._requests.append(request)
            if request.is_chat:
                self._completions += 1
            return self._completions

    def _next_behaviour(self, body):
        with self._lock:
            if self._script:
                return self._script.popleft()
        answer = self.responder(body)
        return Reply(answer) if isinstance(answer, str) else answer

    def _wait(self, seconds):
        if seconds > 0:
            self._stopping.wait(seconds)


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False  # stop() must not wait for clients that keep their connections open
    request_queue_size = 128  # the default backlog of 5 drops connections of a burst of 32 clients

    def handle_error(self, request, client_address):
        # A client that gave up (its timeout, during a Slow) closes the socket we write to.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "fake-llm/1"

    def setup(self):
        super().setup()
        fake = self.server.fake
        with fake._lock:
            fake._connections.add(self.connection)
            fake._accepted += 1
            self.connection_number = fake._accepted

    def finish(self):
        with self.server.fake._lock:
            self.server.fake._connections.discard(self.connection)
        super().finish()

    def log_message(self, format, *args):
        pass

    def do_GET(self):
        self._handle("GET")

    def do_POST(self):
        self._handle("POST")

    def _handle(self, method):
        fake = self.server.fake
        path = self.path.split("?", 1)[0].rstrip("/")
        raw = self._read_body()
        body = _json_object(raw)
        authorization = self.headers.get("Authorization", "")
        key = authorization[len("Bearer ") :].strip() if authorization.startswith("Bearer ") else ""
        number = fake._record(
            ReceivedRequest(
                method=method,
                path=path,
                connection=self.connection_number,
                body=body,
                headers=_redacted(self.headers),
                key_fingerprint=hashlib.sha256(key.encode()).hexdigest()[:12] if key else None,
                received_at=time.time(),
            )
        )
        fake._wait(fake.latency)
        if raw is None:
            return self._error(400, "the request body could not be read", close=True)
        if not key:
            return self._error(401, "no API key: send 'Authorization: Bearer <key>'", code="invalid_api_key")
        if method == "GET" and path in MODELS_PATHS:
            model = {"id": MODEL, "object": "model", "created": 0, "owned_by": "local"}
            return self._send(200, {"object": "list", "data": [model]})
        if method != "POST" or path not in CHAT_PATHS:
            return self._error(404, f"no route {method} {path}", code="unknown_url")
        if body is None:
            return self._error(400, "the request body is not a JSON object")
        for name, kind in (("model", str), ("messages", list)):
            if not isinstance(body.get(name), kind):
                return self._error(
                    400, f"'{name}' is required", param=name, code="missing_required_parameter"
                )
        try:
            behaviour = fake._next_behaviour(body)
            self._behave(behaviour, body, number)
        except ConnectionError:
            raise
        except Exception as error:  # a responder's bug is the test's to see, as a 500
            self._error(500, f"the responder failed: {type(error).__name__}: {error}", kind="server_error")

    def _behave(self, behaviour, body, number):
        if isinstance(behaviour, Slow):
            self.server.fake._wait(behaviour.seconds)
            return self._behave(behaviour.then, body, number)
        if isinstance(behaviour, Status):
            return self._status(behaviour)
        if isinstance(behaviour, Refusal):
            message = {"role": "assistant", "content": None, "refusal": behaviour.text}
            reply = Reply(behaviour.text)
        elif isinstance(behaviour, Reply):
            message = {"role": "assistant", "content": behaviour.content, "refusal": None}
            reply = behaviour
        else:
            raise TypeError(f"not a behaviour: {behaviour!r}")
        prompt_tokens = reply.prompt_tokens
        if prompt_tokens is None:
            prompt_tokens = sum(_words(_message_text(m)) for m in body["messages"])
        completion_tokens = reply.completion_tokens
        if completion_tokens is None:
            completion_tokens = _words(reply.content)
        self._send(
            200,
            {
                "id": f"chatcmpl-local{number}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": body["model"],
                "choices": [
                    {"index": 0, "message": message, "finish_reason": reply.finish_reason, "logprobs": None}
                ],
                "usage": {
                    "prompt_tokens": prompt_tokens,
                    "completion_tokens": completion_tokens,
                    "total_tokens": prompt_tokens + completion_tokens,
                },
                "system_fingerprint": "fp_local",
            },
        )

    def _status(self, status):
        headers = dict(status.headers or {})
        if status.body is None:
            kind, code = _error_kind(status.code)
            return self._error(status.code, f"status {status.code}", kind=kind, code=code, headers=headers)
        if isinstance(status.body, str):
            headers.setdefault("Content-Type", "text/plain; charset=utf-8")
            return self._send(status.code, status.body.encode(), headers)
        return self._send(status.code, status.body, headers)

    def _error(self, status, message, *, kind=None, param=None, code=None, headers=None, close=False):
        kind = kind or _error_kind(status)[0]
        error = {"message": message, "type": kind, "param": param, "code": code}
        if close:
            self.close_connection = True
            headers = {**(headers or {}), "Connection": "close"}
        self._send(status, {"error": error}, headers)

    def _send(self, status, payload, headers=None):
        headers = dict(headers or {})
        if isinstance(payload, bytes):
            data = payload
        else:
            data = json.dumps(payload).encode()
            headers.setdefault("Content-Type", "application/json")
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _read_body(self):
        """The request body's bytes; None when it cannot be framed (the connection is then closed)."""
        if "Transfer-Encoding" in self.headers:  # the client sends JSON with a Content-Length
            return None
        try:
            length = int(self.headers.get("Content-Length", 0))
        except ValueError:
            return None
        return self.rfile.read(length) if length > 0 else b""


_ERROR_KINDS = {401: ("invalid_request_error", "invalid_api_key"), 429: ("requests", "rate_limit_exceeded")}


def _error_kind(status):
    """The error's (type, code) as the OpenAI API names them for this status."""
    if status >= 500:
        return "server_error", None
    return _ERROR_KINDS.get(status, ("invalid_request_error", None))


def _redacted(headers):
    recorded = {}
    for name, value in headers.items():
        name = name.lower()
        if name == "authorization":
            value = REDACTED
        elif name in ("api-key", "x-api-key"):
            value = "***"
        recorded[name] = value
    return recorded


def _json_object(raw):
    try:
        value = json.loads(raw) if raw else None
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _message_text(message):
    """A message's text, whether its content is a string or a list of parts."""
    if not isinstance(message, dict):
        return ""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(part.get("text", "") for part in content if isinstance(part, dict))
    return ""


def _words(text):
    return len(text.split()) if text else 0


def serve(port=8011, latency=0.0, host="127.0.0.1", responder=None):
    """Serve until Ctrl-C."""
    server = FakeChatServer(responder=responder, latency=latency, host=host, port=port).start()
    print(f"fake chat-completions server at {server.base_url}; Ctrl-C stops it", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8011)
    parser.add_argument("--latency", type=float, default=0.0, help="seconds added to every request")
    parser.add_argument(
        "--mark",
        action="append",
        default=[],
        metavar="WORD=CATEGORY",
        help="answer with an error of CATEGORY for each WORD found in the prompt (repeatable)",
    )
    args = parser.parse_args(argv)
    categories = dict(item.split("=", 1) for item in args.mark)
    serve(args.port, args.latency, args.host, marking_responder(categories) if categories else None)


if __name__ == "__main__":
    main()
