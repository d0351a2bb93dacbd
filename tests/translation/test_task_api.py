"""The translation page's task API: errors on either side or [missing], severities and categories
checked, saves idempotent, scores in range, segments in order, submit only when complete."""

import json

import pytest
from django.urls import reverse

from annotations.models import Assignment
from protocols.translation.models import SegmentScore, TranslationError
from tests.factories import AssignmentFactory
from tests.translation.studies import make_translation_study

pytestmark = pytest.mark.django_db


def post(client, name, assignment, body):
    return client.post(
        reverse(name, args=[assignment.token]), json.dumps(body), content_type="application/json"
    )


def add(client, assignment, **fields):
    body = {"client_id": fields.pop("client_id", "e1"), "segment": 0, "severity": "Minor", **fields}
    return post(client, "task-api-translation-errors", assignment, body)


def score(client, assignment, segment, value):
    return post(client, "task-api-translation-scores", assignment, {"segment": segment, "score": value})


def move(client, assignment, segment):
    return post(client, "task-api-translation-move", assignment, {"segment": segment})


def assignment_of(study, system="sysA"):
    return AssignmentFactory(document=study.documents.get(system=system), study=study)


def test_an_mqm_error_in_the_translation_is_stored_once_however_often_it_is_sent(client):
    study = make_translation_study("mqm")
    assignment = assignment_of(study)
    body = {
        "category": "Mistranslation",
        "side": "target",
        "start": 4,
        "end": 7,
        "text": "dog",
        "severity": "major",
    }
    first = add(client, assignment, **body)
    assert first.status_code == 201, first.content
    assert first.json()["severity"] == "Major"  # the study's spelling
    again = add(client, assignment, **body)
    assert again.status_code == 200
    assert TranslationError.objects.filter(assignment=assignment).count() == 1


def test_an_omission_is_marked_in_the_source_or_with_the_missing_marker(client):
    study = make_translation_study("mqm")
    assignment = assignment_of(study)
    source = add(
        client, assignment, client_id="s", category="Omission", side="source", start=4, end=8, text="Hund"
    )
    assert source.status_code == 201, source.content
    missing = add(client, assignment, client_id="m", category="Omission", side="missing")
    assert missing.status_code == 201
    assert missing.json()["start"] == missing.json()["end"] == 0
    wrong = add(
        client, assignment, client_id="w", category="Omission", side="source", start=0, end=4, text="Hund"
    )
    assert wrong.status_code == 400 and "source span" in wrong.json()["error"]


def test_a_study_can_switch_off_source_spans_and_the_missing_marker(client):
    study = make_translation_study("mqm", config={"source_spans": False, "missing_marker": False})
    assignment = assignment_of(study)
    source = add(
        client, assignment, client_id="s", category="Omission", side="source", start=4, end=8, text="Hund"
    )
    missing = add(client, assignment, client_id="m", category="Omission", side="missing")
    assert source.status_code == missing.status_code == 400
    assert not TranslationError.objects.exists()


def test_severity_and_category_must_be_the_studys(client):
    study = make_translation_study("mqm")
    assignment = assignment_of(study)
    span = {"side": "target", "start": 0, "end": 3, "text": "The"}
    unknown_severity = add(
        client, assignment, client_id="a", category="Mistranslation", severity="Critical", **span
    )
    assert unknown_severity.status_code == 400 and "Neutral, Minor, Major" in unknown_severity.json()["error"]
    unknown_category = add(client, assignment, client_id="b", category="Nope", **span)
    assert unknown_category.status_code == 400
    no_category = add(client, assignment, client_id="c", **span)
    assert no_category.status_code == 400
    assert not TranslationError.objects.exists()


def test_critical_is_offered_when_the_study_names_it(client):
    study = make_translation_study("mqm", config={"severities": ["Neutral", "Minor", "Major", "Critical"],
                                                   "weights": {"severities": {"Critical": 10}}})  # fmt: skip
    assignment = assignment_of(study)
    response = add(client, assignment, category="Mistranslation", severity="critical", side="target", start=0, end=3,
                   text="The")  # fmt: skip
    assert response.status_code == 201 and response.json()["severity"] == "Critical"


def test_a_whole_segment_category_covers_the_whole_segment_whatever_was_selected(client):
    study = make_translation_study("mqm")
    assignment = assignment_of(study)
    response = add(client, assignment, category="NonTranslation", severity="Major", side="target", start=0, end=3,
                   text="The")  # fmt: skip
    assert response.status_code == 201
    assert (response.json()["start"], response.json()["end"], response.json()["text"]) == (
        0,
        14,
        "The dog barks.",
    )


def test_the_cap_on_errors_per_segment_holds(client):
    study = make_translation_study("mqm", config={"max_errors_per_segment": 2})
    assignment = assignment_of(study)
    for n in range(2):
        assert add(client, assignment, client_id=f"e{n}", category="Mistranslation", side="target", start=n,
                   end=n + 1, text="The dog"[n]).status_code == 201  # fmt: skip
    third = add(client, assignment, client_id="e3", category="Mistranslation", side="target", start=4, end=7,
                text="dog")  # fmt: skip
    assert third.status_code == 400 and "at most 2 errors" in third.json()["error"]


