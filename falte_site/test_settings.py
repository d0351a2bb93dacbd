"""Settings for the test suite: production settings with a test-only key.

DATABASE_URL and CELERY_BROKER_URL still come from the environment, so the
same suite runs on SQLite (default) and on PostgreSQL + Redis in CI.
"""

import os
import tempfile
from pathlib import Path

os.environ["READ_DOT_ENV"] = "0"
os.environ.setdefault("SECRET_KEY", "test-only-key-not-a-secret-" + "x" * 40)

from .settings import *  # noqa: E402, F403

# Study keys are encrypted with this test-only key (a real deployment sets its own).
CREDENTIALS_KEYS = ["dGVzdC1vbmx5LWNyZWRlbnRpYWxzLWtleS0zMmJ5dGU="]

# Jobs asked for by a request run in the request (eager), so a test sees their result at once;
# tests/evaluators/test_background_runs.py runs them on their thread as the embedded default does.
EAGER_JOBS_IN_BACKGROUND = False

# Tests talk plain HTTP to the test client and the live server.
SECURE_SSL_REDIRECT = False
SESSION_COOKIE_SECURE = False
CSRF_COOKIE_SECURE = False
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# On SQLite the test database is a file, not Django's default in-memory database: in memory
# every thread shares one connection, so requests made at the same moment (the concurrency
# tests, the live server) never meet SQLite's write lock the way gunicorn's processes do.
# One file per test run (by process id) in the temp dir, so two runs side by side on one
# checkout do not delete each other's database; Django removes it at the end of the run.
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":  # noqa: F405
    DATABASES["default"].setdefault("TEST", {})["NAME"] = str(  # noqa: F405
        Path(tempfile.gettempdir()) / f"falte-test-{os.getpid()}.sqlite3"
    )

# The suite sends many API requests from one address within seconds: far higher
# rates here. tests/api/test_throttling.py runs with the production ones.
REST_FRAMEWORK = {
    **REST_FRAMEWORK,  # noqa: F405
    "DEFAULT_THROTTLE_RATES": dict.fromkeys(REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "100000/minute"),  # noqa: F405
}

# The cache stays the production default (the database here, the broker's Redis in CI's
# Redis run), so the rate limits count in the suite where they count in production; the
# suite is no slower for it (docs/decisions.md, "The rate limits count in the database on
# the embedded default"). On Redis, each process of the suite (pytest-xdist's workers, and
# any run beside this one on the same Redis database) counts under a key prefix of its own,
# as each has a test database of its own: one process's counts never reach another's users.
if CACHES["default"]["BACKEND"] == "api.cache.BrokerRedisCache":  # noqa: F405
    CACHES = {"default": {**CACHES["default"], "KEY_PREFIX": f"falte-cache-test-{os.getpid()}"}}  # noqa: F405

# No collectstatic before the tests: `{% static %}` gives plain names and WhiteNoise
# reads the apps' static directories. tests/test_static_files.py runs collectstatic
# with the production storage into a temporary directory.
STORAGES = {
    **STORAGES,  # noqa: F405
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = True
