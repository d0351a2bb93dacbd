"""Study keys in admin: written once, never shown again; a new key under the same name rotates it."""

from django import forms
from django.contrib import admin

from studies.admin.scoping import StudyListFilter, StudyScopedAdmin

from . import credentials
from .models import StudyCredential
from .services import study_credential_store


class StudyCredentialForm(forms.ModelForm):
    key = forms.CharField(
        label="Key",
        required=False,
        strip=True,
        widget=forms.PasswordInput(render_value=False, attrs={"autocomplete": "new-password"}),
        help_text="The API key. It is stored encrypted and never shown again; to replace it, enter a new one. "
        "Leave empty to keep the stored key.",
    )

    class Meta:
        model = StudyCredential
        fields = ["study", "name"]

    def clean(self):
        data = super().clean()
        key = data.get("key")
        if key:
            problem = credentials.secret_problem(key) or credentials.storage_problem()
            if problem:
                self.add_error("key", problem)
        elif self.instance.pk is None:
            self.add_error("key", "Give the key to store.")
        return data


@admin.register(StudyCredential)
class StudyCredentialAdmin(StudyScopedAdmin):
    form = StudyCredentialForm
    list_display = ["name", "study", "updated_at", "updated_by"]
    list_filter = [StudyListFilter]
    list_select_related = ["study", "updated_by"]
    search_fields = ["name"]
    readonly_fields = ["created_at", "updated_at", "updated_by"]
    fieldsets = [
        (
            None,
            {
                "fields": ["study", "name", "key", "created_at", "updated_at", "updated_by"],
                "description": "A key your study's evaluators send (name it as their 'credential'). "
                "It is encrypted at rest and shown to nobody, you included.",
            },
        )
    ]

    def get_readonly_fields(self, request, obj=None):
        # The name and study of a stored key stay: evaluators name it.
        return [*self.readonly_fields, "study", "name"] if obj is not None else self.readonly_fields

    def save_model(self, request, obj, form, change):
        secret = form.cleaned_data.get("key")
        if not secret:
            return  # a change page saved without a new key: the stored one stays
        credential, _ = study_credential_store(
            study=obj.study, name=obj.name, secret=secret, user=request.user
        )
        obj.pk, obj.encrypted = credential.pk, credential.encrypted
