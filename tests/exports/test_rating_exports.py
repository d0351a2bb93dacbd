"""Likert and BWS studies export their ratings and judgments: one row each, nothing lost."""

import csv
import io
import json

import pytest
from django.urls import reverse

from accounts.models import StudyMembership, Worker
from accounts.pseudonyms import annotator_pseudonym
from accounts.services import researcher_create
from annotations.models import Assignment
from annotations.services.blocks import block_assignment_create
from bundles.services import study_import_bundle
from exports.models import Export
from exports.rows import FEEDBACK_COLUMN, PLATFORM_COLUMNS, annotation_rows, row_count
from falte_site.celery import app as celery_app
from protocols.rating.exports import BWS_COLUMNS, LIKERT_COLUMNS
from protocols.rating.models import BestWorstJudgment, Rating
from tests.rating_bundles import SYSTEMS, write_rating_bundle

pytestmark = pytest.mark.django_db

SUBMITTED_AT = "2026-03-02T10:00:00+00:00"


def likert_lines(shift=0):
    """Two workers on b1, one on b2 with a retest of it; every score tells its output apart."""
    lines = []
    for annotator, block, kind in [("P-1", "b1", "main"), ("P-2", "b1", "main"), ("P-1", "b2", "main"),
                                   ("P-1", "b2", "retest")]:  # fmt: skip
        ratings = [{"document": f"{block}-in{n}-{system}", "score": (n + s + len(lines) + shift) % 5 + 1}
                   for n in range(2) for s, system in enumerate(SYSTEMS)]  # fmt: skip
        lines.append({"annotator": annotator, "platform": "prolific", "block": block, "kind": kind,
                      "active_seconds": 30 + len(lines), "submitted_at": SUBMITTED_AT, "ratings": ratings})  # fmt: skip
    return lines


def bws_lines():
    """Two workers on b1, one on b2; one judgment without a value."""
    lines = []
    for annotator, block in [("P-1", "b1"), ("P-2", "b1"), ("P-3", "b2")]:
        judgments = [{"documents": [f"{block}-in{n}-{s}" for s in SYSTEMS], "best": f"{block}-in{n}-sysC",
                      "worst": f"{block}-in{n}-{'sysA' if annotator == 'P-1' else 'sysB'}",
                      "value": None if (annotator, n) == ("P-2", 1) else n + 1} for n in range(2)]  # fmt: skip
        lines.append({"annotator": annotator, "platform": "prolific", "block": block, "active_seconds": 40,
                      "submitted_at": SUBMITTED_AT, "judgments": judgments})  # fmt: skip
    return lines


def import_study(directory, researcher, **bundle):
    return study_import_bundle(directory=write_rating_bundle(directory, **bundle), user=researcher).study


@pytest.fixture
def likert(tmp_path, researcher):
    return import_study(tmp_path / "likert", researcher, slug="likert", assignments=likert_lines())


@pytest.fixture
def bws(tmp_path, researcher):
    return import_study(tmp_path / "bws", researcher, protocol="bws", slug="bws", assignments=bws_lines())


@pytest.fixture
def others(tmp_path, researcher):
    """Submitted ratings and judgments of two other studies, on documents of the same names."""
    return [
        import_study(tmp_path / "other-likert", researcher, slug="other-likert", assignments=likert_lines(2)),
        import_study(
            tmp_path / "other-bws", researcher, protocol="bws", slug="other-bws", assignments=bws_lines()
        ),
    ]


@pytest.fixture
def analyst(likert, bws):
    user = researcher_create(username="analyst", password="pass-w0rd-for-tests")
    for study in [likert, bws]:
        StudyMembership.objects.create(study=study, user=user, role="analyst")
    return user


