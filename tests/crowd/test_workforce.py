"""The workforce figures and dashboard: pay per active hour against the target, speeders,
attention failures, agreement with the others, abandoned work; pseudonyms for readers."""

import csv
import io
from decimal import Decimal

import pytest
from django.urls import reverse
from django.utils import timezone

from accounts.models import StudyMembership, Worker
from accounts.pseudonyms import annotator_pseudonym
from annotations.models import Assignment
from crowd.models import LedgerEntry
from crowd.workforce import top_ups, workforce_report
from reports.study_report import study_report_data
from studies import protocols
from studies.models import Category
from tests.factories import ErrorAnnotationFactory, make_span_study

pytestmark = pytest.mark.django_db
PAY = {"reward": 2.0, "currency": "GBP", "target_hourly": 12.0, "bonuses": {"top_up_to_target": True}}


def submitted(study, document, worker, seconds, *, flagged=False, spans=()):
    assignment = Assignment.objects.create(
        study=study, document=document, worker=worker, status=Assignment.Status.SUBMITTED,
        submitted_at=timezone.now(), active_seconds=seconds, flagged=flagged,
    )  # fmt: skip
    for start, end in spans:
        ErrorAnnotationFactory(
            assignment=assignment, segment=document.segments.get(index=0), start=start, end=end,
            category=Category.objects.get(taxonomy=study.taxonomy, key="CharE"), text="x" * (end - start),
        )  # fmt: skip
    return assignment


@pytest.fixture
def world(researcher):
    """w1: 2 x 600 s; w2: 1800 s; w3: 60 s (a speeder, failed an attention check); w4: released."""
    study = make_span_study(documents=2, researcher=researcher, config={"pay": PAY})
    doc0, doc1 = study.documents.order_by("position")
    w1, w2, w3, w4 = (Worker.objects.create(platform="prolific", external_id=f"=pid{n}") for n in range(1, 5))
    submitted(study, doc0, w1, 600, spans=[(0, 7)])
    submitted(study, doc1, w1, 600)
    submitted(study, doc0, w2, 1800, spans=[(0, 7)])
    submitted(study, doc1, w3, 60, flagged=True, spans=[(0, 4)])
    Assignment.objects.create(study=study, document=doc1, worker=w4, status=Assignment.Status.RELEASED)
    return study, (w1, w2, w3, w4)


def line_of(report, study, worker):
    name = annotator_pseudonym(study.pk, worker.pk)
    return next(line for line in report["workers"] if line["annotator"] == name)


def test_the_figures_of_each_worker_and_the_study(world):
    study, (w1, w2, w3, w4) = world
    report = workforce_report(study)
    one, two, three, four = (line_of(report, study, w) for w in (w1, w2, w3, w4))
    assert (one["submitted"], one["paid"], one["effective_hourly"], one["under_target"]) == (
        2,
        4.0,
        12.0,
        False,
    )
    assert one["median_active_minutes"] == 10.0
    assert (two["paid"], two["effective_hourly"], two["under_target"]) == (2.0, 4.0, True)
    assert three["effective_hourly"] == pytest.approx(120.0)
    assert (three["speeding"], three["attention_failures"]) == (1, 1)  # 60 s < 600 s / 3
    assert (one["speeding"], two["speeding"]) == (0, 0)
    assert (four["released"], four["submitted"], four["effective_hourly"]) == (1, 0, None)
    # Agreement: w1 and w2 marked the same characters of doc0 (F1 1); w3 marked what w1 did not on doc1 (0).
    assert (one["agreement"], one["agreement_pairs"]) == (0.5, 2)
    assert (two["agreement"], three["agreement"]) == (1.0, 0.0)
    summary = report["study"]
    assert (summary["workers"], summary["submitted"], summary["released"]) == (4, 4, 1)
    assert summary["paid"] == 8.0 and summary["effective_hourly"] == pytest.approx(8.0 / (3060 / 3600))
    assert summary["under_target"] and summary["workers_under_target"] == 1
    assert summary["speeders"] == 1 and "under 3.3 minutes" in summary["speeder_rule"]


def test_bonuses_sent_count_as_pay_and_top_ups_reach_the_target(world, researcher):
    study, (w1, w2, w3, _) = world
    assert top_ups(study) == {w2.pk: Decimal("4.00")}  # 12/h x 0.5 h - 2.00
    LedgerEntry.objects.create(
        study=study, platform="prolific", action="bonus", key="b-w2", worker=w2, amount=Decimal("4.00"),
        currency="GBP", status=LedgerEntry.Status.SENT,
    )  # fmt: skip
    assert line_of(workforce_report(study), study, w2)["effective_hourly"] == 12.0
    assert top_ups(study) == {}


def test_the_report_carries_the_workforce_part(world):
    study, _ = world
    result = study_report_data(study)
    assert result["workforce"]["study"]["workers"] == 4
    assert all(line["annotator"].startswith("A") for line in result["workforce"]["workers"])
    assert "=pid" not in str(result["workforce"])


def test_dashboard_names_workers_only_to_who_manages_the_study(world, client, researcher, other_researcher):
    study, _ = world
    url = reverse("admin:crowd_workforce", args=[study.pk])
    client.force_login(researcher)
    page = client.get(url).content.decode()
    assert "=pid2" in page and "under the target" in page and "workforce-workers" in page
    client.force_login(other_researcher)
    assert client.get(url).status_code == 404
    StudyMembership.objects.create(study=study, user=other_researcher, role=StudyMembership.Role.ANALYST)
    page = client.get(url).content.decode()
    assert (
        "=pid" not in page
        and annotator_pseudonym(study.pk, Worker.objects.get(external_id="=pid2").pk) in page
    )
    rows = list(csv.reader(io.StringIO(client.get(url + "csv/").content.decode())))
    assert "platform_id" not in rows[0] and len(rows) == 5


def test_dashboard_csv_cells_cannot_carry_formulas(world, client, researcher):
    study, _ = world
    client.force_login(researcher)
    response = client.get(reverse("admin:crowd_workforce_csv", args=[study.pk]))
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert sorted(row["platform_id"] for row in rows) == ["'=pid1", "'=pid2", "'=pid3", "'=pid4"]


def test_the_dashboards_index_flags_studies_under_their_target_without_computing_agreement(
    world, client, researcher, monkeypatch
):
    study, _ = world
    unpaid = make_span_study(documents=1, researcher=researcher, slug="unpaid", title="Unpaid pilot")
    asked = []
    span_protocol = type(protocols.of(study))
    monkeypatch.setattr(span_protocol, "annotator_agreement", lambda self, s: asked.append(s.pk) or {})
    client.force_login(researcher)
    page = client.get(reverse("admin:crowd_workforce_index")).content.decode()
    expected = workforce_report(study)["study"]
    line = next(item for item in page.split("<li") if study.title in item)
    assert 'class="under-target"' in line and "under the target" in line
    assert f"{expected['effective_hourly']:.2f}" in line and "against a target of" in line
    assert "an hour" not in next(item for item in page.split("<li") if unpaid.title in item)
    assert asked == [study.pk]  # only the expected report above; the index computed none
