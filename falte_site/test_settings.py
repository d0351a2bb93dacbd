"""Settings for the test suite: production settings with a test-only key.

DATABASE_URL and CELERY_BROKER_URL still come from the environment, so the
same suite runs on SQLite (default) and on PostgreSQL + Redis in CI.
"""

import os

os.environ["READ_DOT_ENV"] = "0"
os.environ.setdefault("SECRET_KEY", "test-only-key-not-a-secret-" + "x" * 40)

from .settings import *  # noqa: E402, F403

# Tests talk plain HTTP to the test client and the live server.
SECURE_SSL_REDIRECT = False
SESSION_COOKIE_SECURE = False
CSRF_COOKIE_SECURE = False
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# The suite sends many API requests from one address within seconds: far higher
# rates here. tests/api/test_throttling.py runs with the production ones.
REST_FRAMEWORK = {
    **REST_FRAMEWORK,  # noqa: F405
    "DEFAULT_THROTTLE_RATES": dict.fromkeys(REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "100000/minute"),  # noqa: F405
}
