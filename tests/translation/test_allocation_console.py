"""The allocation settings on the console's Design tab (config.allocation), and who may change them."""

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import StudyMembership
from annotations.models import AllocationRecord
from studies.models import Study
from tests.translation.studies import make_translation_study

pytestmark = pytest.mark.django_db


def logged_in(user):
    client = Client()
    client.force_login(user)
    return client


def test_the_design_tab_saves_the_allocation_and_refuses_a_budget_rule_without_a_budget(researcher):
    study = make_translation_study("da", systems=("sysA", "sysB"), documents=2, status=Study.Status.OPEN)
    StudyMembership.objects.create(study=study, user=researcher, role="researcher")
    client = logged_in(researcher)
    page = client.get(reverse("console:study", args=[study.pk]) + "?tab=design").content.decode()
    assert 'id="save-allocation"' in page and "not appropriate" in page
    url = reverse("console:allocation", args=[study.pk])
    form = {
        "policy": "uncertain",
        "settled": "0.02",
        "stop_when": ["settled", "budget"],
        "unchanged_for": "20",
    }
    refused = client.post(url, form)
    assert refused.status_code == 400
    assert "config.allocation.budget: is needed to stop at the budget" in refused.content.decode()
    study.refresh_from_db()
    assert "allocation" not in study.config
    assert client.post(url, {**form, "budget": "30"}).status_code == 302
    study.refresh_from_db()
    assert study.config["allocation"] == {"policy": "uncertain", "settled": 0.02, "stop_when": ["settled", "budget"],
                                          "unchanged_for": 20, "budget": 30}  # fmt: skip
    run = client.get(reverse("console:study", args=[study.pk]) + "?tab=run").content.decode()
    assert "How close the study is" in run
    assert "0 of 12 planned, budget 30" in run


def test_an_analyst_may_not_change_the_allocation_and_mqm_has_none(researcher, other_researcher):
    study = make_translation_study("da", systems=("sysA", "sysB"), documents=2, status=Study.Status.OPEN)
    StudyMembership.objects.create(study=study, user=other_researcher, role="analyst")
    response = logged_in(other_researcher).post(
        reverse("console:allocation", args=[study.pk]), {"policy": "uncertain"}
    )
    assert response.status_code in (403, 404)
    study.refresh_from_db()
    assert "allocation" not in study.config
    mqm = make_translation_study("mqm", documents=1, status=Study.Status.OPEN)
    StudyMembership.objects.create(study=mqm, user=researcher, role="researcher")
    page = logged_in(researcher).get(reverse("console:study", args=[mqm.pk]) + "?tab=design").content.decode()
    assert "save-allocation" not in page


def test_the_run_tab_shows_how_many_adjacent_pairs_are_separated(researcher):
    study = make_translation_study("da", systems=("sysA", "sysB"), documents=2, status=Study.Status.OPEN)
    StudyMembership.objects.create(study=study, user=researcher, role="researcher")
    client = logged_in(researcher)
    form = {"policy": "uniform", "settled": "0.01", "stop_when": ["separated"], "unchanged_for": "20"}
    assert client.post(reverse("console:allocation", args=[study.pk]), form).status_code == 302
    study.refresh_from_db()
    assert study.config["allocation"]["stop_when"] == ["separated"]
    run = client.get(reverse("console:study", args=[study.pk]) + "?tab=run").content.decode()
    assert "Adjacent pairs separated" in run and "not yet: every system needs two rated items" in run
    AllocationRecord.objects.create(study=study, clusters={"clusters": [["sysA"], ["sysB"]], "since": 4,
                                                           "ratings": 4, "separated": 1, "adjacent": 1})  # fmt: skip
    run = client.get(reverse("console:study", args=[study.pk]) + "?tab=run").content.decode()
    assert "1 of 1 adjacent pairs separated (permutation test, alpha 0.05)" in run
