"""Writes of study keys: store (or rotate) and delete. The key itself goes in encrypted, and no
service returns it."""

from django.db import transaction
from django.views.decorators.debug import sensitive_variables

from . import credentials
from .models import StudyCredential, name_validator


class KeyRefused(ValueError):
    """The key cannot be stored; the message says why (it never holds the key)."""


@sensitive_variables("secret")
@transaction.atomic
def study_credential_store(*, study, name, secret, user=None):
    """Store `secret` as the study's key `name`, replacing (rotating) a key of that name.

    Returns (credential, created). KeyRefused for a bad name or key, or when the
    operator has not set CREDENTIALS_KEYS.
    """
    try:
        name_validator(name)
    except Exception:
        raise KeyRefused("a key's name is letters, digits, '.', '-' and '_' (e.g. openai)") from None
    problem = credentials.secret_problem(secret)
    if problem:
        raise KeyRefused(problem)
    try:
        encrypted = credentials.encrypt(secret)
    except credentials.KeyUnavailable as unavailable:
        raise KeyRefused(str(unavailable)) from None
    credential, created = StudyCredential.objects.select_for_update().get_or_create(
        study=study, name=name, defaults={"encrypted": encrypted, "updated_by": user}
    )
    if not created:
        credential.encrypted, credential.updated_by = encrypted, user
        credential.save(update_fields=["encrypted", "updated_by", "updated_at"])
    return credential, created


def study_credential_delete(*, credential):
    credential.delete()
