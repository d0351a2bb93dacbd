import pytest


@pytest.fixture(autouse=True)
def _local_platform_servers(settings):
    """The local Prolific server of these tests listens on 127.0.0.1: the operator allows it, as one
    would a platform's test endpoint on their own network (tests/outbound/ allows nothing)."""
    settings.OUTBOUND_ALLOWED_HOSTS = ["127.0.0.1"]
