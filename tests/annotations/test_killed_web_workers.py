"""Saves against gunicorn while its workers are killed: no acknowledged save is lost or doubled.

A worker's page keeps every save in its queue until the server acknowledges
it, and sends it again with the same client id after an error (saves are
idempotent by client id). Here a client does the same over real HTTP against
gunicorn with two sync workers on the test database, while a second thread
SIGKILLs a worker every fifty saves. PostgreSQL only: the server processes
share the test database with the test (CI's PostgreSQL run).
"""

import http.client
import json
import os
import random
import signal
import threading
import time

import pytest
from django.db import connection

from bench.process_cpu import server_processes
from protocols.span.models import ErrorAnnotation
from tests.browser.task_page import make_task
from tests.gunicorn_server import start_gunicorn, stop_gunicorn

pytestmark = pytest.mark.django_db(transaction=True)
SAVES = 300
KILLS = 6
# Seconds that only bound a hang (a server that never comes back); never a speed.
HANG = 60


@pytest.fixture
def server():
    if connection.vendor != "postgresql":
        if os.environ.get("EXPECT_DATABASE") == "postgresql":
            pytest.fail("CI's PostgreSQL run must run this test on PostgreSQL")
        pytest.skip("needs DATABASE_URL=postgres://... (CI's PostgreSQL run)")
    db = connection.settings_dict
    url = f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"
    env = dict(os.environ, DATABASE_URL=url, DJANGO_SETTINGS_MODULE="falte_site.test_settings",
               ALLOWED_HOSTS="127.0.0.1", CONN_MAX_AGE="0")  # fmt: skip
    process, port = start_gunicorn("falte_site.wsgi", "--workers", "2", "--graceful-timeout", "1", env=env)
    yield process, port
    stop_gunicorn(process, timeout=30)


class Client:
    """What the page's save queue does: keep a save until it is acknowledged, send it again after an error."""

    def __init__(self, port, token):
        self.port, self.token = port, token
        self.cookie = self.csrf = ""
        self.errors = 0
        self.answer = b""

    def request(self, method, path, body=None):
        link = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        headers = {"Cookie": self.cookie, "X-CSRFToken": self.csrf, "Content-Type": "application/json"}
        try:
            link.request(method, path, body=json.dumps(body) if body is not None else None, headers=headers)
            response = link.getresponse()
            self.answer = response.read()
        except (OSError, http.client.HTTPException):
            # The worker died under the request: no answer, or an answer cut off mid-body
            # (IncompleteRead); the page's queue takes either as an error and sends the save again.
            return 0
        finally:
            link.close()
        for name, value in response.getheaders():
            if name.lower() == "set-cookie" and value.startswith("csrftoken="):
                self.csrf = value.split(";", 1)[0].split("=", 1)[1]
                self.cookie = f"csrftoken={self.csrf}"
        return response.status

    def save_until_acknowledged(self, body):
        while True:
            status = self.request("POST", f"/api/task/{self.token}/annotations/", body)
            if status in (200, 201):
                return
            assert status in (0, 502, 503), f"a save was refused with {status}: {self.answer[:300]!r}"
            self.errors += 1
            time.sleep(0.05)


def test_no_acknowledged_save_is_lost_or_doubled_while_workers_are_killed(server):
    process, port = server
    assignment = make_task()
    client = Client(port, assignment.token)
    while client.request("GET", f"/task/{assignment.token}/annotate/") != 200:
        assert process.poll() is None, "gunicorn ended before it served the page"
        time.sleep(0.1)
    progress = threading.Condition()
    saved, finished, killed = [0], [False], []

    def killer():
        # A kill after every SAVES / (KILLS + 1) acknowledged saves, so the kills fall among the
        # saves however fast the machine; a short random pause lands some inside a request.
        rng = random.Random(4)
        for kill in range(1, KILLS + 1):
            with progress:
                progress.wait_for(lambda kill=kill: finished[0] or saved[0] >= kill * SAVES // (KILLS + 1))
                if finished[0]:
                    return
            time.sleep(rng.uniform(0, 0.02))
            deadline = time.monotonic() + HANG
            while not (children := server_processes(process.pid)[1:]) and time.monotonic() < deadline:
                time.sleep(0.05)  # the master is replacing the workers killed last time
            if children:  # the workers, not the master
                os.kill(rng.choice(children), signal.SIGKILL)
                killed.append(saved[0])

    thread = threading.Thread(target=killer)
    thread.start()
    try:
        for number in range(SAVES):
            body = {"client_id": f"save-{number}", "category": "CharE", "segment": 0, "start": 0, "end": 3}
            client.save_until_acknowledged(dict(body, text="Tom"))
            with progress:
                saved[0] += 1
                progress.notify_all()
    finally:
        with progress:
            finished[0] = True
            progress.notify_all()
        thread.join()
    assert len(killed) == KILLS, f"the workers must be killed during the saves (after saves {killed})"
    stored = list(ErrorAnnotation.objects.filter(assignment=assignment).values_list("client_id", flat=True))
    assert sorted(stored) == sorted(f"save-{number}" for number in range(SAVES))
