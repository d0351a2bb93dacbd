"""The translation annotation table: a row per rated segment with its score and its errors,
only for submitted work, each assignment's errors and scores on its own rows; read a chunk
of assignments at a time (errors and scores are never gathered for the whole study)."""

import csv
import io
import json

import pytest
from django.db import connection
from django.utils import timezone

from accounts.pseudonyms import annotator_pseudonym
from annotations.models import Assignment
from exports.rows import csv_lines, row_count
from protocols.translation import exports
from protocols.translation.models import SegmentScore, TranslationError
from tests.factories import AssignmentFactory
from tests.translation.studies import make_translation_study

pytestmark = pytest.mark.django_db


def assign(study, document, status=Assignment.Status.SUBMITTED, **fields):
    return AssignmentFactory(
        document=document, study=study, status=status, submitted_at=timezone.now(), **fields
    )


def error(assignment, segment, text, **fields):
    return TranslationError.objects.create(
        assignment=assignment, segment=segment, start=0, end=len(text), text=text, severity="major",
        client_id=f"{assignment.pk}-{segment.pk}-{text}", **fields,
    )  # fmt: skip


def table(study):
    return list(csv.DictReader(io.StringIO("".join(csv_lines(study)), newline="")))


def test_each_assignments_scores_and_errors_land_on_its_own_rows(monkeypatch):
    monkeypatch.setattr(exports, "CHUNK", 2)  # several chunks of assignments, errors and scores
    study = make_translation_study("esa", systems=("sysA", "sysB"), documents=2, taxonomy=None)
    documents = list(study.documents.order_by("position"))
    submitted = []
    for n, document in enumerate(documents * 2):  # two workers per translation
        assignment = assign(study, document)
        segments = list(document.segments.order_by("index"))
        SegmentScore.objects.create(assignment=assignment, segment=segments[0], score=10 * n + 0.5)
        error(assignment, segments[1], f'wrong {n}, "quoted" 😀', comment="=1+1")
        error(assignment, segments[1], "also")
        submitted.append(assignment)
    open_one = assign(study, documents[0], status=Assignment.Status.IN_PROGRESS)
    error(open_one, documents[0].segments.get(index=0), "unsubmitted")

    rows = table(study)
    assert len(rows) == row_count(study) == len(submitted) * 3
    assert "unsubmitted" not in json.dumps(rows)
    for assignment in submitted:
        mine = [row for row in rows if row["assignment"] == str(assignment.pk)]
        n = submitted.index(assignment)
        assert [row["segment"] for row in mine] == ["0", "1", "2"]
        assert [row["score"] for row in mine] == [str(10 * n + 0.5), "", ""]
        assert json.loads(mine[0]["errors"]) == [] and json.loads(mine[2]["errors"]) == []
        errors = json.loads(mine[1]["errors"])
        assert [e["text"] for e in errors] == [f'wrong {n}, "quoted" 😀', "also"]
        assert errors[0]["comment"] == "=1+1"  # raw inside the JSON cell
        assert {row["document"] for row in mine} == {assignment.document.external_id}
        assert {row["annotator"] for row in mine} == {annotator_pseudonym(study.pk, assignment.worker_id)}


def test_a_contrastive_assignment_gives_rows_for_each_translation_in_its_order():
    study = make_translation_study("contrastive-esa", systems=("sysA", "sysB", "sysC"), taxonomy=None)
    documents = list(study.documents.order_by("position"))
    order = [documents[2], documents[0], documents[1]]
    assignment = Assignment.objects.create(
        study=study, worker=AssignmentFactory(document=documents[0]).worker, block="src-0",
        status=Assignment.Status.SUBMITTED, submitted_at=timezone.now(),
        items=[{"document": document.pk, "position": n} for n, document in enumerate(order)],
    )  # fmt: skip
    SegmentScore.objects.create(assignment=assignment, segment=order[1].segments.get(index=2), score=33)
    error(assignment, order[2].segments.get(index=0), "sofa")
    rows = [row for row in table(study) if row["assignment"] == str(assignment.pk)]
    assert [(row["system"], row["segment"]) for row in rows] == [
        (document.system, str(index)) for document in order for index in range(3)
    ]
    assert rows[5]["score"] == "33.0" and json.loads(rows[6]["errors"])[0]["text"] == "sofa"


