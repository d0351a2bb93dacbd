"""Rate limits of the REST API: a loop of bad tokens from one address is cut off
with 429, with the rates a production deployment runs with; anonymous and user
rates apply and come from the environment."""

import json
import os
import subprocess
import sys
import uuid

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle

from falte_site import settings as production_settings

pytestmark = pytest.mark.django_db

GUESSER = "203.0.113.7"
NEIGHBOUR = "198.51.100.23"


@pytest.fixture
def rates(monkeypatch, clock):
    """Run with the production rates (the test settings raise them), on counts of the test's own,
    with the throttles' timer on the test's clock: every request of a test falls in one window
    however slow the machine, and the window passes only when the test advances the clock.

    DRF binds the rates to its throttle classes when it imports them, so they
    are swapped there. The counts get keys that no other test uses, rather than
    a cleared cache: on Redis the cache is shared with other test runs."""
    production = dict(production_settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"])
    monkeypatch.setattr(SimpleRateThrottle, "THROTTLE_RATES", production)
    monkeypatch.setattr(SimpleRateThrottle, "timer", staticmethod(clock.time))
    monkeypatch.setattr(
        SimpleRateThrottle, "cache_format", f"throttle_{uuid.uuid4().hex}_%(scope)s_%(ident)s"
    )
    return production


def allowed(rate):
    number, _ = rate.split("/")
    return int(number)


def get(url, address, **headers):
    return Client(REMOTE_ADDR=address).get(url, **headers)


def test_a_bad_token_loop_is_cut_off_with_429(rates, researcher):
    url = reverse("study-list")
    limit = allowed(rates["failed_token"])
    for guess in range(limit):
        response = get(url, GUESSER, HTTP_AUTHORIZATION=f"Token guess-{guess:040d}")
        assert response.status_code == 401, guess
    response = get(url, GUESSER, HTTP_AUTHORIZATION="Token one-more-guess")
    assert response.status_code == 429
    assert int(response["Retry-After"]) > 0
    assert "throttled" in response.json()["detail"].lower()

    # Even a right token from the guessing address waits; a neighbour's does not.
    token = Token.objects.create(user=researcher).key
    assert get(url, GUESSER, HTTP_AUTHORIZATION=f"Token {token}").status_code == 429
    assert get(url, NEIGHBOUR, HTTP_AUTHORIZATION=f"Token {token}").status_code == 200


def test_good_tokens_never_count_as_failures(rates, researcher):
    url = reverse("study-list")
    token = Token.objects.create(user=researcher).key
    for _ in range(allowed(rates["failed_token"]) + 5):
        assert get(url, GUESSER, HTTP_AUTHORIZATION=f"Token {token}").status_code == 200


def test_a_browser_session_from_the_guessing_address_still_works(rates, researcher):
    client = Client(REMOTE_ADDR=GUESSER)
    client.force_login(researcher)
    for guess in range(allowed(rates["failed_token"]) + 1):
        get(reverse("study-list"), GUESSER, HTTP_AUTHORIZATION=f"Token guess-{guess}")
    assert client.get(reverse("study-list")).status_code == 200


def test_anonymous_reads_of_the_schema_are_rate_limited(rates, clock):
    url = reverse("api-schema")
    for _ in range(allowed(rates["anon"])):
        assert get(url, GUESSER).status_code == 200
    refused = get(url, GUESSER)
    assert refused.status_code == 429
    assert get(url, NEIGHBOUR).status_code == 200

    clock.advance(int(refused["Retry-After"]))  # the wait the 429 asked for
    assert get(url, GUESSER).status_code == 200


def test_a_user_is_rate_limited_per_user(rates, monkeypatch, researcher, other_researcher):
    monkeypatch.setitem(rates, "user", "3/minute")  # the production rate takes 1,000s of requests
    url = reverse("study-list")
    token = Token.objects.create(user=researcher).key
    for address in [GUESSER, NEIGHBOUR, GUESSER]:
        assert get(url, address, HTTP_AUTHORIZATION=f"Token {token}").status_code == 200
    assert get(url, NEIGHBOUR, HTTP_AUTHORIZATION=f"Token {token}").status_code == 429
    other = Token.objects.create(user=other_researcher).key
    assert get(url, GUESSER, HTTP_AUTHORIZATION=f"Token {other}").status_code == 200


def test_the_production_rates_are_set_and_the_test_settings_raise_them():
    production = production_settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]
    assert set(production) >= {"anon", "user", "failed_token"}
    assert api_settings.DEFAULT_THROTTLE_CLASSES
    for scope, rate in api_settings.DEFAULT_THROTTLE_RATES.items():
        assert allowed(rate) > allowed(production[scope])


def test_the_rates_come_from_the_environment():
    environment = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "falte_site.settings",
        "READ_DOT_ENV": "0",
        "SECRET_KEY": "x" * 50,
        "API_THROTTLE_ANON": "7/minute",
        "API_THROTTLE_USER": "8/minute",
        "API_THROTTLE_FAILED_TOKEN": "9/hour",
    }
    code = "import json; from django.conf import settings; print(json.dumps(settings.REST_FRAMEWORK['DEFAULT_THROTTLE_RATES']))"
    output = subprocess.run(
        [sys.executable, "-c", code], env=environment, capture_output=True, text=True, check=True
    ).stdout
    assert json.loads(output) == {"anon": "7/minute", "user": "8/minute", "failed_token": "9/hour"}
