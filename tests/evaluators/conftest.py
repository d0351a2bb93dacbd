import pytest


@pytest.fixture(autouse=True)
def _eager_runs(eager_celery):
    """Runs execute in the test's process (tests/conftest.py eager_celery)."""


@pytest.fixture(autouse=True)
def _local_endpoints(settings):
    """The local OpenAI-compatible servers of these tests listen on 127.0.0.1, as an operator's local
    model server would: the operator allows it, and the key variables the tests name for it. The
    outbound policy's own tests (tests/outbound/) allow nothing of the kind."""
    settings.OUTBOUND_ALLOWED_HOSTS = ["127.0.0.1"]
    settings.EVALUATOR_KEY_VARIABLES = "EVAL_KEY_FOR_TEST=127.0.0.1 JUDGE_KEY=127.0.0.1,judge-box"
