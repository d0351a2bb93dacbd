from django import forms

from bundles.study_checks import SLUG

from .formats.registry import EXPORT_ONLY, FormatUnavailable, OptionInvalid, names, parsed_options
from .services import INTO, SPAN

READABLE = {"label-studio": "Label Studio (JSON export)", "doccano": "doccano (JSONL)", "potato": "Potato",
            "factgenie": "factgenie", "mqm-tsv": "MQM TSV (rated translations, into an MQM study)",
            "pearmut": "Pearmut campaign (its items, into a DA, ESA or MQM study)"}  # fmt: skip
# Options naming a file on the server: an upload may not read the server's files.
SERVER_FILES = {"outputs": "factgenie's outputs file is read on the server: import it with the command"}


class AnnotationsUploadForm(forms.Form):
    file = forms.FileField(label="Annotation file", help_text="The file as the other tool exported it.")
    format = forms.ChoiceField(
        choices=[(name, READABLE.get(name, name)) for name in names() if name not in EXPORT_ONLY]
    )
    slug = forms.CharField(max_length=64, help_text="The new study's slug: letters, digits, - and _.")
    into = forms.TypedChoiceField(
        label="Import into", choices=list(INTO.items()), initial=SPAN, required=False, empty_value=SPAN,
        help_text="A span study of every annotation, or a review study whose items are the evaluators' (model) "
        "annotations, for people to judge (LLM campaigns, predictions).",
    )  # fmt: skip
    taxonomy = forms.FileField(
        label="study.yaml (optional)", required=False,
        help_text="Its taxonomy (and title, instructions, config) for the study; without it, one category per "
        "label found in the file. For a review study, a review study.yaml (its questions). For an MQM TSV "
        "file or a Pearmut campaign, its title, instructions, status and config; the categories are the file's.",
    )  # fmt: skip
    sentences_per_segment = forms.IntegerField(
        min_value=1, max_value=100, required=False,
        help_text="Cut each document into segments of this many sentences; empty: a document is one segment.",
    )  # fmt: skip
    options = forms.CharField(
        label="Format options", required=False, max_length=2000, widget=forms.Textarea(attrs={"rows": 2}),
        help_text="One NAME=VALUE a line. Every format: repeats=retest (the default: a person's later "
        "annotations of an item become their retests) or repeats=latest (the latest is their main annotation, "
        "the earlier ones retests). doccano: offsets=code-points for a file counting code points "
        "(doccano's own count UTF-16 units); Label Studio: text_field=FIELD, the field of data holding the text "
        "when several fields are text. MQM TSV and Pearmut: title=TITLE only.",
    )  # fmt: skip

    def clean_slug(self):
        slug = self.cleaned_data["slug"]
        if not SLUG.match(slug):
            raise forms.ValidationError("Letters, digits, - and _ only.")
        return slug

    def clean(self):
        data = super().clean()
        if "format" not in data:
            return data
        lines = [line for line in data.get("options", "").splitlines() if line.strip()]
        try:
            data["options"] = parsed_options(data["format"], lines)
        except (FormatUnavailable, OptionInvalid) as refused:
            self.add_error("options", str(refused))
            return data
        for option in data["options"]:
            if option in SERVER_FILES:
                self.add_error("options", SERVER_FILES[option])
        return data