@pytest.mark.parametrize("protocol", ["esa", "contrastive-esa"])
def test_the_table_is_the_same_however_its_reads_are_chunked(monkeypatch, protocol):
    # Chunks of 2 assignments, and 2 documents per query of the corpus: a contrastive
    # assignment's three translations are read by two queries, a translation by several chunks.
    study = make_translation_study(protocol, systems=("sysA", "sysB", "sysC"), documents=2, taxonomy=None)
    documents = list(study.documents.order_by("position"))
    for n in range(6):
        if protocol == "esa":
            assignment = assign(study, documents[n % len(documents)])
        else:
            block = documents[3 * (n % 2) : 3 * (n % 2) + 3]
            assignment = Assignment.objects.create(
                study=study, worker=AssignmentFactory(document=documents[0]).worker, block=block[0].block,
                status=Assignment.Status.SUBMITTED, submitted_at=timezone.now(),
                items=[{"document": d.pk, "position": p} for p, d in enumerate(block[n % 3 :] + block[: n % 3])],
            )  # fmt: skip
        for document in documents:
            segment = document.segments.get(index=n % 3)
            SegmentScore.objects.create(assignment=assignment, segment=segment, score=n)
            error(assignment, segment, f"wrong {n}")
    whole = table(study)
    assert len(whole) == 6 * (3 if protocol == "esa" else 9)
    monkeypatch.setattr(exports, "CHUNK", 2)
    monkeypatch.setattr(exports, "IN_QUERY", 2)
    assert table(study) == whole


def test_the_table_holds_the_documents_of_a_chunk_of_assignments_not_the_studys(monkeypatch):
    # What keeps the export's memory flat as a campaign grows in documents (docs/benchmarks.md).
    study = make_translation_study("esa", systems=("sysA", "sysB"), documents=3, taxonomy=None)
    for document in study.documents.order_by("position"):
        assign(study, document)
    monkeypatch.setattr(exports, "CHUNK", 2)
    held, corpus = [], exports._corpus

    def counted(study, documents):
        described, segments_of = corpus(study, documents)
        held.append((len(described), sum(len(segments) for segments in segments_of.values())))
        return described, segments_of

    monkeypatch.setattr(exports, "_corpus", counted)
    assert len(table(study)) == 6 * 3
    assert held == [(2, 6), (2, 6), (2, 6)]


@pytest.mark.skipif(connection.vendor != "postgresql", reason="the plans are PostgreSQL's")
def test_on_postgresql_a_chunks_documents_and_segments_are_read_by_index():
    """A scan of the study's documents and of every segment per chunk made the table's database
    time grow with the square of the study (docs/benchmarks.md, "MQM TSV"). On these few rows
    PostgreSQL would scan the tables whole if left to choose."""
    study = make_translation_study("esa", systems=("sysA", "sysB"), documents=3, taxonomy=None)
    for document in study.documents.all():
        assign(study, document)
    plans = []

    def explained(execute, sql, params, many, context):
        if sql.startswith("SELECT") and ('FROM "studies_segment"' in sql or 'FROM "studies_document"' in sql):
            raw = context["cursor"].cursor  # psycopg's own cursor: no wrapper runs twice
            raw.execute("EXPLAIN " + sql, params)
            plans.append("\n".join(row[0] for row in raw.fetchall()))
        return execute(sql, params, many, context)

    with connection.execute_wrapper(explained):
        assert len(table(study)) == 6 * 3
    assert len(plans) == 2
    assert all("Index" in plan and "Seq Scan" not in plan for plan in plans), plans
