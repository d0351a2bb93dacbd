"""Wrong API tokens are counted across gunicorn's worker processes, with no cache set up.

gunicorn runs the production settings with two sync workers, as a deployment
does, once on the embedded default (a SQLite file that `manage.py migrate`
alone set up, no broker, no CACHE_URL) and once with the Celery broker on
Redis (on the suite's PostgreSQL database in CI's PostgreSQL run). One client
address sends 35 wrong tokens, each on a connection of its own, and the
workers share them out so that neither sees 30: only a count both workers
share can refuse the 31st. The window is an hour, so however slow the
machine, the 35 requests fall within it.
"""

import http.client
import ipaddress
import os
import secrets
import socket
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from types import SimpleNamespace

import pytest
import redis
from django.conf import settings
from django.db import connection
from django.urls import reverse

from tests.gunicorn_server import start_gunicorn, stop_gunicorn

ROOT = Path(settings.BASE_DIR)
FAILURES = 30  # wrong tokens an address may send within the window (the production rate's count)
LOCAL_REDIS = "redis://127.0.0.1:6379/0"


def client_address():
    """An address of IPv6's documentation range, new for each test: counts left in Redis by
    an earlier run, or by a run beside this one, are never this address's."""
    return str(ipaddress.IPv6Address("2001:db8::") + secrets.randbits(64))


def production_environment(**overrides):
    """The production settings as gunicorn would run them, behind one proxy, with none of the
    shell's database, broker, cache or rates."""
    kept = {name: value for name, value in os.environ.items()
            if name not in {"DATABASE_URL", "CELERY_BROKER_URL", "CACHE_URL", "DJANGO_SETTINGS_MODULE"}
            and not name.startswith("API_THROTTLE_")}  # fmt: skip
    return {
        **kept,
        "DJANGO_SETTINGS_MODULE": "falte_site.settings",
        "READ_DOT_ENV": "0",
        "DEBUG": "0",
        "SECRET_KEY": "test-only-key-not-a-secret-" + "x" * 40,
        "SECURE_SSL_REDIRECT": "0",
        "ALLOWED_HOSTS": "127.0.0.1",
        "NUM_PROXIES": "1",
        "API_THROTTLE_FAILED_TOKEN": f"{FAILURES}/hour",
        **overrides,
    }


@pytest.fixture(scope="module")
def embedded_database(tmp_path_factory):
    """A SQLite file that `manage.py migrate` set up and nothing else, as `make demo` and a deploy do."""
    path = tmp_path_factory.mktemp("embedded") / "db.sqlite3"
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--no-input", "-v", "0"],
        cwd=ROOT, env=production_environment(DATABASE_URL=f"sqlite:///{path}"), check=True,
    )  # fmt: skip
    return path


def redis_broker():
    """The suite's Redis broker, or the machine's Redis; CI's Redis run may not skip."""
    url = os.environ.get("CELERY_BROKER_URL", "")
    if url.startswith("redis://"):
        return url
    if os.environ.get("EXPECT_BROKER") == "redis":
        pytest.fail("CI's Redis run must set CELERY_BROKER_URL=redis://...")
    try:
        redis.Redis.from_url(LOCAL_REDIS, socket_connect_timeout=2).ping()
    except redis.RedisError:
        pytest.skip(f"needs Redis ({LOCAL_REDIS}) or CELERY_BROKER_URL=redis://...")
    return LOCAL_REDIS


class DatabaseCounts:
    """The embedded default: counts are rows of the cache table in the SQLite file."""

    def __init__(self, path):
        self.path = path

    def holds(self, address):
        with sqlite3.connect(self.path) as database:
            keys = [key for (key,) in database.execute("SELECT cache_key FROM api_cache")]
        return any(key.endswith(f"throttle_failed_token_{address}") for key in keys)

    def forget(self, addresses):
        pass  # the file goes with the test's temporary directory


