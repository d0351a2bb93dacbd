"""Parquet from the bulk path: on PostgreSQL the span table's COPY statements parsed into Arrow
batches, elsewhere the protocol's rows turned into columns a chunk at a time. Either way the
file holds the values of the protocol's rows (the table every format shares), text exactly as
stored, pseudonyms for analysts, and it is written while the rows are read, never after
reading them all."""

import io
import random

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from django.db import connection
from django.urls import reverse
from django.utils import timezone

from accounts.models import StudyMembership, Worker
from accounts.pseudonyms import annotator_pseudonym
from accounts.services import researcher_create
from annotations.models import Assignment
from exports import arrow, parquet
from exports.parquet import parquet_chunks, parquet_schema
from exports.rows import annotation_rows
from protocols.span.export_copy import span_arrow_batches
from tests.factories import AssignmentFactory, ErrorAnnotationFactory, make_span_study

pytestmark = pytest.mark.django_db
on_postgresql = connection.vendor == "postgresql"

# Text a worker may type: right-to-left scripts, astral characters, combining marks, quotes,
# separators and line breaks; NUL only where the database can store it (PostgreSQL cannot).
PIECES = ["Anna", "مرحبا بالعالم", "שלום", "😀", "𝕏𝔂", "e\u0301", "\u200f", '"', "'", ",", ";", "\n", "\r\n",
          "\t", " ", "=SUM(A1)", "-3", "@x", "", "\\", "NULL", "\\N"] + ([] if on_postgresql else ["\x00"])  # fmt: skip


def text(rng, most=6):
    return "".join(rng.choice(PIECES) for _ in range(rng.randint(0, most)))


def random_study(seed, researcher=None):
    """A span study of random shape and text: paired spans, empty comments, assignments that
    found nothing, feedback, an open assignment whose spans are not exported."""
    rng = random.Random(seed)
    study = make_span_study(documents=rng.randint(2, 4), segments=3, researcher=researcher)
    categories = list(study.taxonomy.categories.all())
    for document in study.documents.all():
        segments = list(document.segments.all())
        for n in range(rng.randint(1, 3)):
            status = rng.choice([Assignment.Status.SUBMITTED] * 4 + [Assignment.Status.IN_PROGRESS])
            worker = Worker.objects.create(
                platform="prolific", external_id=f"P-{document.pk}-{n}-{text(rng, 2)}"
            )
            assignment = AssignmentFactory(
                document=document, worker=worker, status=status, submitted_at=timezone.now(),
                active_seconds=rng.randint(0, 900), worker_feedback=text(rng), block=text(rng, 2),
            )  # fmt: skip
            for _ in range(rng.choice([0, 1, 4, 9])):
                paired = rng.random() < 0.3
                start = rng.randint(0, 20)
                ErrorAnnotationFactory(
                    assignment=assignment, segment=rng.choice(segments), category=rng.choice(categories),
                    start=start, end=start + rng.randint(1, 9), text=text(rng), comment=text(rng),
                    paired_segment=rng.choice(segments) if paired else None,
                    paired_start=0 if paired else None, paired_end=3 if paired else None,
                    paired_text=text(rng) if paired else "",
                )  # fmt: skip
    return study


def expected_table(study, with_ids):
    """What the file must hold: the protocol's rows, an empty typed cell as null, text as str()."""
    schema = parquet_schema(study, with_platform_ids=with_ids)
    columns = [[] for _ in schema]
    for row in annotation_rows(study, with_platform_ids=with_ids):
        for values, field, value in zip(columns, schema, row, strict=True):
            if field.type == pa.string():
                values.append(None if value is None else str(value))
            else:
                values.append(None if value == "" else value)
    return pa.table(columns, schema=schema)


def read(chunks):
    return pq.read_table(io.BytesIO(b"".join(chunks)))


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("with_ids", [False, True])
def test_the_file_holds_the_rows_values_exactly(seed, with_ids):
    study = random_study(seed)
    if on_postgresql:  # the bulk path is the one under test there
        assert span_arrow_batches(study, schema=parquet_schema(study)) is not None
    table = read(parquet_chunks(study, with_platform_ids=with_ids, row_group=7))
    expected = expected_table(study, with_ids)
    assert table.num_rows == expected.num_rows > 0
    assert table.schema == expected.schema
    assert table.to_pylist() == expected.to_pylist()
    found_nothing = [row for row in table.to_pylist() if row["no_annotation"]]
    assert all(row["span_text"] == "" and row["start"] is None for row in found_nothing)


