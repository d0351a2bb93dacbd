"""A study's page in the console (five tabs), the home page's figures, and the Publish tables."""

import csv
import io
import zipfile

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.models import StudyMembership, Worker
from annotations.models import Assignment
from reports.models import Report
from reports.study_report import study_report_data
from studies.models import Category, Study
from tests.factories import ErrorAnnotationFactory, make_span_study

pytestmark = pytest.mark.django_db


def submit(study, worker_name, marks):
    worker, _ = Worker.objects.get_or_create(platform=Worker.Platform.LINK, external_id=worker_name)
    for document in study.documents.order_by("position"):
        assignment = Assignment.objects.create(
            study=study, document=document, worker=worker, status=Assignment.Status.SUBMITTED,
            submitted_at=timezone.now(),
        )  # fmt: skip
        for key, start, end in marks:
            segment = document.segments.get(index=0)
            ErrorAnnotationFactory(
                assignment=assignment, segment=segment, category=Category.objects.get(taxonomy=study.taxonomy, key=key),
                start=start, end=end, text=segment.text[start:end],
            )  # fmt: skip


@pytest.fixture
def study(researcher):
    study = make_span_study(documents=2, segments=2, researcher=researcher, title="Sierra", status="open",
                            annotators_per_document=3)  # fmt: skip
    study.documents.filter(position=1).update(system="=2+3")  # a system name a spreadsheet would run
    submit(study, "w1", [("CharE", 0, 7)])
    submit(study, "w2", [("CharE", 0, 7), ("RepE", 25, 37)])
    study.refresh_from_db()
    return study


def done_report(study):
    return Report.objects.create(
        study=study, status=Report.Status.DONE, result=study_report_data(study), finished_at=timezone.now()
    )


def client_of(user):
    client = Client()
    client.force_login(user)
    return client


def test_home_shows_each_study_with_its_stage_progress_agreement_and_next_action(study, researcher):
    done_report(study)
    page = client_of(researcher).get(reverse("console:home")).content.decode()
    assert "Running" in page and "Sierra" in page
    assert "4 of 6 submitted" in page  # 2 documents x 3 annotators wanted, 2 x 2 submitted
    assert "token α, mean of" in page
    assert "Follow the work and pay" in page


@pytest.mark.parametrize("tab", ["design", "pilot", "run", "analyse", "publish"])
def test_every_tab_of_a_running_study_answers_for_its_researcher_and_its_analyst(study, researcher, tab):
    from accounts.services import researcher_create

    done_report(study)
    analyst = researcher_create(username="analyst-s", password="pass-w0rd-for-tests")
    StudyMembership.objects.create(study=study, user=analyst, role=StudyMembership.Role.ANALYST)
    token = study.assignments.first().token
    for user in (researcher, analyst):
        response = client_of(user).get(reverse("console:study", args=[study.pk]) + f"?tab={tab}")
        assert response.status_code == 200
        page = response.content.decode()
        assert (token in page) == (
            user == researcher and tab in ("pilot", "run")
        )  # task links: managers only


def test_the_analyse_tab_shows_the_workforce_of_the_report(study, researcher):
    """The extensions' sections get their own figures (the crowd's once rendered empty)."""
    done_report(study)
    page = (
        client_of(researcher).get(reverse("console:study", args=[study.pk]) + "?tab=analyse").content.decode()
    )
    summary = page[page.index('id="workforce-summary"') :]
    assert "<th>workers</th><td>2</td><th>submitted</th><td>4</td>" in summary
    assert "No one has taken part yet" not in page


def test_the_analyse_tab_shows_the_report_with_charts_and_an_empty_state_before_any(researcher):
    study = make_span_study(documents=1, segments=1, researcher=researcher, status="open")
    client = client_of(researcher)
    page = client.get(reverse("console:study", args=[study.pk]) + "?tab=analyse").content.decode()
    assert 'id="no-report"' in page and "Nothing is submitted yet" in page
    done_report(study)  # a report of a study without any submitted work
    page = client.get(reverse("console:study", args=[study.pk]) + "?tab=analyse").content.decode()
    assert 'id="report-empty"' in page and "No submitted work yet" in page
    assert "Computed with None" not in page and page.count("n/a") < 5


