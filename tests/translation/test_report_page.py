"""The translation report on the study's Analyse tab and in Publish: system scores, errors by
severity, the ranking with the test named, agreement; the published ranking table."""

import csv
import io
import zipfile

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.models import StudyMembership
from annotations.models import Assignment
from protocols.translation.models import SegmentScore, TranslationError
from reports.models import Report
from reports.study_report import study_report_data
from tests.factories import AssignmentFactory, WorkerFactory
from tests.translation.studies import make_translation_study

pytestmark = pytest.mark.django_db


def shown(study, researcher):
    result = study_report_data(study)
    Report.objects.create(study=study, status=Report.Status.DONE, result=result, finished_at=timezone.now())
    StudyMembership.objects.get_or_create(study=study, user=researcher)
    client = Client()
    client.force_login(researcher)
    page = client.get(reverse("console:study", args=[study.pk]) + "?tab=analyse").content.decode()
    return result, page, client


def test_an_mqm_report_page_and_its_published_ranking(researcher):
    study = make_translation_study("mqm", systems=("sysA", "sysB", "sysC"), documents=4)
    raters = [WorkerFactory(), WorkerFactory()]
    for document in study.documents.all():
        for rater in raters:
            assignment = AssignmentFactory(document=document, study=study, worker=rater,
                                           status=Assignment.Status.SUBMITTED, submitted_at=timezone.now())  # fmt: skip
            errors = {"sysA": 0, "sysB": 1, "sysC": 3}[document.system]
            for segment in document.segments.all():
                for n in range(errors):
                    TranslationError.objects.create(
                        assignment=assignment, segment=segment, side="target", start=n, end=n + 1,
                        text=segment.text[n], severity="Major", client_id=f"{segment.pk}-{n}",
                        category=study.taxonomy.categories.get(key="Mistranslation"),
                    )  # fmt: skip
    result, page, client = shown(study, researcher)
    assert [row["system"] for row in result["ranking"]["systems"]] == ["sysA", "sysB", "sysC"]
    assert "paired approximate randomisation" in page
    assert 'id="translation-systems-table"' in page and "Major errors" in page
    assert "MQM score is the sum of its errors" in page
    assert 'id="translation-span-agreement-table"' in page
    archive = zipfile.ZipFile(io.BytesIO(client.get(reverse("console:publish_csv", args=[study.pk])).content))
    ranking = list(csv.reader(io.StringIO(archive.read("ranking.csv").decode())))
    assert ranking[0][3] == "MQM score" and [row[2] for row in ranking[1:]] == ["sysA", "sysB", "sysC"]
    scores = list(csv.reader(io.StringIO(archive.read("system-scores.csv").decode())))
    assert scores[0] == ["System", "MQM score", "Segments", "Neutral", "Minor", "Major"]
    assert scores[3][0] == "sysC" and float(scores[3][1]) == pytest.approx(15.0)


def test_a_contrastive_da_report_names_its_scheme_and_ranks_on_z_scores_too(researcher):
    study = make_translation_study("contrastive-da", systems=("sysA", "sysB"), taxonomy=None)
    for rater, offset in ((WorkerFactory(), 0), (WorkerFactory(), -30)):
        documents = list(study.documents.order_by("system"))
        assignment = Assignment.objects.create(
            study=study, worker=rater, block="src-0", status=Assignment.Status.SUBMITTED, submitted_at=timezone.now(),
            items=[{"position": n, "document": d.pk} for n, d in enumerate(documents)],
        )  # fmt: skip
        for document, value in zip(documents, (90, 50), strict=True):
            for segment in document.segments.all():
                SegmentScore.objects.create(assignment=assignment, segment=segment, score=value + offset)
    result, page, _client = shown(study, researcher)
    assert result["scheme"] == "da" and result["protocol"] == "contrastive-da"
    assert 'id="ranking-z"' in page and "DA score" in page
