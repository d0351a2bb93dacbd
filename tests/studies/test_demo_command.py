"""`make demo`'s output: what a researcher reads before the server starts."""

import logging
import re
import subprocess

import pytest
from django.core.management import call_command

pytestmark = pytest.mark.django_db(transaction=True)


def demo_output(settings, caplog):
    from io import StringIO

    settings.SITE_URL = "http://127.0.0.1:8123"
    out = StringIO()
    with caplog.at_level(logging.WARNING):
        call_command("load_demo", "--evaluators", "--model-port", "0", stdout=out)
    return out.getvalue()


def test_the_demo_ends_on_the_researchers_login_at_the_chosen_address(settings, caplog):
    lines = demo_output(settings, caplog).rstrip().splitlines()
    assert lines[-3] == "Researcher console: http://127.0.0.1:8123/console/"
    assert lines[-2] == "  username: researcher"
    assert re.fullmatch(r"  password: \S{12,}  \(a new one each run\)", lines[-1])
    task_links = [line for line in lines if "/task/" in line]
    assert task_links and all("\thttp://127.0.0.1:8123/task/" in line for line in task_links)


def test_the_demo_prints_no_broker_warning_and_explains_its_counts(settings, caplog):
    """With no broker, jobs run in the process; nothing looks for one on localhost."""
    output = demo_output(settings, caplog)
    assert not [record for record in caplog.records if "hostname" in record.getMessage().lower()]
    placed = re.search(r"placed in the text: (\d+) \(at (\d+) places\)", output)
    suggestions = re.search(r"suggestions: (\d+) on \d+ documents .*\(one per place an error was found\)", output)
    assert placed and suggestions
    assert int(placed.group(2)) == int(suggestions.group(1)) > int(placed.group(1))  # an error quoted twice


def test_make_demo_takes_the_port_and_the_model_servers_port():
    commands = subprocess.run(
        ["make", "-n", "demo", "PORT=8123", "MODEL_PORT=8124"], capture_output=True, text=True, check=True
    ).stdout
    assert "SITE_URL=http://127.0.0.1:8123" in commands and "runserver 127.0.0.1:8123" in commands
    assert "--model-port 8124" in commands
