"""Start-up checks of the operator's outbound settings: a bad entry stops the server with its reason."""

from cryptography.fernet import Fernet
from django.conf import settings
from django.core.checks import Error, register

from .credentials import is_platform_secret, parse_key_variables
from .policy import parse_allowed_host


@register()
def outbound_settings(app_configs=None, **kwargs):
    errors = []
    for entry in settings.OUTBOUND_ALLOWED_HOSTS:
        try:
            parse_allowed_host(entry)
        except ValueError as error:
            errors.append(Error(f"OUTBOUND_ALLOWED_HOSTS: {error}", id="outbound.E001"))
    try:
        variables = parse_key_variables(settings.EVALUATOR_KEY_VARIABLES)
    except ValueError as error:
        errors.append(Error(f"EVALUATOR_KEY_VARIABLES: {error}", id="outbound.E002"))
    else:
        for variable in variables:
            if is_platform_secret(variable.name):
                errors.append(
                    Error(
                        f"EVALUATOR_KEY_VARIABLES names {variable.name}, a secret of the platform itself: "
                        "it is never sent to an evaluator. Give the evaluators' key its own variable.",
                        id="outbound.E003",
                    )
                )
    for number, key in enumerate(settings.CREDENTIALS_KEYS, start=1):
        try:
            Fernet(key)
        except ValueError:
            errors.append(
                Error(
                    f"CREDENTIALS_KEYS: key {number} is not a Fernet key (32 url-safe base64-encoded bytes; "
                    "make one with `python manage.py new_credentials_key`)",
                    id="outbound.E004",
                )
            )
    return errors
