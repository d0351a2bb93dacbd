"""A study's config is checked (one schema) on bundle import and in the admin's study form."""

import pytest
from django.urls import reverse

from annotations.services import assignment_join
from bundles import BundleInvalid
from bundles.services import study_import_bundle
from studies.config import config_problems
from studies.models import Study
from tests.bundles import study_yaml, write_bundle
from tests.factories import make_span_study

pytestmark = pytest.mark.django_db


def bundle_problems(tmp_path, **config_and_fields):
    fields = {"config": config_and_fields.pop("config")}
    fields.update(config_and_fields)
    with pytest.raises(BundleInvalid) as caught:
        study_import_bundle(directory=write_bundle(tmp_path, study=study_yaml(**fields)))
    return [str(problem) for problem in caught.value.problems]


def line_of(tmp_path, text):
    """The line of study.yaml holding `text` (a mapping's line is that of its first key)."""
    lines = (tmp_path / "study.yaml").read_text().splitlines()
    return next(number for number, line in enumerate(lines, start=1) if text in line)


def messages(config, protocol="span"):
    return [str(problem) for problem in config_problems(config, protocol=protocol)]


def test_a_text_for_release_after_minutes_is_refused_by_the_bundle_with_its_line(tmp_path):
    problems = bundle_problems(tmp_path, config={"release_after_minutes": "abc"})

    line = line_of(tmp_path, "release_after_minutes:")
    assert problems == [
        f"study.yaml:{line}: config.release_after_minutes: must be a whole number from 1 to 525,600"
    ]
    assert not Study.objects.exists()


def test_a_study_imported_with_a_good_release_time_can_be_joined(tmp_path):
    study_import_bundle(
        directory=write_bundle(
            tmp_path, study=study_yaml(status="open", config={"release_after_minutes": 30})
        )
    )
    study = Study.objects.get()

    assignment = assignment_join(study=study, platform="link", external_id="w1")

    assert assignment.study_id == study.pk


@pytest.mark.parametrize(
    ("config", "protocol", "expected"),
    [
        ({"release_after_minutes": 0}, "span", "config.release_after_minutes: must be a whole number from 1"),
        ({"release_after_minutes": True}, "span", "config.release_after_minutes: must be a whole number"),
        ({"sentences_per_segment": 2.5}, "span", "config.sentences_per_segment: must be a whole number"),
        ({"attention_every": -1}, "span", "config.attention_every: must be a whole number from 1"),
        ({"attention_min_f1": 1.5}, "span", "config.attention_min_f1: must be a number from 0 to 1"),
        ({"ui": {"coreference_cue": "no"}}, "span", "config.ui.coreference_cue: must be true or false"),
        ({"ui": {"coref_cue": False}}, "span", "config.ui: unknown option 'coref_cue'"),
        ({"ui": "off"}, "span", "config.ui: must be a mapping"),
        ({"prolific_completion_url": 7}, "span", "config.prolific_completion_url: must be an absolute http"),
        ({"scale": {"min": 5, "max": 1}}, "likert", "config.scale: must have from 2 to 11 points"),
        ({"scale": {"min": 1, "max": 100}}, "likert", "config.scale: must have from 2 to 11 points"),
        ({"scale": {"min": "1", "max": 5}}, "likert", "config.scale.min: must be a whole number"),
        ({"scale": {"max": 5, "labels": {"9": "far"}}}, "likert", "config.scale.labels: '9' is not a point"),
        (
            {"scale": {"max": 5, "labels": {"1": 3}}},
            "likert",
            "config.scale.labels: the label of 1 must be a text",
        ),
        ({"scale": [1, 5]}, "likert", "config.scale: must be a mapping"),
        ({"question": ["two"]}, "likert", "config.question: must be a text"),
        ({"retest_after_days": "7"}, "likert", "config.retest_after_days: must be a whole number"),
        ({"seed": -1}, "likert", "config.seed: must be a whole number from 0"),
        ({"bws": {"tuple_size": 1}}, "bws", "config.bws.tuple_size: must be a whole number from 2 to 9"),
        ({"bws": {"tuples": "random"}}, "bws", "config.bws.tuples: must be one of by_input, generated"),
        ({"bws": {"appearances": 0}}, "bws", "config.bws.appearances: must be a whole number from 1"),
        ({"bws": {"value_scale": "3"}}, "bws", "config.bws.value_scale: must be a whole number from 2 to 9"),
        ({"bws": {"value_labels": {"1": "a"}}}, "bws", "config.bws.value_labels: needs a value_scale"),
        ({"bws": {"size": 4}}, "bws", "config.bws: unknown option 'size'"),
        ({"tuple_size": 20}, "bws", "config.tuple_size: must be a whole number from 2 to 9"),
        ({"questions": []}, "review", "config.questions: 'questions' must be a non-empty list"),
        # Protocol fit: an option of another protocol would be ignored silently.
        (
            {"scale": {"min": 1, "max": 5}},
            "span",
            "config.scale: is for likert, esa, da, contrastive-esa and contrastive-da studies, not span",
        ),
        (
            {"attention_every": 3},
            "likert",
            "config.attention_every: is for span, mqm, esa and da studies, not likert",
        ),
        ({"questions": [{"key": "a", "kind": "text"}]}, "span", "config.questions: is for review studies"),
        # Unknown options are refused, with the ones the protocol reads.
        (
            {"release_after_minute": 30},
            "span",
            "config: unknown option 'release_after_minute' (a span study reads",
        ),
        ({"value_scale": 3}, "bws", "config: unknown option 'value_scale'"),
    ],
)
def test_config_problems_name_the_option_and_what_is_wrong(config, protocol, expected):
    found = messages(config, protocol)

    assert any(message.startswith(expected) for message in found), found


