import pytest

from tests.factories import UserFactory


@pytest.fixture
def researcher(db):
    """A staff user in the researcher group (what `create_researcher` makes)."""
    from accounts.services import researcher_create

    return researcher_create(username="researcher-a", password="pass-w0rd-for-tests")


@pytest.fixture
def other_researcher(db):
    from accounts.services import researcher_create

    return researcher_create(username="researcher-b", password="pass-w0rd-for-tests")


@pytest.fixture
def superuser(db):
    return UserFactory(username="root-user", is_staff=True, is_superuser=True)


@pytest.fixture
def eager_celery():
    """Jobs run in the test's process, also in CI's run with a Redis broker (as on the embedded
    default); the real-worker and broker-down tests turn this off with their own fixtures."""
    from falte_site.celery import app as celery_app

    before = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = True
    yield
    celery_app.conf.task_always_eager = before
