"""An MQM, ESA and DA study's page in the console, from a bundle with two raters' work: the Design
tab lists its settings, Analyse computes and shows the report with its ranking, Publish gives the
tables as LaTeX and CSV."""

import io
import zipfile
from pathlib import Path

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import StudyMembership
from bundles.services import study_import_bundle
from tests.translation.bundles import write_translation_bundle

pytestmark = pytest.mark.django_db

DEMO = Path(__file__).resolve().parents[2] / "demo"


def study_of(source, tmp_path, researcher):
    if source in ("esa-demo", "mqm-demo"):
        study = study_import_bundle(directory=DEMO / source).study
    else:
        study = study_import_bundle(directory=write_translation_bundle(tmp_path / "in", source)).study
    StudyMembership.objects.create(study=study, user=researcher)
    return study


@pytest.mark.parametrize(
    ("source", "design", "score"),
    [
        ("mqm-demo", "Neutral (0), Minor (1), Major (5)", "MQM score"),
        ("esa-demo", "below 33 with no error, above 66 with a Major error", "ESA score"),
        ("da", "0 to 6", "DA score"),
    ],
)
def test_the_study_page_designs_analyses_and_publishes_a_translation_study(
    tmp_path, researcher, eager_celery, django_capture_on_commit_callbacks, source, design, score
):
    study = study_of(source, tmp_path, researcher)
    client = Client()
    client.force_login(researcher)
    page = reverse("console:study", args=[study.pk])

    shown = client.get(f"{page}?tab=design").content.decode()
    assert design in shown and "Translations" in shown and "Reference shown" in shown

    assert "No report yet" in client.get(f"{page}?tab=analyse").content.decode()
    with django_capture_on_commit_callbacks(
        execute=True
    ):  # the job, sent once the request commits, runs here
        client.post(reverse("console:report", args=[study.pk]))
    analysed = client.get(f"{page}?tab=analyse").content.decode()
    assert 'id="translation-systems-table"' in analysed and 'id="ranking"' in analysed
    assert score in analysed

    published = client.get(f"{page}?tab=publish").content.decode()
    assert 'id="publish-latex"' in published and "sysA" in published
    latex = client.get(reverse("console:publish_latex", args=[study.pk])).content.decode()
    assert r"\toprule" in latex and score in latex
    archive = zipfile.ZipFile(io.BytesIO(client.get(reverse("console:publish_csv", args=[study.pk])).content))
    assert {"system-scores.csv", "ranking.csv"} <= set(archive.namelist())

    home = client.get(reverse("console:home")).content.decode()
    assert study.title in home and "no report yet" not in home.split(study.title, 1)[1][:1500]
