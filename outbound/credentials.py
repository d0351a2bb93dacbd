"""Which key a call on a study's behalf carries: the one place that decides, and the only code
that reads a key.

A key comes from one of two places, never from the server's environment at a
researcher's choice:

- an **operator's key variable** (EVALUATOR_KEY_VARIABLES): the operator names
  an environment variable, the hosts its key may be sent to, and optionally
  the teams (auth groups) whose studies may use it. A variable the operator did
  not list is refused without looking at the environment, so the answer never
  tells whether it exists; the platform's own secrets (SECRET_KEY, database and
  broker URLs, crowd platform tokens, ...) are refused even when listed.
- a **study key** (StudyCredential) a researcher stored for their study:
  encrypted at rest with the operator's CREDENTIALS_KEYS (Fernet; the first key
  encrypts, every key decrypts, so keys rotate), written through the admin or
  the API and never shown again.
"""

import os
import re
from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import urlsplit

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.views.decorators.debug import sensitive_variables

from accounts.models import StudyMembership

from .models import StudyCredential
from .policy import DEFAULT_PORTS

# Environment variables that hold the platform's own secrets: never an evaluator's key.
PLATFORM_SECRETS = frozenset(
    {
        "SECRET_KEY", "SECRET_KEY_FALLBACKS", "PSEUDONYM_SECRET", "DATABASE_URL", "CACHE_URL",
        "CELERY_BROKER_URL", "CELERY_RESULT_BACKEND", "CREDENTIALS_KEYS", "PROLIFIC_API_TOKEN",
        "EMAIL_HOST_PASSWORD", "EMAIL_URL", "REDIS_URL", "PGPASSWORD",
    }
)  # fmt: skip
PLATFORM_SECRET_PREFIXES = ("AWS_", "DJANGO_", "CELERY_", "REDIS_", "POSTGRES_")
MAX_KEY_LENGTH = 4096
_VARIABLE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class KeyUnavailable(Exception):
    """The key cannot be sent as configured; the message says why and never holds a key."""


def is_platform_secret(name):
    return name.upper() in PLATFORM_SECRETS or name.upper().startswith(PLATFORM_SECRET_PREFIXES)


# --- The operator's key variables ---


@dataclass(frozen=True)
class KeyVariable:
    """One entry of EVALUATOR_KEY_VARIABLES: NAME=host[:port][,host...][@team[,team...]]."""

    name: str
    hosts: tuple  # ((host, port or None), ...)
    teams: tuple = ()

    def serves(self, url):
        """Whether this key may be sent to `url` (its host, and port where the entry names one)."""
        parts = urlsplit(url)
        try:
            host, port = (parts.hostname or ""), parts.port or DEFAULT_PORTS.get(parts.scheme)
        except ValueError:
            return False
        return any(host == allowed and expected in (None, port) for allowed, expected in self.hosts)

    def hosts_text(self):
        return ", ".join(host if port is None else f"{host}:{port}" for host, port in self.hosts)


def parse_key_variables(text):
    """[KeyVariable] of the setting's text (entries apart by spaces, new lines or ';'); ValueError."""
    variables = []
    for entry in re.split(r"[\s;]+", text or ""):
        if not entry:
            continue
        name, equals, rest = entry.partition("=")
        if not equals or not _VARIABLE.match(name) or not rest:
            raise ValueError(
                f"{entry!r}: write NAME=host[,host...][@team,...], e.g. OPENAI_API_KEY=api.openai.com"
            )
        where, _, teams = rest.partition("@")
        hosts = []
        for written in where.lower().split(","):
            host, colon, port = written.partition(":")
            if not host or (colon and not (port.isdigit() and 0 < int(port) < 65536)):
                raise ValueError(f"{entry!r}: {written!r} is not a host or host:port")
            hosts.append((host, int(port) if colon else None))
        variables.append(KeyVariable(name, tuple(hosts), tuple(t for t in teams.split(",") if t)))
    return variables


@lru_cache(maxsize=8)
def _variables(text):
    return {variable.name: variable for variable in parse_key_variables(text)}


def key_variables():
    """{name: KeyVariable} the operator allows, without the platform's own secrets."""
    return {
        name: variable
        for name, variable in _variables(settings.EVALUATOR_KEY_VARIABLES).items()
        if not is_platform_secret(name)
    }


def _team_members_only(study, teams):
    """Whether every researcher of `study` (there is at least one) is in one of the groups `teams`."""
    researchers = get_user_model().objects.filter(
        study_memberships__study=study, study_memberships__role=StudyMembership.Role.RESEARCHER
    )
    return researchers.exists() and not researchers.exclude(groups__name__in=teams).exists()


