"""The forms of the crowd admin pages: making a listing, rejecting a submission, messaging workers."""

from decimal import Decimal

from django import forms

from .models import Platform

NAME_HELP = "Tells this study's listings apart (main, qualification, retest); part of the idempotency key."


class ListingForm(forms.Form):
    # The safe default: Mechanical Turk's sandbox, where no money moves.
    platform = forms.ChoiceField(choices=Platform.choices, initial=Platform.MTURK)
    sandbox = forms.BooleanField(
        required=False, initial=True,
        help_text="Mechanical Turk's sandbox: no money moves. Prolific has none (leave it unticked there).",
    )  # fmt: skip
    name = forms.SlugField(max_length=32, initial="main", help_text=NAME_HELP)
    places = forms.IntegerField(
        min_value=1, max_value=100_000, help_text="Prolific places, or HIT assignments."
    )
    reward = forms.DecimalField(min_value=Decimal("0.01"), max_digits=8, decimal_places=2)
    minutes = forms.IntegerField(min_value=1, max_value=24 * 60, label="Estimated minutes")

    def clean(self):
        data = super().clean()
        if data.get("platform") == Platform.PROLIFIC and data.get("sandbox"):
            self.add_error(
                "sandbox",
                "Prolific has no sandbox: untick it to list on Prolific (real money), "
                "or choose Mechanical Turk to try the study in its sandbox.",
            )
        return data


class RejectForm(forms.Form):
    submission = forms.CharField(max_length=128, widget=forms.HiddenInput)
    reason = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60}), max_length=2000,
        help_text="The worker reads this. Prolific asks for at least 100 characters.",
    )  # fmt: skip
    category = forms.ChoiceField(
        required=False, initial="OTHER",
        choices=[(c, c.replace("_", " ").lower()) for c in (
            "OTHER", "FAILED_CHECK", "FAILED_INSTRUCTIONS", "LOW_EFFORT", "TOO_QUICKLY", "NO_DATA", "BAD_CODE",
        )],
        help_text="Prolific's rejection category (not used by Mechanical Turk).",
    )  # fmt: skip


class NotifyForm(forms.Form):
    subject = forms.CharField(max_length=200)
    message = forms.CharField(widget=forms.Textarea(attrs={"rows": 5, "cols": 60}), max_length=4000)
