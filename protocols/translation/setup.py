"""The translation protocols' settings in the researcher console's new-study flow
(Protocol.setup_form, the "categories or scale" step) and on the study's Design tab
(Protocol.design_facts). Each form's `config()` gives the options config.py reads; None removes
one (the protocol's default then holds)."""

from django import forms

from reports.metrics.mqm import WeightMissing
from studies.models import Document

from . import config
from .keys import DA, ESA, MQM, REFERENCES, is_contrastive, scheme

CRITICAL = "Critical"
DEFAULT_CRITICAL_WEIGHT = 25  # MQM's scoring model: Minor 1, Major 5, Critical 25
DEFAULT_SEVERITY_WEIGHTS = {"Neutral": 0, "Minor": 1, "Major": 5}
MQM_CAP = 5  # MQM practice: the five most serious errors of a segment
SQM = {"min": 0, "max": 6, "labels": {"0": "No meaning preserved", "2": "Some meaning preserved",
                                      "4": "Most meaning preserved, few grammar mistakes",
                                      "6": "Perfect meaning and grammar"}}  # fmt: skip
SLIDER = {"min": 0, "max": 100}


class _Settings(forms.Form):
    title = ""
    show_reference = forms.BooleanField(
        required=False, label="Show each segment's reference translation",
        help_text="Only when the documents have references (a reference column or field).",
    )  # fmt: skip

    def __init__(self, data=None, *, study):
        self.study = study
        super().__init__(data, initial=self.current(study), prefix="settings")

    def current(self, study):
        return {"show_reference": config.show_reference(study)}

    def clean_show_reference(self):
        wanted = self.cleaned_data["show_reference"]
        documents = Document.objects.filter(study=self.study)
        if wanted and documents.exists() and not documents.filter(meta__has_key=REFERENCES).exists():
            raise forms.ValidationError("None of the study's documents has a reference to show.")
        return wanted

    def config(self):
        return {"show_reference": self.cleaned_data["show_reference"]}


def _cap_field(initial_help):
    return forms.IntegerField(
        required=False, min_value=1, max_value=100, label="Most errors one segment may have",
        help_text=initial_help,
    )  # fmt: skip


class MQMSettings(_Settings):
    title = "Severities"
    neutral = forms.BooleanField(
        required=False, label="Neutral: an issue worth noting that costs nothing (weight 0)"
    )
    critical = forms.BooleanField(
        required=False, label="Critical: an error that makes the translation unusable or harmful"
    )
    critical_weight = forms.FloatField(
        required=False, min_value=0, max_value=10_000, label="Weight of a Critical error",
        help_text="Minor errors weigh 1 and Major ones 5; MQM's scoring model gives Critical 25.",
    )  # fmt: skip
    max_errors = _cap_field("MQM practice is 5: a worker marks the most serious ones. Empty: no cap.")
    field_order = ["neutral", "critical", "critical_weight", "max_errors", "show_reference"]

    def current(self, study):
        severities = config.severities(study)
        weight = (
            (study.config.get("weights") or {}).get("severities", {}).get(CRITICAL, DEFAULT_CRITICAL_WEIGHT)
        )
        setup = (study.config.get("setup") or {}).get("done", [])
        cap = config.max_errors(study)
        return {
            **super().current(study),
            "neutral": "Neutral" in severities,
            "critical": CRITICAL in severities,
            "critical_weight": weight,
            "max_errors": cap if cap is not None or "categories" in setup else MQM_CAP,
        }

    def clean(self):
        data = super().clean()
        if (
            data.get("critical")
            and data.get("critical_weight") is None
            and "critical_weight" not in self.errors
        ):
            self.add_error("critical_weight", "Give Critical errors a weight: the MQM score sums them.")
        return data

    def config(self):
        data = self.cleaned_data
        severities = [*(["Neutral"] if data["neutral"] else []), "Minor", "Major",
                      *([CRITICAL] if data["critical"] else [])]  # fmt: skip
        weights = dict(self.study.config.get("weights") or {})
        by_severity = {**DEFAULT_SEVERITY_WEIGHTS, **(weights.get("severities") or {})}
        by_severity.pop(CRITICAL, None)
        if data["critical"]:
            by_severity[CRITICAL] = data["critical_weight"]
        weights["severities"] = by_severity
        return {**super().config(), "severities": severities, "weights": weights,
                "max_errors_per_segment": data["max_errors"]}  # fmt: skip


