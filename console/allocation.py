"""The console's allocation settings (config.allocation, studies/allocation.py): a form on the
Design tab, for a study whose protocol offers the option (DA, ESA, Likert, BWS, pairwise)."""

from django import forms
from django.db import transaction

from annotations.services.block_allocation import study_steers_nothing
from studies import protocols
from studies.allocation import (
    DEFAULT_SETTLED,
    DEFAULT_UNCHANGED_FOR,
    POLICIES,
    SETTLED_HIGHEST,
    SETTLED_LOWEST,
    STOP_RULES,
    allocation_settings,
)
from studies.config import config_problems
from studies.models import Study

RULE_LABELS = {
    "settled": "every pair of systems is settled",
    "unchanged": "the clusters have not changed over the last K ratings",
    "separated": "every adjacent pair of the ranking is significantly different (the study's ranking test)",
    "budget": "the budget of ratings is spent",
}
POLICY_LABELS = {
    "uniform": "Uniform: every document (or block) gets its annotators, in bundle order",
    "uncertain": (
        "Uncertain: the next document (in a block study: the next block) goes to the pair of systems "
        "whose order is least certain"
    ),
    "clusters": (
        "Clusters: the next document (or block) goes to the pair of systems whose order is least certain, "
        "or whose significance is, where it decides a boundary of the ranking's clusters"
    ),
}


class AllocationForm(forms.Form):
    policy = forms.ChoiceField(
        widget=forms.RadioSelect, label="Which document a joining worker gets",
        choices=[(p, POLICY_LABELS[p]) for p in POLICIES],
    )  # fmt: skip
    settled = forms.FloatField(
        min_value=SETTLED_LOWEST, max_value=SETTLED_HIGHEST,
        label="A pair is settled when its order is in doubt with probability at most",
    )  # fmt: skip
    stop_when = forms.MultipleChoiceField(
        widget=forms.CheckboxSelectMultiple, required=False, label="Stop the study by itself when",
        choices=[(rule, RULE_LABELS[rule]) for rule in STOP_RULES],
    )  # fmt: skip
    unchanged_for = forms.IntegerField(min_value=1, max_value=100_000, label="K (ratings)")
    budget = forms.IntegerField(
        min_value=1,
        max_value=10_000_000,
        required=False,
        label="Budget (ratings; in a block study, blocks rated)",
    )

    def __init__(self, study, *args, **kwargs):
        settings = allocation_settings(study)
        initial = {
            "policy": settings.policy, "settled": settings.settled or DEFAULT_SETTLED,
            "stop_when": list(settings.stop_when), "unchanged_for": settings.unchanged_for or DEFAULT_UNCHANGED_FOR,
            "budget": settings.budget,
        }  # fmt: skip
        super().__init__(*args, initial=initial, **kwargs)
        self.study = study

    def allocation(self):
        data = self.cleaned_data
        value = {key: data[key] for key in ("policy", "settled", "stop_when", "unchanged_for")}
        if data.get("budget") is not None:
            value["budget"] = data["budget"]
        return value

    def clean(self):
        cleaned = super().clean()
        if self.errors:
            return cleaned
        config = {**(self.study.config or {}), "allocation": self.allocation()}
        for problem in config_problems(config, protocol=self.study.protocol):
            self.add_error(None, str(problem))
        return cleaned


def allocation_warning(study):
    """A block study set to `uncertain` whose blocks all hold the same systems: the policy has
    nothing to steer (studies/allocation.steers_nothing). Saved all the same: it runs as uniform."""
    if protocols.of(study).works_on != "block" or not allocation_settings(study).adaptive:
        return None
    return study_steers_nothing(study)


@transaction.atomic
def study_set_allocation(*, study, allocation):
    """Store config.allocation (already checked by AllocationForm), under the study's lock."""
    locked = Study.objects.select_for_update().get(pk=study.pk)
    locked.config = {**(locked.config or {}), "allocation": allocation}
    locked.save(update_fields=["config"])
    return locked
