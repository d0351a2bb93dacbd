"""Forms of the researchers' admin pages: categories, uploads, assignment generation."""

import re
from pathlib import PurePath

from django import forms

from accounts.models import Worker

from .models import Category

DOCUMENT_SUFFIXES = (".jsonl", ".json")


class CategoryForm(forms.ModelForm):
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
            "order",
        ]
        widgets = {
            "color": forms.TextInput(attrs={"type": "color"}),
            "description": forms.Textarea(attrs={"rows": 2, "cols": 40}),
            "key": forms.TextInput(attrs={"size": 10}),
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