def test_an_esa_error_has_a_severity_and_no_category(client):
    study = make_translation_study("esa", taxonomy=None)
    assignment = assignment_of(study)
    ok = add(client, assignment, side="target", start=4, end=7, text="dog", severity="Major")
    assert ok.status_code == 201 and ok.json()["category"] is None
    with_category = add(client, assignment, client_id="x", category="Mistranslation", side="target", start=0, end=3,
                        text="The")  # fmt: skip
    assert with_category.status_code == 400
    neutral = add(
        client, assignment, client_id="y", severity="Neutral", side="target", start=0, end=3, text="The"
    )
    assert neutral.status_code == 400


def test_a_da_study_takes_scores_and_no_errors(client):
    study = make_translation_study("da", taxonomy=None)
    assignment = assignment_of(study)
    assert add(client, assignment, side="target", start=0, end=3, text="The").status_code == 400
    assert score(client, assignment, 0, 73).status_code == 200
    assert SegmentScore.objects.get(assignment=assignment).score == 73


@pytest.mark.parametrize("value", [-1, 101, "50", True, None, float("nan")])
def test_a_score_outside_the_scale_is_refused(client, value):
    study = make_translation_study("esa", taxonomy=None)
    assignment = assignment_of(study)
    body = json.dumps({"segment": 0, "score": value}).replace("NaN", "NaN")
    response = client.post(reverse("task-api-translation-scores", args=[assignment.token]), body,
                           content_type="application/json")  # fmt: skip
    assert response.status_code == 400
    assert not SegmentScore.objects.exists()


def test_an_sqm_scale_of_0_to_6(client):
    study = make_translation_study("da", taxonomy=None, config={"scale": {"min": 0, "max": 6}})
    assignment = assignment_of(study)
    assert score(client, assignment, 0, 7).status_code == 400
    assert score(client, assignment, 0, 6).status_code == 200


def test_a_score_sent_again_changes_the_one_row(client):
    study = make_translation_study("esa", taxonomy=None)
    assignment = assignment_of(study)
    score(client, assignment, 0, 40)
    score(client, assignment, 0, 60)
    assert list(SegmentScore.objects.values_list("score", flat=True)) == [60]


def test_segments_are_done_in_order_and_an_esa_segment_is_scored_before_the_next(client):
    study = make_translation_study("esa", taxonomy=None)
    assignment = assignment_of(study)
    assert add(client, assignment, segment=1, side="target", start=0, end=3, text="The").status_code == 400
    assert move(client, assignment, 1).status_code == 400  # not scored yet
    score(client, assignment, 0, 80)
    assert move(client, assignment, 2).status_code == 400  # skips one
    assert move(client, assignment, 1).status_code == 200
    assert add(client, assignment, segment=1, side="target", start=0, end=3, text="The").status_code == 201


def test_the_esa_warning_for_a_low_score_without_errors_and_a_high_score_with_a_major_one(client):
    study = make_translation_study("esa", taxonomy=None)
    assignment = assignment_of(study)
    low = score(client, assignment, 0, 10)
    assert "no error marked" in low.json()["warning"]
    add(client, assignment, side="target", start=4, end=7, text="dog", severity="Major")
    assert score(client, assignment, 0, 10).json()["warning"] == ""
    assert "Major error" in score(client, assignment, 0, 95).json()["warning"]


def submit(client, assignment):
    return client.post(
        reverse("task-api-submit", args=[assignment.token]), "{}", content_type="application/json"
    )


def test_submit_needs_every_segment_read_and_for_esa_scored(client):
    study = make_translation_study("esa", taxonomy=None)
    assignment = assignment_of(study)
    for index in range(3):
        score(client, assignment, index, 70)
        if index < 2:
            move(client, assignment, index + 1)
    SegmentScore.objects.filter(assignment=assignment, segment__index=2).delete()
    refused = submit(client, assignment)
    assert refused.status_code == 400 and "1 left" in refused.json()["error"]
    score(client, assignment, 2, 70)
    assert submit(client, assignment).status_code == 200
    assignment.refresh_from_db()
    assert assignment.status == Assignment.Status.SUBMITTED
    assert (
        add(client, assignment, client_id="late", side="target", start=0, end=3, text="The").status_code
        == 409
    )


def test_the_page_shows_source_beside_target_and_the_reference_only_when_asked(client):
    study = make_translation_study("mqm")
    assignment = assignment_of(study)
    page = client.get(reverse("task-annotate", args=[assignment.token]))
    assert page.status_code == 200
    data = page.context["task_data"]
    assert data["segments"][1] == {"index": 1, "source": "Die Katze schläft auf dem Sofa.",
                                   "target": "The cat sleeps on the sofa."}  # fmt: skip
    assert data["study"]["severities"] == ["Neutral", "Minor", "Major"]
    study.config = {"show_reference": True}
    study.save()
    data = client.get(reverse("task-annotate", args=[assignment.token])).context["task_data"]
    assert data["segments"][0]["reference"] == "The dog barks."
