"""The annotation table of a pairwise study: a row per choice, identities only for who manages it."""

import csv
import io
import json

import pytest
from django.urls import reverse

from accounts.models import StudyMembership
from accounts.pseudonyms import annotator_pseudonym
from accounts.services import researcher_create
from annotations.models import Assignment
from exports.rows import FEEDBACK_COLUMN, PLATFORM_COLUMNS, annotation_rows, row_count
from protocols.pairwise.exports import COLUMNS
from protocols.pairwise.models import PairwiseChoice
from tests.pairwise.bundles import import_pairwise, pair_assignment
from tests.pairwise.test_bundles import STRENGTH, lines

pytestmark = pytest.mark.django_db


@pytest.fixture
def study(tmp_path, researcher):
    return import_pairwise(tmp_path / "study", config=STRENGTH, assignments=lines(), user=researcher)


@pytest.fixture
def other(tmp_path, researcher):
    """Another study with choices on documents of the same names."""
    return import_pairwise(
        tmp_path / "other", slug="other", config=STRENGTH, assignments=lines(), user=researcher
    )


@pytest.fixture
def analyst(study):
    user = researcher_create(username="analyst", password="pass-w0rd-for-tests")
    StudyMembership.objects.create(study=study, user=user, role="analyst")
    return user


def download(client, study, file_format):
    response = client.get(reverse("export-annotations", args=[study.pk, file_format]))
    assert response.status_code == 200 and response.streaming
    body = b"".join(response.streaming_content).decode()
    if file_format == "csv":
        header = next(csv.reader(io.StringIO(body, newline="")))
        return header, list(csv.DictReader(io.StringIO(body, newline="")))
    rows = [json.loads(line) for line in body.splitlines()]
    return (list(rows[0]) if rows else []), rows


def expected_rows(study, with_platform_ids):
    rows = []
    for c in PairwiseChoice.objects.filter(assignment__study=study).select_related(
        "left", "right", "assignment__worker"
    ):
        assignment, worker = c.assignment, c.assignment.worker
        winner = {"left": c.left.external_id, "right": c.right.external_id, "tie": "tie"}[c.choice]
        row = {"study": study.slug, "block": assignment.block, "input_id": c.left.input_id, "position": c.position,
               "left": c.left.external_id, "right": c.right.external_id, "left_system": c.left.system,
               "right_system": c.right.system, "choice": c.choice, "winner": winner,
               "strength": "" if c.strength is None else c.strength,
               "annotator": annotator_pseudonym(study.pk, worker.pk), "assignment": assignment.pk,
               "kind": assignment.kind, "submitted_at": assignment.submitted_at.isoformat() if assignment.submitted_at else "",
               "active_seconds": assignment.active_seconds}  # fmt: skip
        row[FEEDBACK_COLUMN] = assignment.worker_feedback
        if with_platform_ids:
            row |= {"worker_platform": worker.platform, "worker_external_id": worker.external_id}
        rows.append(row)
    return rows


def key(row):
    return json.dumps(row, sort_keys=True, default=str)


@pytest.mark.parametrize("file_format", ["csv", "jsonl"])
@pytest.mark.parametrize("role", ["analyst", "researcher"])
def test_every_choice_appears_once_with_its_values(
    client, study, other, analyst, researcher, file_format, role
):
    with_platform_ids = role == "researcher"
    client.force_login({"analyst": analyst, "researcher": researcher}[role])
    header, rows = download(client, study, file_format)
    assert header == [*COLUMNS, FEEDBACK_COLUMN] + (PLATFORM_COLUMNS if with_platform_ids else [])
    expected = expected_rows(study, with_platform_ids)
    if file_format == "csv":
        expected = [
            {name: "" if value is None else str(value) for name, value in row.items()} for row in expected
        ]
    assert len(rows) == len(expected) == row_count(study) == 9
    assert sorted(map(key, rows)) == sorted(map(key, expected))
    assert {row["study"] for row in rows} == {study.slug}
    shown = {str(value) for row in rows for value in row.values()}
    if with_platform_ids:
        assert {row["worker_external_id"] for row in rows} == {"P-1", "P-2"}
    else:
        assert not shown & {"P-1", "P-2", "prolific"}  # pseudonyms only


def test_rows_come_by_block_assignment_and_pair_and_name_the_winner(study):
    rows = list(annotation_rows(study))
    order = [(row[1], row[12], row[3]) for row in rows]
    assert order == sorted(order)
    first = next(row for row in rows if row[4:6] == ["b1-in0-sysC", "b1-in0-sysA"])
    assert first[8:11] == ["right", "b1-in0-sysA", 1] and first[6:8] == ["sysC", "sysA"]
    tie = next(row for row in rows if row[8] == "tie")
    assert tie[9] == "tie" and tie[10] == ""
    assert [row[13] for row in rows].count("retest") == 1


def test_choices_of_unsubmitted_blocks_stay_out(client, study):
    assignment = pair_assignment(study, "busy", "b2")
    url = reverse("task-api-pairwise-choices", args=[assignment.token])
    body = {"position": assignment.items[0]["position"], "choice": "left", "strength": 1}
    assert client.post(url, json.dumps(body), content_type="application/json").status_code == 200
    assert row_count(study) == 9 and assignment.pk not in {row[12] for row in annotation_rows(study)}
    assert Assignment.objects.get(pk=assignment.pk).status == Assignment.Status.IN_PROGRESS


def test_an_analyst_reads_the_choices_in_admin_by_pseudonym_and_cannot_search_by_platform_id(
    client, study, analyst, researcher
):
    url = reverse("admin:pairwise_pairwisechoice_changelist")
    client.force_login(researcher)
    managed = client.get(url + "?q=P-2").content.decode()
    assert "P-2" in managed and "b1-in0-sysA" in managed
    client.force_login(analyst)
    listed = client.get(url).content.decode()
    assert "b1-in0-sysA (sysA)" in listed and "P-1" not in listed and "P-2" not in listed
    pseudonym = annotator_pseudonym(
        study.pk, Assignment.objects.filter(worker__external_id="P-1").first().worker_id
    )
    assert pseudonym in listed
    assert "0 results" in client.get(url + "?q=P-2").content.decode()
    choice = PairwiseChoice.objects.filter(assignment__study=study).first()
    page = client.get(reverse("admin:pairwise_pairwisechoice_change", args=[choice.pk]))
    assert page.status_code == 200 and "P-1" not in page.content.decode()
    assert (
        client.post(
            reverse("admin:pairwise_pairwisechoice_delete", args=[choice.pk]), {"post": "yes"}
        ).status_code
        == 403
    )
    assert PairwiseChoice.objects.filter(pk=choice.pk).exists()