def test_text_survives_byte_for_byte():
    study = make_span_study(documents=1, segments=1)
    segment = study.documents.get().segments.get()
    awkward = ["مرحبا" + "\u200f" + "😀𝕏" + "e\u0301", '"\r\n,;\t', "\\N", "NULL", ""]
    if not on_postgresql:
        awkward.append("before\x00after")
    for n, value in enumerate(awkward):
        assignment = AssignmentFactory(document=segment.document, status=Assignment.Status.SUBMITTED,
                                       submitted_at=timezone.now(), worker_feedback=value)  # fmt: skip
        ErrorAnnotationFactory(
            assignment=assignment, segment=segment, text=value, comment=value, start=n, end=n + 1
        )
    table = read(parquet_chunks(study)).to_pylist()
    assert [row["span_text"] for row in table] == awkward
    assert [row["comment"] for row in table] == [row["worker_feedback"] for row in table] == awkward


def test_analysts_get_pseudonyms_and_no_platform_ids(client, researcher):
    study = random_study(4, researcher=researcher)
    analyst = researcher_create(username="analyst", password="pass-w0rd-for-tests")
    StudyMembership.objects.create(study=study, user=analyst, role="analyst")
    client.force_login(analyst)
    response = client.get(reverse("export-annotations", args=[study.pk, "parquet"]))
    table = read(response.streaming_content)
    assert "worker_platform" not in table.column_names and "worker_external_id" not in table.column_names
    submitted = Assignment.objects.filter(study=study, status=Assignment.Status.SUBMITTED)
    assert set(table.column("annotator").to_pylist()) == {
        annotator_pseudonym(study.pk, assignment.worker_id) for assignment in submitted
    }
    assert "P-" not in str(table.to_pylist())


def test_a_study_without_submitted_work_gives_an_empty_typed_file():
    study = make_span_study(documents=1)
    table = read(parquet_chunks(study))
    assert table.num_rows == 0 and table.schema == parquet_schema(study)


def test_the_rows_are_read_a_chunk_at_a_time(monkeypatch):
    """The row path never reads more than a chunk of rows ahead of what it has written."""
    monkeypatch.setattr(arrow, "ROWS_PER_BATCH", 3)
    study = random_study(5)
    total = len(list(annotation_rows(study)))
    read_so_far = []

    def counted(study, **options):
        for n, row in enumerate(annotation_rows(study, **options), start=1):
            read_so_far.append(n)
            yield row

    monkeypatch.setattr(parquet, "annotation_rows", counted)
    monkeypatch.setattr(parquet.protocols.of(study), "export_arrow_batches", lambda *args, **options: None)
    chunks = parquet_chunks(study, row_group=4)
    next(chunks)  # the magic bytes
    next(chunks)  # the first row group
    assert total > 9 and read_so_far[-1] <= 4 + 3  # a row group, and at most one chunk beyond it
    list(chunks)
    assert read_so_far[-1] == total


@pytest.mark.skipif(not on_postgresql, reason="COPY is PostgreSQL's")
def test_copy_output_is_parsed_while_it_is_read(monkeypatch):
    """The first batch leaves the reader before COPY has sent every row."""
    monkeypatch.setattr(arrow, "BLOCK_BYTES", 512)
    study = random_study(6)
    sent = []
    copy_blocks = arrow._copy_blocks

    def counted(cursor, statements):
        for block in copy_blocks(cursor, statements):
            sent.append(len(block))
            yield block

    monkeypatch.setattr(arrow, "_copy_blocks", counted)
    schema = parquet_schema(study)
    batches = span_arrow_batches(study, schema=schema)
    first = next(batches)
    blocks_before_first = len(sent)
    rest = list(batches)
    assert blocks_before_first == 1 < len(sent)
    assert pa.Table.from_batches([first, *rest]).to_pylist() == expected_table(study, False).to_pylist()