def download(client, study, file_format):
    response = client.get(reverse("export-annotations", args=[study.pk, file_format]))
    assert response.status_code == 200 and response.streaming
    body = b"".join(response.streaming_content).decode()
    if file_format == "csv":
        header = next(csv.reader(io.StringIO(body, newline="")))
        return header, list(csv.DictReader(io.StringIO(body, newline="")))
    lines = [json.loads(line) for line in body.splitlines()]
    return (list(lines[0]) if lines else []), lines


def text(value):
    return "" if value is None else str(value)


def expected_ratings(study, with_platform_ids):
    rows = []
    for rating in Rating.objects.filter(assignment__study=study).select_related(
        "document", "assignment__worker"
    ):
        assignment, worker = rating.assignment, rating.assignment.worker
        row = {"study": study.slug, "document": rating.document.external_id, "system": rating.document.system,
               "input_id": rating.document.input_id, "block": assignment.block, "score": rating.score,
               "annotator": annotator_pseudonym(study.pk, worker.pk), "assignment": assignment.pk,
               "kind": assignment.kind, "submitted_at": assignment.submitted_at.isoformat(),
               "active_seconds": assignment.active_seconds}  # fmt: skip
        row[FEEDBACK_COLUMN] = assignment.worker_feedback
        if with_platform_ids:
            row |= {"worker_platform": worker.platform, "worker_external_id": worker.external_id}
        rows.append(row)
    return rows


def expected_judgments(study, with_platform_ids):
    external = dict(study.documents.values_list("id", "external_id"))
    rows = []
    for judgment in BestWorstJudgment.objects.filter(assignment__study=study).select_related(
        "best", "worst", "assignment__worker"
    ):
        assignment, worker = judgment.assignment, judgment.assignment.worker
        row = {"study": study.slug, "block": assignment.block, "tuple": judgment.position,
               "documents": "; ".join(external[pk] for pk in judgment.documents),
               "best": judgment.best.external_id, "worst": judgment.worst.external_id,
               "value": "" if judgment.value is None else judgment.value, "best_system": judgment.best.system,
               "worst_system": judgment.worst.system, "annotator": annotator_pseudonym(study.pk, worker.pk),
               "assignment": assignment.pk, "kind": assignment.kind,
               "submitted_at": assignment.submitted_at.isoformat(), "active_seconds": assignment.active_seconds}  # fmt: skip
        row[FEEDBACK_COLUMN] = assignment.worker_feedback
        if with_platform_ids:
            row |= {"worker_platform": worker.platform, "worker_external_id": worker.external_id}
        rows.append(row)
    return rows


def as_csv(row):
    return {name: text(value) for name, value in row.items()}


def key(row):
    return json.dumps(row, sort_keys=True, default=str)


@pytest.mark.parametrize("protocol", ["likert", "bws"])
@pytest.mark.parametrize("file_format", ["csv", "jsonl"])
@pytest.mark.parametrize("role", ["analyst", "researcher"])
def test_every_rating_and_judgment_appears_once_with_its_values(
    client, likert, bws, others, analyst, researcher, protocol, file_format, role
):
    study = {"likert": likert, "bws": bws}[protocol]
    with_platform_ids = role == "researcher"
    client.force_login({"analyst": analyst, "researcher": researcher}[role])
    header, rows = download(client, study, file_format)
    fixed = {"likert": LIKERT_COLUMNS, "bws": BWS_COLUMNS}[protocol]
    assert header == [*fixed, FEEDBACK_COLUMN] + (PLATFORM_COLUMNS if with_platform_ids else [])
    expected = {"likert": expected_ratings, "bws": expected_judgments}[protocol](study, with_platform_ids)
    if file_format == "csv":
        expected = [as_csv(row) for row in expected]
    assert len(rows) == len(expected) == row_count(study) == {"likert": 24, "bws": 6}[protocol]
    assert sorted(map(key, rows)) == sorted(map(key, expected))  # each exactly once, nothing else
    assert {row["study"] for row in rows} == {study.slug}
    assert not {row["assignment"] for row in rows} & {
        text(pk) if file_format == "csv" else pk
        for pk in Assignment.objects.filter(study__in=others).values_list("pk", flat=True)
    }
    shown = {value for row in rows for value in row.values()}
    if with_platform_ids:
        assert {row["worker_external_id"] for row in rows} <= {"P-1", "P-2", "P-3"}
    else:
        assert not shown & {"P-1", "P-2", "P-3", "prolific"}  # pseudonyms only


