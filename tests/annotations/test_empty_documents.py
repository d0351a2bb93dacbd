"""A document with no text (no segment, or only blank ones) is never handed to a worker: generating
assignments, the assign command, the API and join links pass it over and say so."""

import pytest
from django.core.management import call_command
from django.urls import reverse

from accounts.models import StudyMembership
from annotations.models import Assignment
from annotations.services import JoinRefused, assignment_join, assignments_generate
from qualification.models import Qualification
from studies.models import Document, Study
from tests.factories import DocumentFactory, SegmentFactory, make_span_study

pytestmark = pytest.mark.django_db

SKIPPED = "has no text (no segment with text): not assigned; give it its text in admin"


def with_empty_documents(**study_fields):
    """A study with one document of text ('…-doc0') and two without: none, and blank segments."""
    study = make_span_study(documents=1, **study_fields)
    DocumentFactory(study=study, external_id="no-segments", position=1)
    blank = DocumentFactory(study=study, external_id="blank-segments", position=2)
    SegmentFactory(document=blank, index=0, text=" ")
    SegmentFactory(document=blank, index=1, text="\n\t")
    return study


def test_generating_passes_over_documents_without_text_and_names_them():
    study = with_empty_documents(annotators_per_document=2)
    plan = assignments_generate(study=study, worker_ids=["a", "b"])
    assert {a.document.external_id for a in plan.created} == {f"{study.slug}-doc0"}
    assert plan.empty == ["no-segments", "blank-segments"]
    assert not Assignment.objects.filter(document__external_id__in=["no-segments", "blank-segments"]).exists()


def test_the_assign_command_says_which_documents_were_passed_over(capsys):
    study = with_empty_documents(annotators_per_document=1)
    call_command("assign", study.slug, "--workers", "w1")
    out, err = capsys.readouterr()
    assert [line.split("\t")[1] for line in out.strip().splitlines()] == [f"{study.slug}-doc0"]
    assert f"no-segments: {SKIPPED}" in err and f"blank-segments: {SKIPPED}" in err


def test_admin_generate_assignments_says_which_documents_were_passed_over(client, researcher):
    study = with_empty_documents(annotators_per_document=1)
    StudyMembership.objects.create(study=study, user=researcher)
    client.force_login(researcher)
    url = reverse("admin:studies_study_generate_assignments", args=[study.pk])
    page = client.post(url, {"worker_ids": "w1", "per_document": "1", "platform": "link"}).content.decode()
    assert "1 assignment created" in page
    assert "no-segments" in page and "blank-segments" in page and "have no text" in page


def test_the_api_answers_which_documents_were_passed_over(client, researcher):
    from rest_framework.test import APIClient

    study = with_empty_documents(annotators_per_document=1)
    StudyMembership.objects.create(study=study, user=researcher)
    api = APIClient()
    api.force_authenticate(researcher)
    response = api.post(
        reverse("assignment-generate"), {"study": study.pk, "worker_ids": ["w1"]}, format="json"
    )
    assert response.status_code == 201, response.content
    assert [row["document"] for row in response.json()["created"]] == [f"{study.slug}-doc0"]
    assert response.json()["empty"] == ["no-segments", "blank-segments"]


def test_a_joining_worker_never_gets_a_document_without_text():
    study = with_empty_documents(annotators_per_document=1)
    first = assignment_join(study=study, platform="prolific", external_id="p1")
    assert first.document.external_id == f"{study.slug}-doc0"
    with pytest.raises(JoinRefused, match="no document left"):
        assignment_join(study=study, platform="prolific", external_id="p2")
    assert Assignment.objects.count() == 1


def test_qualification_and_attention_documents_without_text_are_passed_over():
    study = with_empty_documents(annotators_per_document=1)
    Document.objects.filter(external_id="no-segments").update(kind=Document.Kind.QUALIFICATION)
    qualifying = DocumentFactory(
        study=study, external_id="q-text", kind=Document.Kind.QUALIFICATION, position=3
    )
    SegmentFactory(document=qualifying, index=0)
    Qualification.objects.create(study=study)
    first = assignment_join(study=study, platform="prolific", external_id="p1")
    assert first.document.external_id == "q-text"

    checks = with_empty_documents(annotators_per_document=1, config={"attention_every": 1})
    Document.objects.filter(study=checks, external_id="blank-segments").update(kind=Document.Kind.ATTENTION)
    Study.objects.filter(pk=checks.pk).update(annotators_per_document=2)
    done = assignment_join(study=checks, platform="prolific", external_id="p1")
    Assignment.objects.filter(pk=done.pk).update(status=Assignment.Status.SUBMITTED)
    # Due for an attention check, but the only one has no text: not that one, and no empty one either.
    with pytest.raises(JoinRefused):
        assignment_join(study=Study.objects.get(pk=checks.pk), platform="prolific", external_id="p1")
    assert not Assignment.objects.filter(document__external_id__in=["no-segments", "blank-segments"]).exists()


def test_a_qualification_round_goes_on_past_a_document_without_text():
    from annotations.services.rounds import round_continue, round_progress

    study = make_span_study(documents=0)
    for position, external_id in enumerate(["q1", "q-empty", "q3"]):
        document = DocumentFactory(
            study=study, external_id=external_id, kind=Document.Kind.QUALIFICATION, position=position
        )
        if external_id != "q-empty":
            SegmentFactory(document=document, index=0)
    Qualification.objects.create(study=study)
    first = assignment_join(study=study, platform="prolific", external_id="p1")
    Assignment.objects.filter(pk=first.pk).update(status=Assignment.Status.SUBMITTED)
    first.refresh_from_db()
    following = round_continue(assignment=first)
    assert following.document.external_id == "q3"
    assert round_progress(following) == (2, 2)


def test_experts_get_no_gold_assignment_of_a_document_without_text():
    from qualification.services import expert_assignments_generate
    from tests.factories import UserFactory

    study = with_empty_documents()
    StudyMembership.objects.create(study=study, user=UserFactory(username="dr-expert"), role="expert")
    created = expert_assignments_generate(study=study)
    assert [a.document.external_id for a in created] == [f"{study.slug}-doc0"]


def test_a_rating_block_leaves_out_its_documents_without_text(tmp_path):
    from annotations.services.blocks import block_documents, study_blocks
    from bundles.services import study_import_bundle
    from tests.rating_bundles import write_rating_bundle

    config = {"scale": {"min": 1, "max": 5}}
    study = study_import_bundle(directory=write_rating_bundle(tmp_path, config=config)).study
    b1 = list(study.documents.filter(block="b1").order_by("position"))
    b1[0].segments.all().delete()
    b2 = list(study.documents.filter(block="b2"))
    for document in b2:
        document.segments.update(text="  ")
    assert [pk for pk, _ in block_documents(study, "b1")] == [document.pk for document in b1[1:]]
    assert study_blocks(study) == ["b1"]
    plan = assignments_generate(study=study, worker_ids=["a", "b"], per_document=1)
    assert [(a.block, sorted(a.items)) for a in plan.created] == [("b1", sorted(d.pk for d in b1[1:]))]
    assert plan.empty == [b1[0].external_id, *(document.external_id for document in b2)]
