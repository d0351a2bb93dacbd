"""CI claims to run on PostgreSQL and Redis: make sure it really does.

Outside CI (no EXPECT_* variables) these check what DATABASE_URL and
CELERY_BROKER_URL ask for, or the embedded default (SQLite, no broker).
"""

import os

import pytest
from django.conf import settings
from django.db import connection

from falte_site.celery import app as celery_app

VENDORS = {"sqlite": "sqlite", "postgres": "postgresql", "postgresql": "postgresql", "pgsql": "postgresql",
           "postgis": "postgresql", "mysql": "mysql", "mysql2": "mysql"}  # fmt: skip


def expected_vendor():
    if os.environ.get("EXPECT_DATABASE"):
        return os.environ["EXPECT_DATABASE"]
    scheme = os.environ.get("DATABASE_URL", "sqlite://").split(":", 1)[0].lower()
    return VENDORS.get(scheme, f"unknown scheme {scheme!r} in DATABASE_URL")


@pytest.mark.django_db
def test_database_is_the_one_ci_expects():
    assert connection.vendor == expected_vendor()


def test_celery_runs_eagerly_without_a_broker_and_reaches_redis_with_one():
    if os.environ.get("EXPECT_BROKER") == "redis" or settings.CELERY_BROKER_URL:
        assert settings.CELERY_BROKER_URL.startswith("redis://")
        assert not settings.CELERY_TASK_ALWAYS_EAGER
        with celery_app.connection_for_write() as connection_:
            connection_.ensure_connection(max_retries=1)
    else:
        assert settings.CELERY_TASK_ALWAYS_EAGER


def test_settings_refuse_to_start_without_a_secret_when_debug_is_off():
    import subprocess
    import sys

    env = {k: v for k, v in os.environ.items() if k not in {"SECRET_KEY", "DEBUG"}}
    env.update(READ_DOT_ENV="0", DJANGO_SETTINGS_MODULE="falte_site.settings", DEBUG="0")
    result = subprocess.run(
        [sys.executable, "-c", "import django; django.setup()"],
        env=env, capture_output=True, text=True, cwd=settings.BASE_DIR,
    )  # fmt: skip
    assert result.returncode != 0
    assert "SECRET_KEY must be set when DEBUG is off" in result.stderr
