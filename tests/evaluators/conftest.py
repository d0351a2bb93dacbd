import pytest

from falte_site.celery import app as celery_app


@pytest.fixture(autouse=True)
def eager_celery():
    """Runs execute in the test's process, also in CI's run with a Redis broker; the real-worker
    and broker-down tests turn this off with their own fixtures."""
    before = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = True
    yield
    celery_app.conf.task_always_eager = before
