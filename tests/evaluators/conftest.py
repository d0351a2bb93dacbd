import pytest


@pytest.fixture(autouse=True)
def _eager_runs(eager_celery):
    """Runs execute in the test's process (tests/conftest.py eager_celery)."""
