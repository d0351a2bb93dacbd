"""The new-study flow's forms: one a step."""

from django import forms

from studies import protocols

from .documents import document_formats
from .taxonomies import library

MAX_UPLOAD_FILES = 20


class NewStudyForm(forms.Form):
    title = forms.CharField(max_length=200, help_text="What the study is about, in a few words.")
    protocol = forms.ChoiceField(widget=forms.RadioSelect, label="What workers do")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["protocol"].choices = protocols.choices()
        self.fields["protocol"].initial = protocols.DEFAULT


class MultipleFileInput(forms.ClearableFileInput):
    allow_multiple_selected = True


class MultipleFileField(forms.FileField):
    def __init__(self, *args, **kwargs):
        kwargs.setdefault("widget", MultipleFileInput(attrs={"accept": ".txt,.csv,.jsonl,.json"}))
        super().__init__(*args, **kwargs)

    def clean(self, data, initial=None):
        files = data if isinstance(data, list | tuple) else ([data] if data else [])
        if len(files) > MAX_UPLOAD_FILES:
            raise forms.ValidationError(f"Choose at most {MAX_UPLOAD_FILES} files at once.")
        return [super(MultipleFileField, self).clean(file, initial) for file in files]


class DocumentsForm(forms.Form):
    text = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 12}),
        label="Paste the texts",
        help_text="Separate documents by a line with three dashes (---). In a document, each paragraph "
        "(separated by an empty line) is a segment: workers read one at a time.",
    )
    files = MultipleFileField(
        required=False,
        label="Or upload files",
        help_text=".txt (one document a file, paragraphs as segments), .csv (a 'text' column, and "
        "optionally id, system, input_id, source), or .jsonl / .json in the bundle's format.",
    )
    file_format = forms.ChoiceField(
        required=False,
        label="The files are",
        choices=(),
        help_text="Another tool's export gives its texts, cut into segments by sentence; its annotations "
        "are not added (to keep them, import the file as a study of its own, below).",
    )

    def __init__(self, *args, protocol=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.own_formats = protocol.document_formats if protocol is not None else {}
        if self.own_formats:  # the protocol's documents need more than a text each: its files only
            del self.fields["text"], self.fields["file_format"]
            files = self.fields["files"]
            files.label = "Upload the documents"
            files.help_text = " Or ".join(f".{key}: {label}." for key, label in self.own_formats.items())
            files.widget.attrs["accept"] = ",".join(f".{key}" for key in self.own_formats)
            return
        self.fields["file_format"].choices = [("", "known by their ending (.txt, .csv, .jsonl, .json)")] + [
            (key, f"{label}: its texts") for key, label in document_formats().items()
        ]

    def clean(self):
        data = super().clean()
        if not (data.get("text") or "").strip() and not data.get("files"):
            raise forms.ValidationError(
                "Choose a file." if self.own_formats else "Paste the texts or choose a file."
            )
        return data


class CategoriesForm(forms.Form):
    source = forms.ChoiceField(widget=forms.RadioSelect, label="Start from")
    written = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 8}),
        label="Your categories, one a line",
        help_text='A label, then optionally "(paired)" when workers also mark an earlier span, then '
        'optionally ": a description". Colours and keyboard keys are assigned for you.',
    )

    def __init__(self, *args, protocol="", **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["source"].choices = [
            *[
                (slug, f"{spec['name']}: {len(spec['categories'])} categories")
                for slug, spec in library(protocol).items()
            ],
            ("written", "My own categories, written below"),
        ]
        self.fields["source"].initial = next(iter(library(protocol)), "written")

    def clean(self):
        data = super().clean()
        if data.get("source") == "written" and not (data.get("written") or "").strip():
            self.add_error("written", "Write at least one category, one a line.")
        return data


class ScaleForm(forms.Form):
    """A Likert study's scale or a BWS study's tuple size (the pairwise protocol needs neither)."""

    low = forms.IntegerField(min_value=0, max_value=10, initial=1, label="Lowest point", required=False)
    high = forms.IntegerField(min_value=1, max_value=100, initial=5, label="Highest point", required=False)
    tuple_size = forms.IntegerField(
        min_value=2, max_value=10, initial=4, label="Outputs per tuple", required=False
    )

    def __init__(self, *args, protocol, **kwargs):
        super().__init__(*args, **kwargs)
        self.needed = {"likert": ("low", "high"), "bws": ("tuple_size",)}.get(protocol, ())

    def clean(self):
        data = super().clean()
        for name in self.needed:
            if data.get(name) is None and name not in self.errors:
                self.add_error(name, "Give a number.")
        if data.get("low") is not None and data.get("high") is not None and data["high"] <= data["low"]:
            self.add_error("high", "The highest point must be above the lowest.")
        return data


class AnnotatorsForm(forms.Form):
    annotators_per_document = forms.IntegerField(
        min_value=1, max_value=50, initial=3, label="Annotators per document",
        help_text="How many people annotate each document (agreement needs at least 2).",
    )  # fmt: skip
    max_documents_per_worker = forms.IntegerField(
        min_value=1, required=False, label="Most documents one person annotates", help_text="Empty: no limit."
    )
    instructions = forms.CharField(
        required=False, widget=forms.Textarea(attrs={"rows": 8}), label="Instructions for workers",
        help_text="Shown before the task and beside it (Markdown).",
    )  # fmt: skip
    qualification = forms.BooleanField(
        required=False, label="Qualify workers against expert gold before the main round",
        help_text="You then mark gold documents and add experts under Design (docs/qualification.md).",
    )  # fmt: skip


class LaunchForm(forms.Form):
    workers = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 4}),
        label="Names of workers who get their own task links (optional)",
        help_text="One a line or separated by commas, e.g. colleagues for a pilot. Anyone else joins "
        "through the study's join link.",
    )
    stage = forms.ChoiceField(
        choices=[("pilot", "A pilot first (a few people; you start the main run later)"),
                 ("main", "The main run")],
        initial="pilot", widget=forms.RadioSelect, label="Open it for",
    )  # fmt: skip

    def worker_names(self):
        raw = self.cleaned_data.get("workers") or ""
        return [name.strip() for name in raw.replace(",", "\n").split("\n") if name.strip()]