def test_rows_come_by_block_assignment_and_position(likert, bws):
    ratings = list(annotation_rows(likert))
    order = [(row[4], row[7]) for row in ratings]
    assert order == sorted(order)
    first = [row[1] for row in ratings if row[7] == ratings[0][7]]
    assert first == [f"b1-in{n}-{system}" for n in range(2) for system in SYSTEMS]  # document order
    judgments = list(annotation_rows(bws))
    assert [(row[1], row[10], row[2]) for row in judgments] == sorted(
        (row[1], row[10], row[2]) for row in judgments
    )
    assert {row[6] for row in judgments} == {1, 2, ""}


def test_the_retest_is_its_own_rows(likert):
    kinds = [row[8] for row in annotation_rows(likert)]
    assert kinds.count("retest") == 6 and kinds.count("main") == 18


def test_ratings_of_unsubmitted_blocks_stay_out(likert, bws):
    worker = Worker.objects.create(platform="link", external_id="busy")
    open_block = block_assignment_create(study=likert, worker=worker, block="b2")
    Rating.objects.create(
        assignment=open_block, document=likert.documents.get(external_id="b2-in0-sysA"), score=3
    )
    open_tuple = block_assignment_create(study=bws, worker=worker, block="b1")
    documents = list(bws.documents.filter(input_id="b1-in0").order_by("position"))
    BestWorstJudgment.objects.create(assignment=open_tuple, position=0, documents=[d.pk for d in documents],
                                     best=documents[0], worst=documents[1])  # fmt: skip
    assert row_count(likert) == 24 and len(list(annotation_rows(likert))) == 24
    assert open_block.pk not in {row[7] for row in annotation_rows(likert)}
    assert row_count(bws) == 6 and open_tuple.pk not in {row[10] for row in annotation_rows(bws)}


def test_formula_like_document_ids_are_quoted_in_csv_only(client, bws, researcher):
    bws.documents.filter(external_id="b1-in0-sysC").update(external_id="=HYPERLINK(1)")
    client.force_login(researcher)
    _, table = download(client, bws, "csv")
    row = next(row for row in table if row["best"].endswith("HYPERLINK(1)"))
    assert row["best"] == "'=HYPERLINK(1)"
    assert row["documents"] == "b1-in0-sysA; b1-in0-sysB; =HYPERLINK(1)"  # not at the cell's start: as is
    _, lines = download(client, bws, "jsonl")
    assert "=HYPERLINK(1)" in {line["best"] for line in lines}


def test_a_large_rating_export_runs_as_a_job_counting_its_ratings(
    client, likert, researcher, settings, django_capture_on_commit_callbacks, tmp_path
):
    settings.EXPORT_STREAM_MAX_ROWS = 23  # one fewer than the ratings: a background job
    settings.MEDIA_ROOT = str(tmp_path / "media")
    celery_app.conf.task_always_eager, before = True, celery_app.conf.task_always_eager
    client.force_login(researcher)
    try:
        with django_capture_on_commit_callbacks(execute=True):
            response = client.get(reverse("export-annotations", args=[likert.pk, "jsonl"]))
    finally:
        celery_app.conf.task_always_eager = before
    assert response.status_code == 202
    job = client.get(reverse("export-job", args=[response.json()["id"]])).json()
    assert job["status"] == "done" and job["rows"] == 24
    content = b"".join(client.get(job["download"]).streaming_content).decode()
    assert sorted(json.loads(line)["score"] for line in content.splitlines()) == sorted(
        Rating.objects.values_list("score", flat=True)
    )
    (tmp_path / "media" / Export.objects.get().file).unlink()
