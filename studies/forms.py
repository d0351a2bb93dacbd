"""Forms of the researchers' admin pages: studies, categories, uploads, assignment generation."""

import re
from pathlib import PurePath

from django import forms
from django.contrib.auth import get_user_model

from accounts.models import StudyMembership, Worker

from .config import config_problems
from .models import Category, Document, Study
from .services import text_segments

DOCUMENT_SUFFIXES = (".jsonl", ".json")


class StudyForm(forms.ModelForm):
    """The study form of admin: its config is checked against the protocol chosen in the same form."""

    class Meta:
        model = Study
        fields = ["protocol", "config"]  # admin adds the fields of its fieldsets

    def clean(self):
        cleaned = super().clean()
        if "config" not in cleaned:
            return cleaned  # not JSON at all: the field has said so
        if cleaned["config"] is None:
            cleaned["config"] = {}  # an emptied field means no options, not SQL NULL
        protocol = cleaned.get("protocol") or self.instance.protocol
        problems = config_problems(cleaned["config"], protocol=protocol)
        if problems:
            self.add_error("config", [str(problem) for problem in problems])
        return cleaned


class ActiveUsernameField(forms.ModelChoiceField):
    """A user given by their exact username, never chosen from a list of the site's accounts.

    A missing account and an inactive one get the same error, so the field
    tells nothing about who has (had) a login.
    """

    widget = forms.TextInput

    def __init__(self, **kwargs):
        kwargs.setdefault("help_text", "Their exact username (ask your colleague for it).")
        super().__init__(
            queryset=get_user_model().objects.filter(is_active=True),
            to_field_name="username",
            error_messages={"invalid_choice": "There is no active user with this username."},
            **kwargs,
        )

    def prepare_value(self, value):
        # A stored membership gives the user's id: show the name instead.
        if isinstance(value, int):
            return get_user_model().objects.filter(pk=value).values_list("username", flat=True).first()
        return super().prepare_value(value)


class LabelledInlineFields:
    """A tabular inline's fields named for screen readers: admin labels their columns only, so each
    field gets its label as aria-label (axe: every field has an accessible name)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for field in self.fields.values():
            field.widget.attrs.setdefault("aria-label", str(field.label))


class LabelledInlineFormSet(forms.BaseInlineFormSet):
    """An inline's formset whose "delete" checkboxes are named too (the formset adds them after the form)."""

    def add_fields(self, form, index):
        super().add_fields(form, index)
        if "DELETE" in form.fields:
            form.fields["DELETE"].widget.attrs.setdefault("aria-label", "Delete")


class MembershipForm(LabelledInlineFields, forms.ModelForm):
    user = ActiveUsernameField(label="username")

    class Meta:
        model = StudyMembership
        fields = ["study", "user", "role"]


class CategoryForm(LabelledInlineFields, forms.ModelForm):
    class Meta:
        model = Category
        fields = [
            "key",
            "label",
            "description",
            "kind",
            "group",
            "color",
            "shortcut",
            "whole_sentence",
            "snap_to_words",
            "order",
        ]
        widgets = {
            "color": forms.TextInput(attrs={"type": "color"}),
            "description": forms.Textarea(attrs={"rows": 2, "cols": 28}),
            "key": forms.TextInput(attrs={"size": 10}),
            "label": forms.TextInput(attrs={"size": 22}),
            "group": forms.TextInput(attrs={"size": 12}),
            "shortcut": forms.TextInput(attrs={"size": 2}),
            "order": forms.NumberInput(attrs={"style": "width: 4em"}),
        }


class BundleUploadForm(forms.Form):
    bundle = forms.FileField(
        label="Study bundle (.zip)",
        help_text="study.yaml, documents.jsonl or documents.json, and optionally assignments.jsonl, "
        "at the root of the zip or in one folder.",
    )
    locate = forms.BooleanField(
        label="Locate spans by text",
        required=False,
        help_text="Annotations in assignments.jsonl that give only their text are found in their segment.",
    )

    def clean_bundle(self):
        bundle = self.cleaned_data["bundle"]
        if not bundle.name.lower().endswith(".zip"):
            raise forms.ValidationError("Upload the bundle as a .zip file.")
        return bundle


class DocumentForm(forms.ModelForm):
    """A document of admin with its text: the paragraphs become its segments (studies.services).

    A document without text would reach workers as an empty page, so none is saved. Once a
    document is assigned, its text is fixed: workers' spans are offsets into its segments.
    """

    text = forms.CharField(
        label="Text", required=False, strip=False, widget=forms.Textarea(attrs={"rows": 14, "cols": 90}),
        help_text="What workers read. Paragraphs, separated by a blank line, become the document's segments "
        "(shown one at a time); the sentences of each are found as a bundle import finds them.",
    )  # fmt: skip

    class Meta:
        model = Document
        fields = ["external_id"]  # admin adds the fields of its `fields`

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        document = self.instance
        self.segments = []  # the document's segment texts now
        if document.pk is not None:
            self.segments = list(document.segments.order_by("index").values_list("text", flat=True))
            self.fields["text"].initial = "\n\n".join(self.segments)
        has_text = any(text.strip() for text in self.segments)
        if has_text and document.pk is not None and document.assignments.exists():
            self.fields["text"].disabled = True
            self.fields["text"].help_text = (
                "Assigned to workers: the text cannot change, as their spans point into it. "
                "Add a new document instead."
            )
        self.new_segments = None  # set by clean_text when the text changes the segments

    def clean_text(self):
        if self.fields["text"].disabled:
            return self.fields["text"].initial
        segments = text_segments(self.cleaned_data.get("text") or "")
        if not segments:
            raise forms.ValidationError(
                "A document needs its text: workers would be given an empty page. Type or paste it here; "
                "a blank line starts a new segment."
            )
        if segments != self.segments:
            self.new_segments = segments
        return self.cleaned_data["text"]


class DocumentsUploadForm(forms.Form):
    documents = forms.FileField(
        label="Documents file",
        help_text='documents.jsonl (one {"id": ..., "segments": [...]} a line) or FALTE\'s documents.json '
        '({"document id": ["paragraph", ...]}).',
    )

    def clean_documents(self):
        upload = self.cleaned_data["documents"]
        name = PurePath(upload.name).name
        if not name.lower().endswith(DOCUMENT_SUFFIXES):
            raise forms.ValidationError(
                "The file name must end in .jsonl (JSON Lines) or .json (FALTE JSON)."
            )
        return upload


class AssignmentsGenerateForm(forms.Form):
    worker_ids = forms.CharField(
        label="Worker ids",
        widget=forms.Textarea(attrs={"rows": 6, "cols": 60}),
        help_text="Separated by commas, spaces or new lines. Unknown ids become new workers.",
    )
    per_document = forms.IntegerField(label="Annotators per document (K)", min_value=1)
    platform = forms.ChoiceField(choices=Worker.Platform.choices, initial=Worker.Platform.LINK)

    def clean_worker_ids(self):
        ids = [worker_id for worker_id in re.split(r"[\s,]+", self.cleaned_data["worker_ids"]) if worker_id]
        if not ids:
            raise forms.ValidationError("Give at least one worker id.")
        too_long = [worker_id for worker_id in ids if len(worker_id) > 255]
        if too_long:
            raise forms.ValidationError("A worker id has at most 255 characters.")
        return list(dict.fromkeys(ids))