def test_publish_gives_booktabs_latex_and_formula_safe_csv_of_the_main_tables(study, researcher):
    client = client_of(researcher)
    assert client.get(reverse("console:publish_latex", args=[study.pk])).status_code == 404  # no report yet
    done_report(study)
    latex = client.get(reverse("console:publish_latex", args=[study.pk])).content.decode()
    assert r"\begin{tabular}{lrrrrr}" in latex and r"\toprule" in latex and r"\bottomrule" in latex
    assert r"Token $\alpha$" in latex and "CharE &" in latex
    assert r"\label{tab:" in latex and "booktabs" in latex
    archive = zipfile.ZipFile(io.BytesIO(client.get(reverse("console:publish_csv", args=[study.pk])).content))
    assert sorted(archive.namelist()) == [
        "agreement.csv",
        "errors-by-system.csv",
        "groups.csv",
        "notes.txt",
        "ranking.csv",
    ]
    rows = list(csv.reader(io.StringIO(archive.read("agreement.csv").decode())))
    assert rows[0] == [
        "Category",
        "Spans",
        "Token alpha",
        "Token alpha (union)",
        "Two agree %",
        "Two agree % (union)",
    ]
    assert [row[0] for row in rows[1:]] == ["CharE", "RepE", "SceneE"]
    header = next(csv.reader(io.StringIO(archive.read("errors-by-system.csv").decode())))
    assert "'=2+3" in header  # a system name that would be a formula is text


def test_a_researcher_moves_the_study_from_pilot_to_main_run_to_finished(researcher):
    study = make_span_study(
        documents=1, segments=1, researcher=researcher, status="open", config={"stage": "pilot"}
    )
    client = client_of(researcher)
    assert "Piloting" in client.get(reverse("console:home")).content.decode()
    client.post(reverse("console:stage", args=[study.pk]), {"stage": "running"})
    assert Study.objects.get(pk=study.pk).config["stage"] == "main"
    client.post(reverse("console:stage", args=[study.pk]), {"stage": "finished"})
    assert Study.objects.get(pk=study.pk).status == "closed"
    assert "Publish the tables" in client.get(reverse("console:home")).content.decode()


def test_the_sites_home_is_the_console():
    response = Client().get("/")
    assert response.status_code == 302 and response.url == reverse("console:home")


@pytest.mark.parametrize("protocol", ["likert", "bws", "pairwise"])
def test_a_rating_or_pairwise_report_before_any_work_says_so_once(researcher, protocol):
    from tests.factories import DocumentFactory, SegmentFactory, StudyFactory

    study = StudyFactory(protocol=protocol, taxonomy=None, status="open")
    StudyMembership.objects.create(study=study, user=researcher)
    for number in range(4):
        document = DocumentFactory(
            study=study, block="1", input_id=f"in{number // 2}", system=f"sys{number % 2}"
        )
        SegmentFactory(document=document, index=0, text="An output to judge.")
    done_report(study)
    page = (
        client_of(researcher).get(reverse("console:study", args=[study.pk]) + "?tab=analyse").content.decode()
    )
    assert 'id="report-empty"' in page and "found none" in page
    assert page.count("n/a") < 3


def test_tables_and_the_report_page_keep_the_taxonomys_order_whatever_order_the_stored_keys_come_in(
    study, researcher
):
    """PostgreSQL's jsonb gives a stored report's keys back sorted by length ("RepE" before
    "CharE"); the report stores the taxonomy's order beside them, and every table follows it."""
    report = done_report(study)
    result = report.result
    assert result["category_order"] == ["CharE", "RepE", "SceneE"]
    result["categories"] = dict(reversed(result["categories"].items()))
    Report.objects.filter(pk=report.pk).update(result=result)
    client = client_of(researcher)
    archive = zipfile.ZipFile(io.BytesIO(client.get(reverse("console:publish_csv", args=[study.pk])).content))
    rows = list(csv.reader(io.StringIO(archive.read("agreement.csv").decode())))
    assert [row[0] for row in rows[1:]] == ["CharE", "RepE", "SceneE"]
    page = client.get(reverse("console:study", args=[study.pk]) + "?tab=analyse").content.decode()
    table = page[page.index('id="categories-table"') :]
    assert table.index("CharE") < table.index("RepE") < table.index("SceneE")
