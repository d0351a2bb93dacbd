"""Keys a study's researchers stored for the calls made on the study's behalf (outbound/credentials.py)."""

from django.conf import settings
from django.core.validators import RegexValidator
from django.db import models

name_validator = RegexValidator(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$", "Letters, digits, '.', '-' and '_'.")


class StudyCredential(models.Model):
    """An API key of one study, encrypted at rest (Fernet, CREDENTIALS_KEYS); written, never shown.

    Only outbound/credentials.py decrypts it, for the call that sends it: no
    admin page, API answer, bundle, export, report or log holds the key.
    Storing a new key under the same name replaces (rotates) it.
    """

    study = models.ForeignKey("studies.Study", on_delete=models.CASCADE, related_name="credentials")
    name = models.CharField(
        max_length=64,
        validators=[name_validator],
        help_text="What evaluators name it by (their 'credential').",
    )
    # The Fernet token (url-safe base64 text): the key encrypted with the first of CREDENTIALS_KEYS.
    encrypted = models.TextField(editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True, help_text="When the key was last stored (rotated).")
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["study", "name"]
        constraints = [models.UniqueConstraint(fields=["study", "name"], name="credential_unique_name")]
        verbose_name = "study key"

    def __str__(self):
        return f"{self.name} (key of study {self.study_id})"
