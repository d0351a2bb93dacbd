from django import forms

from bundles.study_checks import SLUG

from .formats.registry import EXPORT_ONLY, names

READABLE = {"label-studio": "Label Studio (JSON export)", "doccano": "doccano (JSONL)", "potato": "Potato",
            "factgenie": "factgenie"}  # fmt: skip


class AnnotationsUploadForm(forms.Form):
    file = forms.FileField(label="Annotation file", help_text="The file as the other tool exported it.")
    format = forms.ChoiceField(
        choices=[(name, READABLE.get(name, name)) for name in names() if name not in EXPORT_ONLY]
    )
    slug = forms.CharField(max_length=64, help_text="The new study's slug: letters, digits, - and _.")
    taxonomy = forms.FileField(
        label="study.yaml (optional)", required=False,
        help_text="Its taxonomy (and title, instructions, config) for the study; without it, one category per "
        "label found in the file.",
    )  # fmt: skip
    sentences_per_segment = forms.IntegerField(
        min_value=1, max_value=100, required=False,
        help_text="Cut each document into segments of this many sentences; empty: a document is one segment.",
    )  # fmt: skip
    text_field = forms.CharField(
        required=False, max_length=200,
        help_text="Label Studio: the field of data holding the text, when several fields are text.",
    )  # fmt: skip

    def clean_slug(self):
        slug = self.cleaned_data["slug"]
        if not SLUG.match(slug):
            raise forms.ValidationError("Letters, digits, - and _ only.")
        return slug
