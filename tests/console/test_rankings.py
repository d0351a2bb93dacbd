"""A Likert study's report ranks its systems with significance, on the report page and in
the published tables (reports/metrics/ranking.py; ../shared/METRICS.md)."""

import csv
import io
import json
import zipfile

import pytest
import yaml
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from bundles.services import study_import_bundle
from reports.models import Report
from reports.study_report import study_report_data

pytestmark = pytest.mark.django_db


def stored_and_shown(study, researcher, result):
    """Store `result` as the study's finished report; the Analyse tab's ranking section and a
    client of the researcher's."""
    Report.objects.create(study=study, status=Report.Status.DONE, result=result, finished_at=timezone.now())
    client = Client()
    client.force_login(researcher)
    page = client.get(reverse("console:study", args=[study.pk]) + "?tab=analyse").content.decode()
    return page[page.index('id="ranking"') :], client


SYSTEMS = ("sysA", "sysB", "sysC")


def score(system, n):
    """A well above B; C is B one point up or down on 18 of 30 inputs, 0.2 below on average:
    the test does not separate B and C (p about 0.24), so they share a cluster."""
    b = (3, 2, 3)[n % 3]
    return {"sysA": (5, 4)[n % 2], "sysB": b, "sysC": b + (1, -1, -1, 0, 0)[n % 5]}[system]


def likert_study(directory, researcher, inputs=30):
    directory.mkdir()
    study = {"slug": "ranked", "title": "Ranked", "protocol": "likert", "annotators_per_document": 2,
             "status": "open", "config": {"scale": {"min": 1, "max": 5}, "question": "Is it fluent?"}}  # fmt: skip
    documents = [
        {"id": f"in{n}-{system}", "block": "b1", "input_id": f"in{n}", "system": system,
         "segments": [f"Output of {system} for input {n}."]}
        for n in range(inputs) for system in SYSTEMS
    ]  # fmt: skip
    assignments = [
        {"annotator": annotator, "platform": "prolific", "block": "b1", "kind": "main", "active_seconds": 60,
         "submitted_at": "2026-03-02T10:00:00+00:00",
         "ratings": [{"document": f"in{n}-{system}", "score": score(system, n)}
                     for n in range(inputs) for system in SYSTEMS]}
        for annotator in ("P-1", "P-2")
    ]  # fmt: skip
    (directory / "study.yaml").write_text(yaml.safe_dump(study))
    (directory / "documents.jsonl").write_text("".join(json.dumps(d) + "\n" for d in documents))
    (directory / "assignments.jsonl").write_text("".join(json.dumps(a) + "\n" for a in assignments))
    return study_import_bundle(directory=directory, user=researcher).study


def test_a_likert_report_ranks_the_systems_in_clusters_on_the_page_and_in_the_published_tables(
    tmp_path, researcher
):
    study = likert_study(tmp_path / "likert", researcher)
    result = study_report_data(study)
    ranking = result["ranking"]
    assert [row["system"] for row in ranking["systems"]] == ["sysA", "sysB", "sysC"]
    assert [row["cluster"] for row in ranking["systems"]] == [1, 2, 2]
    assert all(row["items"] == 30 and row["low"] < row["score"] < row["high"] for row in ranking["systems"])
    section, client = stored_and_shown(study, researcher, result)
    assert "paired approximate randomisation" in section and "1000 resamples" in section
    rows = section[section.index('id="ranking-table"') : section.index("</table>")]
    assert rows.index("sysA") < rows.index("sysB") < rows.index("sysC")
    assert "2 separated, 1 not" in section
    # Two raters who gave the same scores: one split, and its halves rank the systems alike.
    assert "two disjoint halves of the 2 raters, mean 1.000 over 1 splits" in section

    archive = zipfile.ZipFile(io.BytesIO(client.get(reverse("console:publish_csv", args=[study.pk])).content))
    table = list(csv.reader(io.StringIO(archive.read("ranking.csv").decode())))
    assert table[0] == ["Rank", "Cluster", "System", "Mean rating", "95% low", "95% high", "n"]
    assert [(row[0], row[1], row[2]) for row in table[1:]] == [
        ("1", "1", "sysA"),
        ("2", "2", "sysB"),
        ("3", "2", "sysC"),
    ]
    latex = client.get(reverse("console:publish_latex", args=[study.pk])).content.decode()
    assert r"95\% low" in latex and "paired approximate randomisation test" in latex


def test_a_span_report_ranks_systems_by_error_rate_input_by_input_fewest_first(researcher):
    """Twelve inputs, each answered by two systems: "careful" has no error, "sloppy" one on
    each; fewer errors rank first, the pair is separated, and the page says so."""
    from accounts.models import Worker
    from annotations.models import Assignment
    from studies.models import Category
    from tests.factories import ErrorAnnotationFactory, make_span_study

    study = make_span_study(documents=24, segments=1, researcher=researcher, status="open")
    worker = Worker.objects.create(platform=Worker.Platform.LINK, external_id="w1")
    character = Category.objects.get(taxonomy=study.taxonomy, key="CharE")
    for number, document in enumerate(study.documents.order_by("position")):
        document.system, document.input_id = ("careful", "sloppy")[number % 2], f"in{number // 2}"
        document.save(update_fields=["system", "input_id"])
        assignment = Assignment.objects.create(
            study=study, document=document, worker=worker, status=Assignment.Status.SUBMITTED,
            submitted_at=timezone.now(),
        )  # fmt: skip
        if document.system == "sloppy":
            segment = document.segments.get()
            ErrorAnnotationFactory(assignment=assignment, segment=segment, category=character, start=0, end=7,
                                   text=segment.text[0:7])  # fmt: skip
    result = study_report_data(study)
    ranking = result["ranking"]
    assert not ranking["higher_is_better"]
    assert [(row["system"], row["score"], row["items"]) for row in ranking["systems"]][0] == (
        "careful",
        0.0,
        12,
    )
    assert [row["cluster"] for row in ranking["systems"]] == [1, 2]
    (pair,) = ranking["pairs"]
    assert pair["items"] == 12 and pair["p"] < 0.01

    section, client = stored_and_shown(study, researcher, result)
    assert "error spans per 100 tokens (lower is better)" in section and "1 separated, 0 not" in section
    archive = zipfile.ZipFile(io.BytesIO(client.get(reverse("console:publish_csv", args=[study.pk])).content))
    rows = list(csv.reader(io.StringIO(archive.read("ranking.csv").decode())))
    assert [row[2] for row in rows[1:]] == ["careful", "sloppy"]
