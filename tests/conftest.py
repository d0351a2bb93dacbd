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