def variable_problem(name, *, url, study=None):
    """Why an evaluator of `study` calling `url` may not send the key in variable `name`, or None.

    Decided from the setting alone: whether the variable is set is never asked here.
    `study` None (a bundle being checked) leaves the team check to the run.
    """
    variable = key_variables().get(name)
    if variable is None:
        usable = sorted(n for n, v in key_variables().items() if not v.teams)
        offered = f" (allowed: {', '.join(usable)})" if usable else " (it allows none)"
        return (
            f"'{name}' is not a key variable the operator allows for evaluators{offered}; "
            "or store the study's own key and name it as 'credential'"
        )
    if url and not variable.serves(url):
        return f"the operator's key {name} is sent only to {variable.hosts_text()}, not to this base_url"
    if study is not None and variable.teams and not _team_members_only(study, variable.teams):
        return f"the operator's key {name} serves only studies whose researchers are all in {', '.join(variable.teams)}"
    return None


# --- The study's own keys ---


def storage_problem():
    """Why no study key can be stored or read on this server, or None."""
    if not any(settings.CREDENTIALS_KEYS):
        return "study keys cannot be stored or read: the operator has not set CREDENTIALS_KEYS (docs/deployment.md)"
    return None


def _fernet():
    problem = storage_problem()
    if problem:
        raise KeyUnavailable(problem)
    return MultiFernet([Fernet(key) for key in settings.CREDENTIALS_KEYS if key])


def secret_problem(secret):
    """Why `secret` cannot be a key (it would not fit in an HTTP header as one), or None."""
    if not isinstance(secret, str) or not secret:
        return "give the key"
    if len(secret) > MAX_KEY_LENGTH:
        return f"a key has at most {MAX_KEY_LENGTH} characters"
    if any(not char.isprintable() or char.isspace() for char in secret) or not secret.isascii():
        return "a key is one line of printable ASCII characters, without spaces"
    return None


@sensitive_variables("secret")
def encrypt(secret):
    """The Fernet token of `secret` under the first of CREDENTIALS_KEYS."""
    return _fernet().encrypt(secret.encode("ascii")).decode("ascii")


@sensitive_variables()
def _decrypt(credential):
    try:
        return _fernet().decrypt(credential.encrypted.encode("ascii")).decode("ascii")
    except InvalidToken:
        raise KeyUnavailable(
            f"the study key '{credential.name}' cannot be decrypted with CREDENTIALS_KEYS: was the key it "
            "was stored with removed? Store the study key again."
        ) from None


@transaction.atomic
def rotate_all():
    """Encrypt every stored key again under the first of CREDENTIALS_KEYS; the number rotated.

    All or nothing: KeyUnavailable, and nothing rotated, when a key cannot be decrypted."""
    fernet = _fernet()
    rotated = 0
    for credential in StudyCredential.objects.select_for_update().order_by("pk"):
        try:
            token = fernet.rotate(credential.encrypted.encode("ascii")).decode("ascii")
        except InvalidToken:
            raise KeyUnavailable(
                f"the key '{credential.name}' of study {credential.study_id} cannot be decrypted with any of "
                "CREDENTIALS_KEYS; nothing was rotated. Put back the key it was stored with."
            ) from None
        StudyCredential.objects.filter(pk=credential.pk).update(encrypted=token)
        rotated += 1
    return rotated


def credential_problem(name, *, study):
    """Why `study` has no usable stored key `name`, or None (study None: checked at the run)."""
    if study is None or StudyCredential.objects.filter(study=study, name=name).exists():
        return None
    return f"the study has no stored key named '{name}': store it under Study keys first"


# --- What a call sends ---


def key_problem(*, study, url, variable="", credential=""):
    """Why a call for `study` to `url` cannot carry the configured key, or None; nothing is decrypted."""
    if variable and credential:
        return "name the operator's key variable or the study's stored key, not both"
    if variable:
        return variable_problem(variable, url=url, study=study)
    if credential:
        return credential_problem(credential, study=study)
    return None


@sensitive_variables()
def key_for(*, study, url, variable="", credential=""):
    """The key a call for `study` to `url` sends, or None for none; KeyUnavailable with the reason."""
    problem = key_problem(study=study, url=url, variable=variable, credential=credential)
    if problem:
        raise KeyUnavailable(problem)
    if variable:
        value = os.environ.get(variable, "")
        if not value:
            raise KeyUnavailable(f"the operator's key variable {variable} is not set on this server")
        return value
    if credential:
        return _decrypt(StudyCredential.objects.get(study=study, name=credential))
    return None
