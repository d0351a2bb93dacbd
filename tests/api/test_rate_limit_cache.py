"""Where the API's rate limits count: a cache every web process shares, in each set-up.

CACHE_URL when it is set, else the Celery broker's Redis, else the database
(a table that `migrate` makes). Only the API's throttles use it: the worker
pages, saves and logins never touch it.
"""

import json
import os
import subprocess
import sys
import uuid

import pytest
import redis
from django.conf import settings
from django.core.checks import run_checks
from django.db import connection
from django.test import Client, override_settings
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from rest_framework.authtoken.models import Token

from api.cache import BrokerRedisCache
from tests.browser.task_page import make_task

DATABASE_CACHE = {
    "default": {"BACKEND": "django.core.cache.backends.db.DatabaseCache", "LOCATION": "api_cache"}
}
LOCAL_REDIS = "redis://127.0.0.1:6379/0"


def production_caches(**environment):
    """settings.CACHES of the production settings under `environment` (and no other cache or broker)."""
    kept = {
        name: value for name, value in os.environ.items() if name not in {"CACHE_URL", "CELERY_BROKER_URL"}
    }
    code = "import json; from django.conf import settings; print(json.dumps(settings.CACHES))"
    output = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=settings.BASE_DIR,
        env={**kept, "DJANGO_SETTINGS_MODULE": "falte_site.settings", "READ_DOT_ENV": "0",
             "SECRET_KEY": "x" * 50, **environment},
    ).stdout  # fmt: skip
    return json.loads(output)["default"]


def test_the_embedded_default_counts_in_the_database():
    assert production_caches() == DATABASE_CACHE["default"]


def test_a_redis_broker_lends_its_redis_under_a_prefix_of_the_cache():
    assert production_caches(CELERY_BROKER_URL="redis://broker.internal:6379/2") == {
        "BACKEND": "api.cache.BrokerRedisCache",
        "LOCATION": "redis://broker.internal:6379/2",
        "KEY_PREFIX": "falte-cache",
    }


def test_cache_url_wins_over_the_broker():
    cache = production_caches(
        CACHE_URL="redis://cache.internal:6379/1", CELERY_BROKER_URL="redis://broker.internal:6379/0"
    )
    assert cache["BACKEND"] == "django.core.cache.backends.redis.RedisCache"
    assert cache["LOCATION"] == "redis://cache.internal:6379/1"


@pytest.mark.django_db
def test_migrate_made_the_cache_table():
    assert "api_cache" in connection.introspection.table_names()


@pytest.mark.django_db
@override_settings(CACHES=DATABASE_CACHE)  # in both of CI's runs, so that its statements can be seen
def test_only_the_api_writes_to_the_cache(researcher, superuser):
    assignment = make_task()
    worker = Client()
    with CaptureQueriesContext(connection) as worker_pages:
        assert worker.get(reverse("task-annotate", args=[assignment.token])).status_code == 200
        save = {"client_id": "c1", "category": "CharE", "segment": 0, "start": 0, "end": 3, "text": "Tom"}
        answer = worker.post(
            f"/api/task/{assignment.token}/annotations/", save, content_type="application/json"
        )
        assert answer.status_code in (200, 201)
    browser = Client()
    with CaptureQueriesContext(connection) as logins:
        answer = browser.post(
            reverse("admin:login"), {"username": "researcher-a", "password": "pass-w0rd-for-tests"}
        )
        assert answer.status_code == 302
        assert browser.get(reverse("admin:index")).status_code == 200
    token = Token.objects.create(user=researcher).key
    with CaptureQueriesContext(connection) as api:
        assert Client().get(reverse("study-list"), HTTP_AUTHORIZATION=f"Token {token}").status_code == 200

    def touch_the_cache(queries):
        return [query["sql"] for query in queries if "api_cache" in query["sql"]]

    assert touch_the_cache(worker_pages) == []
    assert touch_the_cache(logins) == []
    assert touch_the_cache(api)  # the check above sees the cache when it is used


def test_clearing_the_cache_on_the_broker_leaves_the_queued_jobs():
    url = os.environ.get("CELERY_BROKER_URL", "")
    if not url.startswith("redis://"):
        if os.environ.get("EXPECT_BROKER") == "redis":
            pytest.fail("CI's Redis run must set CELERY_BROKER_URL=redis://...")
        url = LOCAL_REDIS
    client = redis.Redis.from_url(url, socket_connect_timeout=2)
    try:
        client.ping()
    except redis.RedisError:
        pytest.skip(f"needs Redis ({url})")
    queue = f"test-queue-{uuid.uuid4().hex}"
    cache = BrokerRedisCache(url, {"KEY_PREFIX": f"test-cache-{uuid.uuid4().hex}"})
    try:
        client.rpush(queue, "a queued job")
        cache.set("throttle_failed_token_203.0.113.7", [1.0])
        cache.clear()
        assert cache.get("throttle_failed_token_203.0.113.7") is None
        assert client.lrange(queue, 0, -1) == [b"a queued job"]
    finally:
        client.delete(queue)


@pytest.mark.parametrize("backend", ["locmem.LocMemCache", "dummy.DummyCache"])
def test_the_deploy_check_warns_of_a_cache_each_process_keeps_to_itself(backend):
    with override_settings(CACHES={"default": {"BACKEND": f"django.core.cache.backends.{backend}"}}):
        warnings = run_checks(include_deployment_checks=True, tags=["caches"])
    assert [warning.id for warning in warnings] == ["api.W001"]
    with override_settings(CACHES=DATABASE_CACHE):
        assert run_checks(include_deployment_checks=True, tags=["caches"]) == []