def test_config_must_be_a_mapping():
    assert messages(["release_after_minutes", 3]) == ["config: must be a mapping of options"]
    assert messages("abc") == ["config: must be a mapping of options"]


@pytest.mark.parametrize(
    ("config", "protocol"),
    [
        ({}, "span"),
        ({"sentences_per_segment": 3, "release_after_minutes": 45, "attention_every": 5,
          "attention_min_f1": 0.5, "ui": {"coreference_cue": False},
          "prolific_completion_url": "https://app.prolific.com/submissions/complete?cc=C1234ABC"}, "span"),
        ({"question": "How consistent?", "scale": {"min": 1, "max": 5, "labels": {"1": "not at all", 5: "fully"}},
          "retest_after_days": 14, "seed": 0}, "likert"),
        ({"scale": {"min": 0, "max": 10}}, "likert"),
        ({"bws": {"tuple_size": 4, "tuples": "by_input", "appearances": 2, "value_scale": 3,
                  "value_labels": {"1": "small", "3": "large"}}, "tuple_size": 4}, "bws"),
        ({"questions": [{"key": "span", "label": "OK?", "kind": "single", "options": ["Yes", "No"]}]}, "review"),
    ],
)  # fmt: skip
def test_documented_configs_have_no_problem(config, protocol):
    assert messages(config, protocol) == []


def test_bundle_problem_inside_a_nested_option_names_its_line(tmp_path):
    problems = bundle_problems(
        tmp_path, protocol="likert", taxonomy=None, config={"question": "Q?", "scale": {"min": 1, "max": 50}}
    )

    line = line_of(tmp_path, "min: 1")
    assert (
        f"study.yaml:{line}: config.scale: must have from 2 to 11 points (min below max), not 1 to 50"
        in problems
    )


# Admin ---------------------------------------------------------------------


def study_form_data(study, config):
    return {
        "title": study.title,
        "slug": study.slug,
        "protocol": study.protocol,
        "status": study.status,
        "taxonomy": str(study.taxonomy_id or ""),
        "annotators_per_document": "3",
        "max_documents_per_worker": "",
        "instructions": "",
        "config": config,
        "memberships-TOTAL_FORMS": "0",
        "memberships-INITIAL_FORMS": "0",
        "memberships-MIN_NUM_FORMS": "0",
        "memberships-MAX_NUM_FORMS": "1000",
    }


def test_admin_refuses_a_bad_config_and_shows_the_problem_on_the_config_field(client, researcher):
    study = make_span_study(researcher=researcher, config={"release_after_minutes": 30})
    client.force_login(researcher)
    url = reverse("admin:studies_study_change", args=[study.pk])

    response = client.post(url, study_form_data(study, '{"release_after_minutes": "abc"}'))

    assert response.status_code == 200
    errors = response.context["adminform"].form.errors
    assert errors["config"] == ["config.release_after_minutes: must be a whole number from 1 to 525,600"]
    study.refresh_from_db()
    assert study.config == {"release_after_minutes": 30}


def test_admin_checks_the_config_against_the_protocol_chosen_in_the_form(client, researcher):
    study = make_span_study(researcher=researcher)
    client.force_login(researcher)
    url = reverse("admin:studies_study_change", args=[study.pk])
    data = study_form_data(study, '{"attention_every": 3}')

    refused = client.post(url, {**data, "protocol": "likert"})
    saved = client.post(url, data)

    assert refused.context["adminform"].form.errors["config"] == [
        "config.attention_every: is for span, mqm, esa and da studies, not likert"
    ]
    assert saved.status_code == 302
    study.refresh_from_db()
    assert study.config == {"attention_every": 3}


def test_admin_saves_an_empty_config_as_an_empty_mapping(client, researcher):
    study = make_span_study(researcher=researcher, config={"attention_every": 3})
    client.force_login(researcher)

    response = client.post(
        reverse("admin:studies_study_change", args=[study.pk]), study_form_data(study, "null")
    )

    assert response.status_code == 302
    study.refresh_from_db()
    assert study.config == {}
