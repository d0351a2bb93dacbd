"""On PostgreSQL the span table's CSV comes straight from COPY: the same bytes as the Python
writer, for text a spreadsheet would run, quotes, commas, line breaks, emoji and combining
characters, paired spans, found-nothing rows, questions about the document and feedback."""

import csv
import io

import pytest
from django.db import connection
from django.urls import reverse

from accounts.models import StudyMembership
from accounts.pseudonyms import annotator_pseudonym
from accounts.services import researcher_create
from annotations.models import Assignment
from bundles.services import study_import_bundle
from exports.rows import csv_chunks, csv_lines
from protocols.span.export_copy import _statements, span_csv_copy
from protocols.span.models import Suggestion
from tests.bundles import annotation, study_yaml, write_bundle

pytestmark = pytest.mark.django_db
needs_postgresql = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="COPY is PostgreSQL's; SQLite keeps the Python writer"
)

FIRST = '=SUM(A1) said "Anna", then left.\r\nNew line 😀 café e\u0301 -3 @home'
SECOND = "Miss Sessions arrived. Anna met Ben again, =1+1."
DOCUMENTS = [
    {"id": "d1", "system": "@sysA", "input_id": "book1", "segments": [FIRST, SECOND]},
    {"id": "-d2", "system": "sys,B", "input_id": "book1", "segments": ["Tom & Jerry ran home 😀.", "Then slept."]},
    {"id": "d3", "system": "", "input_id": "book2", "segments": ["Nothing here.", "Or here."]},
]  # fmt: skip
QUESTIONS = [
    {"key": "coherence", "label": "How coherent?", "kind": "likert", "scale": {"min": -2, "max": 2}},
    {"key": "better", "label": "Which?", "kind": "single", "options": ["=this one", "the other, \"B\""]},
    {"key": "problems", "label": "What?", "kind": "multi", "options": ["-names", "time jumps", "répétition 😀"]},
    {"key": "notes", "label": "Else?", "kind": "text"},
]  # fmt: skip
FEEDBACK = '=HYPERLINK("http://evil.example","item 2")\nSummary 3 was <b>empty</b> 😀'


def span(segment, category, text, within, **extra):
    start = within.index(text)
    return annotation(segment, category, start, start + len(text), text, **extra)


ASSIGNMENTS = [
    {"document": "d1", "annotator": "PROLIFIC-5f3a", "platform": "prolific", "block": "=2", "active_seconds": 90,
     "submitted_at": "2026-03-01T12:00:00Z", "feedback": FEEDBACK,
     "annotations": [
         span(0, "CharE", "=SUM(A1)", FIRST, comment='+1, "really"\r\nyes'),
         span(0, "SceneE", 'said "Anna", then', FIRST, comment="\tleading tab"),
         span(0, "CharE", "😀 café e\u0301", FIRST, comment="-"),
         span(1, "RepE", "Anna met Ben again", SECOND,
              paired={"segment": 0, "start": 0, "end": 8, "text": "=SUM(A1)"}),
         span(1, "GramE", "=1+1", SECOND, comment="@mention"),
     ],
     "document_answers": {"coherence": -1, "better": "=this one", "problems": ["-names", "répétition 😀"],
                          "notes": "Ends =SUM(A1) abruptly.\nTwo, \"lines\"."}},
    {"document": "-d2", "annotator": "@evil", "platform": "link", "submitted_at": "2026-03-01T12:00:00.250000Z",
     "annotations": [], "document_answers": {"coherence": 2, "better": "the other, \"B\""}},
    {"document": "d3", "annotator": "PROLIFIC-77bb", "platform": "prolific", "kind": "gold", "annotations": [],
     "feedback": "fine"},
    {"document": "-d2", "annotator": "PROLIFIC-77bb", "platform": "prolific",
     "annotations": [span(0, "CharE", "Tom & Jerry", "Tom & Jerry ran home 😀.")]},
]  # fmt: skip

GRAM_E = {"key": "GramE", "label": "Grammar", "group": "language"}


def import_awkward_study(directory, user):
    """The study above: every kind of cell the CSV writer has to get right."""
    yaml = study_yaml(config={"document_questions": QUESTIONS})
    yaml["taxonomy"] = {**yaml["taxonomy"], "categories": [*yaml["taxonomy"]["categories"], GRAM_E]}
    directory = write_bundle(directory, study=yaml, documents=DOCUMENTS, assignments=ASSIGNMENTS)
    return study_import_bundle(directory=directory, user=user).study


@pytest.fixture
def study(tmp_path, researcher):
    return import_awkward_study(tmp_path, researcher)


def python_csv(study, with_ids):
    return "".join(csv_lines(study, with_platform_ids=with_ids)).encode()


@needs_postgresql
@pytest.mark.parametrize("with_ids", [False, True], ids=["pseudonyms only", "with platform ids"])
def test_copy_writes_the_same_bytes_as_the_python_writer(study, with_ids):
    assert span_csv_copy(study, with_platform_ids=with_ids) is not None  # the fast path runs
    copied = b"".join(csv_chunks(study, with_platform_ids=with_ids))
    assert copied == python_csv(study, with_ids)
    rows = list(csv.reader(io.StringIO(copied.decode(), newline="")))
    assert len(rows) == 1 + 6 + 2  # header, 6 spans, 2 assignments that found nothing
    assert ("'=HYPERLINK" in copied.decode()) and ("'@evil" in copied.decode()) == with_ids


@needs_postgresql
def test_analysts_get_the_same_pseudonyms_from_copy(client, study):
    analyst = researcher_create(username="analyst", password="pass-w0rd-for-tests")
    StudyMembership.objects.create(study=study, user=analyst, role="analyst")
    client.force_login(analyst)
    response = client.get(reverse("export-annotations", args=[study.pk, "csv"]))
    body = b"".join(response.streaming_content)
    assert body == python_csv(study, False)
    worker = Assignment.objects.get(document__external_id="d1").worker
    assert annotator_pseudonym(study.pk, worker.pk) in body.decode()
    assert "PROLIFIC-5f3a" not in body.decode()


def test_csv_chunks_are_the_python_writers_bytes_on_every_database(study):
    if connection.vendor != "postgresql":
        assert span_csv_copy(study) is None
    assert b"".join(csv_chunks(study)) == python_csv(study, False)


def test_an_assisted_study_keeps_the_python_writer(study):
    """Rejected suggestions have rows of their own that the COPY path does not write."""
    document = study.documents.get(external_id="d1")
    segment = document.segments.get(index=1)
    Suggestion.objects.create(document=document, position=1, segment=segment,
                              category=study.taxonomy.categories.get(key="CharE"), start=0, end=4, text="Miss")  # fmt: skip
    assert span_csv_copy(study) is None
    assert b"".join(csv_chunks(study)) == python_csv(study, False)
    assert b"suggestion_action" in b"".join(csv_chunks(study)).split(b"\r\n")[0]


@needs_postgresql
def test_copy_never_sorts_the_whole_table_before_the_first_row(study):
    """Only each assignment's spans are sorted: a sort above the join would hold back the first
    row until every row was read (tens of seconds at 10M rows, docs/benchmarks.md)."""
    (statement, params), _ = _statements(study, with_platform_ids=True)
    query = statement.removeprefix("COPY (").removesuffix(") TO STDOUT (FORMAT csv)")
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN {query}", params)
        plan = [line for (line,) in cursor.fetchall()]
    assert plan[0].startswith("Nested Loop"), plan