class RedisCounts:
    """With a Redis broker: counts are keys under the cache's prefix on the broker's Redis."""

    def __init__(self, url):
        self.client = redis.Redis.from_url(url)

    def keys(self, address):
        return list(self.client.scan_iter(match=f"falte-cache:*throttle_failed_token_{address}"))

    def holds(self, address):
        return bool(self.keys(address))

    def forget(self, addresses):
        for address in addresses:
            for key in self.keys(address):
                self.client.delete(key)


@pytest.fixture(params=["embedded", "redis-broker"])
def site(request, embedded_database, tmp_path):
    """gunicorn with two sync workers on one of the two set-ups: its port, where it counts, and
    two client addresses of the test's own."""
    if request.param == "embedded":
        environment = production_environment(DATABASE_URL=f"sqlite:///{embedded_database}")
        counts = DatabaseCounts(embedded_database)
    else:
        broker = redis_broker()
        database_url = f"sqlite:///{embedded_database}"
        if connection.vendor == "postgresql":  # CI's PostgreSQL run: the suite's test database
            request.getfixturevalue("django_db_setup")
            db = connection.settings_dict
            database_url = (
                f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"
            )
        environment = production_environment(DATABASE_URL=database_url, CELERY_BROKER_URL=broker)
        counts = RedisCounts(broker)
    # A held worker (below) sends gunicorn no sign of life: --timeout is far above any hold.
    with open(tmp_path / "gunicorn.log", "wb") as log:
        process, port = start_gunicorn("tests.api.served_by", "--workers", "2", "--timeout", "600",
                                       "--graceful-timeout", "1", env=environment, output=log)  # fmt: skip
    while b"Listening at:" not in (tmp_path / "gunicorn.log").read_bytes():
        assert process.poll() is None, (tmp_path / "gunicorn.log").read_text()
        time.sleep(0.2)
    addresses = SimpleNamespace(guesser=client_address(), neighbour=client_address())
    yield SimpleNamespace(port=port, counts=counts, **vars(addresses))
    stop_gunicorn(process, timeout=60)
    counts.forget(vars(addresses).values())


class WrongToken:
    """A request with a wrong API token from `address`, on a connection of its own, sent at once
    up to the blank line that ends its headers. Until `answer()` sends that line, the sync worker
    that accepted the connection waits on it, so the other worker answers every request sent
    meanwhile."""

    def __init__(self, port, address):
        self.socket = socket.create_connection(("127.0.0.1", port), timeout=120)
        self.socket.sendall(
            f"GET {reverse('study-list')} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
            f"X-Forwarded-For: {address}\r\nAuthorization: Token {secrets.token_hex(20)}\r\n".encode()
        )

    def answer(self):
        """The status, and the id of the worker process that answered."""
        self.socket.sendall(b"\r\n")
        with self.socket:
            response = http.client.HTTPResponse(self.socket)
            response.begin()
            response.read()
        return response.status, response.getheader("X-Served-By")


def wrong_tokens(port, address, number):
    return [WrongToken(port, address).answer() for _ in range(number)]


def test_wrong_tokens_are_counted_across_workers_on_the_default_set_up(site):
    port, guesser = site.port, site.guesser
    held = WrongToken(port, guesser)
    answers = wrong_tokens(port, guesser, 15)  # all on the worker that does not hold `held`
    answers.append(held.answer())  # the 16th, on the other worker
    held = WrongToken(port, guesser)
    answers += wrong_tokens(port, guesser, FAILURES - len(answers))  # up to the 30th, on one worker
    answers.append(held.answer())  # the 31st, on the other
    answers += wrong_tokens(port, guesser, 4)

    workers = Counter(worker for _, worker in answers[: FAILURES + 1])
    assert len(workers) == 2 and max(workers.values()) < FAILURES, (
        f"each worker must have seen fewer than {FAILURES} wrong tokens: {workers}"
    )
    statuses = [status for status, _ in answers]
    assert statuses == [401] * FAILURES + [429] * 5, (
        f"statuses in order: {statuses}; answers per worker: {workers}"
    )
    assert WrongToken(port, site.neighbour).answer()[0] == 401  # another address is not refused
    assert site.counts.holds(guesser)  # the count is where this set-up keeps it
