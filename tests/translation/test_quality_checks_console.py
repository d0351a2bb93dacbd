"""Quality checks made from the console's Design tab: the checks `make_quality_checks` makes, the
study's stream settings, a refusal that makes nothing, and who may make them."""

import io

import pytest
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from accounts.models import StudyMembership
from studies.models import Study
from tests.factories import make_span_study
from tests.translation.studies import make_translation_study
from tests.translation.test_quality_checks import checks_of, translation_study

pytestmark = pytest.mark.django_db


def logged_in(user):
    client = Client()
    client.force_login(user)
    return client


def run_by(user, study):
    StudyMembership.objects.create(study=study, user=user, role=StudyMembership.Role.RESEARCHER)
    return logged_in(user)


def design(client, study):
    response = client.get(reverse("console:study", args=[study.pk]) + "?tab=design")
    assert response.status_code == 200
    return response.content.decode()


def form(**changes):
    fields = {"share": "1", "mode": "replace", "segments": "1", "every": "", "seed": "4"}
    fields.update(changes)
    return {f"checks-{name}": value for name, value in fields.items() if value is not None}


def gold(study):
    return [(check.external_id, check.meta["quality_check"]["segments"]) for check in checks_of(study)]


def test_a_researcher_makes_the_checks_the_command_makes_and_is_told_what_was_made(researcher):
    study = translation_study("esa", status=Study.Status.OPEN)
    client = run_by(researcher, study)
    page = design(client, study)
    assert 'id="make-quality-checks"' in page and "No quality checks yet." in page
    url = reverse("console:quality_checks", args=[study.pk])
    response = client.post(url, form(share="0.67", announced="on"), follow=True)
    shown = response.content.decode()
    assert "2 new quality checks; 2 of the 2 the share asks for exist." in shown
    assert "A check after every main document, announced to workers." in shown
    assert "2 quality checks, one after every main document, announced to workers." in shown
    study.refresh_from_db()
    assert study.config["attention_every"] == 1 and study.config["attention_announced"] is True
    # The command with the same options on a twin study makes the same checks, to the character.
    twin = translation_study("esa", status=Study.Status.OPEN)
    call_command("make_quality_checks", twin.slug, "--share", "0.67", "--seed", "4", "--announced",
                 stdout=io.StringIO(), stderr=io.StringIO())  # fmt: skip
    assert gold(study) == gold(twin) and len(gold(study)) == 2
    # The same share again makes nothing new; every and silence are changed as asked.
    again = client.post(url, form(share="0.67", every="3"), follow=True).content.decode()
    assert "0 new quality checks; 2 of the 2 the share asks for exist." in again
    assert "A check after every 3 main documents, silent (workers are not told)." in again
    study.refresh_from_db()
    assert study.config["attention_every"] == 3 and study.config["attention_announced"] is False
    assert len(checks_of(study)) == 2


@pytest.mark.parametrize(
    "changes, error",
    [
        ({"share": "0"}, "Ensure this value is greater than or equal to 0.001."),
        ({"share": "1.5"}, "Ensure this value is less than or equal to 1."),
        ({"segments": "0"}, "Ensure this value is greater than or equal to 1."),
        ({"mode": "shuffle"}, "Select a valid choice."),
        ({"every": "20000"}, "Ensure this value is less than or equal to 10000."),
        ({"share": None}, "This field is required."),
        ({"share": "nan"}, "Enter a number."),
        ({"seed": "-1"}, "Ensure this value is greater than or equal to 0."),
    ],
)
def test_a_refused_form_says_why_and_makes_nothing(researcher, changes, error):
    study = translation_study("da", status=Study.Status.OPEN)
    response = run_by(researcher, study).post(
        reverse("console:quality_checks", args=[study.pk]), form(**changes)
    )
    assert response.status_code == 400
    assert error in response.content.decode()
    assert checks_of(study) == []
    study.refresh_from_db()
    assert "attention_every" not in study.config


def test_a_study_without_documents_is_refused_with_the_reason_and_nothing_changes(researcher):
    study = make_translation_study("mqm", documents=0, status=Study.Status.DRAFT)
    response = run_by(researcher, study).post(reverse("console:quality_checks", args=[study.pk]), form())
    assert response.status_code == 400
    assert "The study has no documents yet: add them, then make the checks." in response.content.decode()
    study.refresh_from_db()
    assert checks_of(study) == [] and "attention_every" not in study.config


def test_only_who_runs_the_study_may_make_checks(researcher, other_researcher):
    study = translation_study("mqm", status=Study.Status.OPEN)
    StudyMembership.objects.create(study=study, user=researcher, role=StudyMembership.Role.ANALYST)
    url = reverse("console:quality_checks", args=[study.pk])
    assert logged_in(researcher).post(url, form()).status_code in (403, 404)
    assert logged_in(other_researcher).post(url, form()).status_code in (403, 404)
    assert Client().post(url, form()).status_code in (302, 403, 404)
    assert checks_of(study) == []
    study.refresh_from_db()
    assert "attention_every" not in study.config
    assert "make-quality-checks" not in design(logged_in(researcher), study)


def test_studies_without_quality_checks_show_no_form_and_refuse_the_post(researcher):
    contrastive = make_translation_study("contrastive-esa", documents=2, status=Study.Status.OPEN)
    span = make_span_study()
    for study in (contrastive, span):
        client = run_by(researcher, study)
        assert "make-quality-checks" not in design(client, study)
        response = client.post(reverse("console:quality_checks", args=[study.pk]), form(), follow=True)
        assert "This protocol has no quality checks." in response.content.decode()
        assert checks_of(study) == []
