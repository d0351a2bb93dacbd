"""The console's form that makes a study's quality checks (Protocol.quality_check_form, the Design
tab): the options of `make_quality_checks`, and what was made said in one line."""

from django import forms

from studies.models import Document

from ..config import checks_announced
from ..degrade import DROP, REPLACE
from .making import QualityCheckError, quality_checks_make

MODE_CHOICES = [
    (REPLACE, "Replace a phrase by one of as many words from another source document"),
    (DROP, "Drop a phrase"),
]


def existing_checks(study):
    """How many quality checks (degraded copies) the study holds."""
    return study.documents.filter(kind=Document.Kind.ATTENTION, meta__has_key=Document.COPY_OF).count()


class QualityCheckForm(forms.Form):
    share = forms.FloatField(
        min_value=0.001, max_value=1, initial=0.1, label="Share of the main documents that get a check",
        help_text="From 0.001 to 1. Documents that have a check count: the same share again makes none.",
    )  # fmt: skip
    mode = forms.ChoiceField(
        choices=MODE_CHOICES, initial=REPLACE, widget=forms.RadioSelect, label="Error put in"
    )
    segments = forms.IntegerField(
        min_value=1, max_value=100, initial=1, label="Segments degraded in each check"
    )
    every = forms.IntegerField(
        required=False, min_value=1, max_value=10_000, label="A check after every N main documents",
        help_text="Empty: the study's own setting, or 1 / share when it has none.",
    )  # fmt: skip
    announced = forms.BooleanField(
        required=False, label="Tell workers that some documents are quality checks (never which)"
    )
    seed = forms.IntegerField(
        min_value=0, max_value=2**31 - 1, initial=0, label="Seed",
        help_text="The same seed on the same study makes the same checks.",
    )  # fmt: skip

    def __init__(self, data=None, *, study):
        self.study = study
        super().__init__(
            data,
            initial={"announced": checks_announced(study)},
            prefix="checks",
        )

    def clean(self):
        if not self.study.documents.filter(kind=Document.Kind.MAIN).exists():
            raise forms.ValidationError("The study has no documents yet: add them, then make the checks.")
        return super().clean()

    def summary(self):
        """The study's checks so far, in words, for the form's heading."""
        count = existing_checks(self.study)
        if not count:
            return "No quality checks yet."
        every = self.study.config.get("attention_every")
        told = "announced to workers" if checks_announced(self.study) else "silent"
        if not every:
            stream = "not handed out (no attention_every)"
        else:
            stream = "one after every " + ("main document" if every == 1 else f"{every} main documents")
        return f"{count} quality check{'s' if count != 1 else ''}, {stream}, {told}."

    def make(self):
        """Make the checks the valid form asks for; the line to show, or None when the study refuses
        them (the reason is then the form's error)."""
        options = self.cleaned_data
        try:
            made = quality_checks_make(
                study=self.study, share=options["share"], seed=options["seed"], mode=options["mode"],
                segments=options["segments"], every=options["every"], announced=options["announced"],
            )  # fmt: skip
        except QualityCheckError as refused:
            self.add_error(None, str(refused))
            return None
        created = len(made.created)
        every = "main document" if made.every == 1 else f"{made.every} main documents"
        told = "announced to workers" if made.announced else "silent (workers are not told)"
        line = (
            f"{created} new quality check{'s' if created != 1 else ''}; {made.existing + created} of the "
            f"{made.wanted} the share asks for exist. A check after every {every}, {told}."
        )
        if made.skipped:
            line += f" {len(made.skipped)} document(s) had no segment to degrade."
        return line