class ESASettings(_Settings):
    title = "Scores"
    warn_low = forms.FloatField(
        min_value=0, max_value=100, label="Warn below this score when no error is marked",
        help_text="ESA's scale: 0-33 broken or poor, 33-66 some errors, 66-100 good.",
    )  # fmt: skip
    warn_high = forms.FloatField(
        min_value=0, max_value=100, label="Warn above this score when a Major error is marked",
        help_text="A warning asks the worker to check; it never stops them.",
    )  # fmt: skip
    max_errors = _cap_field("Empty: no cap.")
    field_order = ["warn_low", "warn_high", "max_errors", "show_reference"]

    def current(self, study):
        low, high = config.score_warnings(study)
        return {
            **super().current(study),
            "warn_low": low,
            "warn_high": high,
            "max_errors": config.max_errors(study),
        }

    def clean(self):
        data = super().clean()
        low, high = data.get("warn_low"), data.get("warn_high")
        if low is not None and high is not None and not low < high:
            self.add_error("warn_high", "The upper threshold must be above the lower one.")
        return data

    def config(self):
        data = self.cleaned_data
        return {**super().config(), "score_warnings": {"low": data["warn_low"], "high": data["warn_high"]},
                "max_errors_per_segment": data["max_errors"]}  # fmt: skip


class DASettings(_Settings):
    title = "Scale"
    scale = forms.ChoiceField(
        widget=forms.RadioSelect, label="Workers score each segment on",
        choices=[("slider", "A slider from 0 to 100 (Direct Assessment)"),
                 ("sqm", "SQM: 0 to 6, the even points labelled from no meaning preserved to perfect")],
    )  # fmt: skip
    field_order = ["scale", "show_reference"]

    def current(self, study):
        return {**super().current(study), "scale": "sqm" if config.scale(study) == (0, 6) else "slider"}

    def config(self):
        return {**super().config(), "scale": SQM if self.cleaned_data["scale"] == "sqm" else SLIDER}


FORMS = {MQM: MQMSettings, ESA: ESASettings, DA: DASettings}


def settings_form(study, data=None):
    return FORMS[scheme(study.protocol)](data, study=study)


def _weight(study, severity):
    try:
        return f"{config.weights(study).weight('', severity):g}"
    except WeightMissing:
        return "no weight: the report stops at it"


def _yes(value):
    return "yes" if value else "no"


def design_facts(study):
    """The study's translation settings in words, for the Design tab."""
    documents = Document.objects.filter(study=study, kind=Document.Kind.MAIN)
    systems = list(documents.order_by("system").values_list("system", flat=True).distinct())
    inputs = documents.order_by().values("input_id").distinct().count()
    facts = [("Translations", f"{len(systems)} system{'s' if len(systems) != 1 else ''} ({', '.join(systems)}) of "
                              f"{inputs} source document{'s' if inputs != 1 else ''}")] if systems else []  # fmt: skip
    judged = scheme(study.protocol)
    if is_contrastive(study.protocol):
        facts.append(("Page", "every system's translation of a source side by side, in an order shuffled per "
                              "worker, under neutral names"))  # fmt: skip
    if judged == MQM:
        facts.append(("Severities (weight)", ", ".join(f"{name} ({_weight(study, name)})"
                                                      for name in config.severities(study))))  # fmt: skip
    if judged in (MQM, ESA):
        cap = config.max_errors(study)
        facts.append(("Errors per segment", f"at most {cap}" if cap else "no cap"))
    if judged == ESA:
        low, high = config.score_warnings(study)
        facts.append(("Score warnings", f"below {low:g} with no error, above {high:g} with a Major error"))
    scale = config.scale(study)
    if scale is not None:
        facts.append(
            (
                "Score",
                "SQM, 0 to 6" if judged == DA and scale == (0, 6) else f"{scale[0]} to {scale[1]}",
            )
        )
    facts.append(("Reference shown", _yes(config.show_reference(study))))
    return facts
