from datetime import timedelta

import pytest
from django.utils import timezone

from tests.factories import UserFactory


class Clock:
    """A clock the test moves by hand: it starts at the real time and stands still until `advance`."""

    def __init__(self):
        self.moment = timezone.now()

    def now(self):
        """The time as `django.utils.timezone.now` tells it."""
        return self.moment

    def time(self):
        """The time as `time.time` tells it: seconds since the epoch."""
        return self.moment.timestamp()

    def advance(self, seconds):
        self.moment += timedelta(seconds=seconds)


@pytest.fixture
def clock(monkeypatch):
    """Django's time, frozen: every `timezone.now()` the code asks for tells `clock.now()`, which moves
    only when the test calls `clock.advance(seconds)`. A test that counts on time passing (or not)
    between two requests then does not depend on how fast the machine is."""
    frozen = Clock()
    monkeypatch.setattr(timezone, "now", frozen.now)
    return frozen


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
