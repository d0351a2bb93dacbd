"""`make demo`'s output: what a researcher reads before the server starts.

Run as `make demo` runs it, in processes of their own on a fresh SQLite file with no broker,
so the output is what a researcher sees (a warning logged once per process included).
"""

import os
import re
import subprocess
import sys

import pytest


@pytest.fixture(scope="module")
def demo_output(tmp_path_factory):
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("CELERY_BROKER_URL", "DJANGO_SETTINGS_MODULE")
    }
    env.update(
        DATABASE_URL=f"sqlite:///{tmp_path_factory.mktemp('demo') / 'demo.sqlite3'}",
        READ_DOT_ENV="0", DEBUG="1", SITE_URL="http://127.0.0.1:8123",
        SECRET_KEY="test-only-key-not-a-secret-" + "x" * 40,
        CREDENTIALS_KEYS="dGVzdC1vbmx5LWNyZWRlbnRpYWxzLWtleS0zMmJ5dGU=",
    )  # fmt: skip
    manage = [sys.executable, "manage.py"]
    subprocess.run([*manage, "migrate", "-v", "0", "--no-input"], env=env, check=True, capture_output=True)
    done = subprocess.run(
        [*manage, "load_demo", "--evaluators", "--model-port", "0"], env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return done.stdout + done.stderr


def test_the_demo_ends_on_the_researchers_login_at_the_chosen_address(demo_output):
    lines = demo_output.rstrip().splitlines()
    assert lines[-3] == "Researcher console: http://127.0.0.1:8123/console/"
    assert lines[-2] == "  username: researcher"
    assert re.fullmatch(r"  password: \S{12,}  \(a new one each run\)", lines[-1])
    task_links = [line for line in lines if "/task/" in line]
    assert task_links and all("\thttp://127.0.0.1:8123/task/" in line for line in task_links)


def test_the_demo_prints_no_broker_warning_and_explains_its_counts(demo_output):
    """With no broker, jobs run in the process; nothing looks for one on localhost."""
    assert "hostname" not in demo_output.lower()
    placed = re.search(r"placed in the text: (\d+) \(at (\d+) places\)", demo_output)
    suggestions = re.search(
        r"suggestions: (\d+) on \d+ documents .*\(one per place an error was found\)", demo_output
    )
    assert placed and suggestions
    assert int(placed.group(2)) == int(suggestions.group(1)) > int(placed.group(1))  # an error quoted twice


def test_make_demo_takes_the_port_and_the_model_servers_port():
    commands = subprocess.run(
        ["make", "-n", "demo", "PORT=8123", "MODEL_PORT=8124"], capture_output=True, text=True, check=True
    ).stdout
    assert "SITE_URL=http://127.0.0.1:8123" in commands and "runserver 127.0.0.1:8123" in commands
    assert "--model-port 8124" in commands
