"""The production database settings: persistent connections, and on PostgreSQL server-side
binding with prepared statements (docs/deployment.md, "Database connections")."""

import json
import os
import subprocess
import sys

import pytest
from django.conf import settings
from django.db import connection

from tests.annotations.task_api import post
from tests.factories import AssignmentFactory, make_span_study

POSTGRES_URL = "postgres://postgres@127.0.0.1:5432/postgres"
PRODUCTION = {
    "READ_DOT_ENV": "0", "DJANGO_SETTINGS_MODULE": "falte_site.settings", "DEBUG": "0",
    "SECRET_KEY": "settings-test-key-" + "x" * 40, "ALLOWED_HOSTS": "eval.example.org",
}  # fmt: skip
# The operator's settings this file sets itself, and the browser tests' DJANGO_ALLOW_ASYNC_UNSAFE
# (tests/browser/conftest.py), which a test process that loaded them carries and the deploy check refuses.
CLEARED = {
    "CONN_MAX_AGE", "CONN_HEALTH_CHECKS", "DATABASE_PREPARE_THRESHOLD", "DATABASE_URL", "DEBUG",
    "DJANGO_ALLOW_ASYNC_UNSAFE",
}  # fmt: skip


def production_settings(**overrides):
    """The default database's settings as a fresh process loads them from the environment."""
    env = {key: value for key, value in os.environ.items() if key not in CLEARED}
    env.update(PRODUCTION, **overrides)
    script = "import json; from django.conf import settings as s; print(json.dumps(s.DATABASES['default']))"
    result = subprocess.run(
        [sys.executable, "-c", script],
        env=env,
        capture_output=True,
        text=True,
        cwd=settings.BASE_DIR,
        check=True,
    )
    return json.loads(result.stdout)


def test_production_keeps_connections_and_prepares_statements_on_postgresql():
    database = production_settings(DATABASE_URL=POSTGRES_URL)
    assert database["CONN_MAX_AGE"] == 60
    assert database["CONN_HEALTH_CHECKS"] is False
    assert database["OPTIONS"]["server_side_binding"] is True
    assert database["OPTIONS"]["prepare_threshold"] == 5


def test_an_operator_can_turn_prepared_statements_off_and_health_checks_on():
    database = production_settings(
        DATABASE_URL=POSTGRES_URL, DATABASE_PREPARE_THRESHOLD="", CONN_HEALTH_CHECKS="1", CONN_MAX_AGE="0"
    )
    assert database["OPTIONS"]["prepare_threshold"] is None
    assert database["CONN_HEALTH_CHECKS"] is True
    assert database["CONN_MAX_AGE"] == 0


def test_the_development_server_opens_a_connection_per_request():
    # runserver starts a thread per request: a kept connection per thread would pile up.
    assert production_settings(DEBUG="1", DATABASE_URL=POSTGRES_URL)["CONN_MAX_AGE"] == 0


def test_sqlite_gets_no_postgresql_options():
    options = production_settings(DATABASE_URL="sqlite:////tmp/falte-settings-test.sqlite3")["OPTIONS"]
    assert "server_side_binding" not in options
    assert "prepare_threshold" not in options


def test_the_deploy_check_passes_with_the_production_settings():
    env = {key: value for key, value in os.environ.items() if key not in CLEARED}
    env.update(PRODUCTION, DATABASE_URL=POSTGRES_URL, CELERY_BROKER_URL="redis://127.0.0.1:6379/0")
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        env=env, capture_output=True, text=True, cwd=settings.BASE_DIR,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr


@pytest.mark.django_db
@pytest.mark.skipif(connection.vendor != "postgresql", reason="prepared statements are PostgreSQL's")
def test_repeated_saves_run_as_a_prepared_statement(client):
    study = make_span_study(documents=1, segments=3)
    assignment = AssignmentFactory(document=study.documents.get())
    for number in range(6):
        body = {
            "client_id": f"c{number}",
            "category": "CharE",
            "segment": 0,
            "start": 25,
            "end": 29,
            "text": "Anna",
        }
        assert post(client, "task-api-annotations", assignment, body).status_code == 201
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_prepared_statements WHERE statement LIKE %s",
            ['UPDATE "annotations_assignment"%'],
        )
        assert cursor.fetchone()[0] == 1
