"""Admin login: after AXES_FAILURE_LIMIT wrong passwords for one username from one
address, even the right password is refused until the cool-off ends or an
administrator resets the lock."""

from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from django.conf import settings
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

pytestmark = pytest.mark.django_db

PASSWORD = "pass-w0rd-for-tests"


def log_in(username, password, address="203.0.113.7"):
    client = Client(REMOTE_ADDR=address)
    response = client.post(reverse("admin:login"), {"username": username, "password": password})
    return response, client


def logged_in(client):
    return client.get(reverse("admin:index")).status_code == 200


def fail(username, times, address="203.0.113.7"):
    for _ in range(times):
        response, _ = log_in(username, "wrong-password", address)
        assert response.status_code in (200, 429)


def test_the_right_password_logs_in_after_a_few_wrong_ones(researcher):
    fail("researcher-a", settings.AXES_FAILURE_LIMIT - 1)
    response, client = log_in("researcher-a", PASSWORD)
    assert response.status_code == 302 and logged_in(client)


def test_too_many_wrong_passwords_lock_the_login_with_a_clear_page(researcher):
    fail("researcher-a", settings.AXES_FAILURE_LIMIT)
    response, client = log_in("researcher-a", PASSWORD)
    assert response.status_code == 429
    assert not logged_in(client)
    page = response.content.decode()
    assert "Too many failed logins" in page and "15 minutes" in page
    assert "Content-Security-Policy" in response


def test_forty_wrong_passwords_never_reach_the_right_one(researcher):
    fail("researcher-a", 40)
    response, client = log_in("researcher-a", PASSWORD)
    assert response.status_code == 429 and not logged_in(client)


def test_the_lock_is_for_that_username_from_that_address(researcher, other_researcher):
    fail("researcher-a", settings.AXES_FAILURE_LIMIT)
    response, client = log_in("researcher-b", PASSWORD)
    assert response.status_code == 302 and logged_in(client)
    response, client = log_in("researcher-a", PASSWORD, address="198.51.100.23")
    assert response.status_code == 302 and logged_in(client)


def test_an_administrator_resets_the_lock(researcher):
    fail("researcher-a", settings.AXES_FAILURE_LIMIT)
    assert log_in("researcher-a", PASSWORD)[0].status_code == 429
    call_command("axes_reset_username", "researcher-a")
    response, client = log_in("researcher-a", PASSWORD)
    assert response.status_code == 302 and logged_in(client)


def test_the_lock_ends_after_the_cool_off(researcher):
    fail("researcher-a", settings.AXES_FAILURE_LIMIT)
    assert log_in("researcher-a", PASSWORD)[0].status_code == 429
    earlier = settings.AXES_COOLOFF_TIME + timedelta(seconds=1)
    for attempt in AccessAttempt.objects.all():
        AccessAttempt.objects.filter(pk=attempt.pk).update(attempt_time=attempt.attempt_time - earlier)
    response, client = log_in("researcher-a", PASSWORD)
    assert response.status_code == 302 and logged_in(client)
