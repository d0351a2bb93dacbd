import pytest
from django.test import Client


@pytest.fixture
def client(researcher):
    """The console's tests act as a logged-in researcher."""
    client = Client()
    client.force_login(researcher)
    return client
