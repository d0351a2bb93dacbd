"""Imports through the bulk paths: the texts read a second time, spans spooled and written in
batches, exports a batch at a time; the same rows and files as before, and nothing written when
a check fails."""

import json
from datetime import timedelta

import pytest
from django.utils import timezone

import bundles.importing
import bundles.texts
from accounts.models import Worker
from annotations.models import Assignment
from bundles import BundleInvalid
from bundles.bulk import insert_rows
from bundles.services import study_export_bundle, study_import_bundle
from protocols.span import bundle_writing
from protocols.span.models import ErrorAnnotation
from studies.models import Document, Segment, Study
from tests.bundles import DOCUMENTS, annotation, write_bundle
from tests.studies.test_roundtrip import empty_database, read_all

pytestmark = pytest.mark.django_db

ASSIGNMENTS = [
    {"document": "d1", "annotator": "w1", "active_seconds": 310, "submitted_at": "2026-03-01T12:00:00Z",
     "annotations": [
        annotation(1, "CharE", 0, 13, "Miss Sessions", comment="who is she?", answers={"severity": "major"}),
        annotation(1, "RepE", 23, 41, "Anna met Ben again",
                   paired={"segment": 0, "start": 0, "end": 12, "text": "Anna met Ben"}),
     ]},
    {"document": "d2", "annotator": "w1", "annotations": [annotation(0, "CharE", 28, 29, "😀")]},
    {"document": "d1", "annotator": "w2", "annotations": []},
    {"document": "d2", "annotator": "w2", "annotations": [annotation(1, "CharE", 0, 4, "Then")]},
    {"document": "d2", "annotator": "expert", "platform": "expert", "kind": "gold",
     "annotations": [annotation(1, "CharE", 20, 26, "Élodie")]},
]  # fmt: skip


def test_spans_written_in_small_batches_round_trip_byte_for_byte(tmp_path, monkeypatch):
    """Batches of 2 assignments (3 batches here) give the same study as one batch, and so does an
    export that reads 2 assignments and 1 document at a time."""
    study_import_bundle(directory=write_bundle(tmp_path / "in", assignments=ASSIGNMENTS))
    study_export_bundle(study=Study.objects.get(), directory=tmp_path / "whole")

    empty_database()
    monkeypatch.setattr(bundle_writing, "ASSIGNMENT_BATCH", 2)
    monkeypatch.setattr("bundles.exporting.ASSIGNMENT_CHUNK", 2)
    monkeypatch.setattr("bundles.exporting.DOCUMENT_CHUNK", 1)
    result = study_import_bundle(directory=tmp_path / "whole")
    study_export_bundle(study=result.study, directory=tmp_path / "batched")

    assert read_all(tmp_path / "whole") == read_all(tmp_path / "batched")
    assert (result.documents, result.segments, result.assignments, result.annotations) == (2, 4, 5, 5)


def test_bulk_spans_get_their_text_segments_and_creation_time(tmp_path):
    before = timezone.now()
    study_import_bundle(directory=write_bundle(tmp_path, assignments=ASSIGNMENTS))
    repetition = ErrorAnnotation.objects.get(category__key="RepE")
    assert repetition.segment.index == 1 and repetition.text == "Anna met Ben again"
    assert (repetition.paired_segment.index, repetition.paired_text) == (0, "Anna met Ben")
    assert repetition.client_id == "import-2" and repetition.answers == {}
    assert repetition.segment.document.external_id == "d1"
    noted = ErrorAnnotation.objects.get(comment="who is she?")
    assert noted.answers == {"severity": "major"}
    assert before <= noted.created_at <= timezone.now() + timedelta(seconds=1)
    assert set(Assignment.objects.values_list("status", flat=True)) == {Assignment.Status.SUBMITTED}


def test_documents_alone_keep_no_texts_between_checking_and_writing(tmp_path, monkeypatch):
    """A span bundle without work files keeps a digest of each document, not its texts: the
    segments stored come from the second read, sentences computed as before."""
    kept = []
    check = bundles.importing.check_documents

    def spy(*args, **kwargs):
        documents, broken = check(*args, **kwargs)
        kept.extend(documents)
        return documents, broken

    monkeypatch.setattr(bundles.importing, "check_documents", spy)
    result = study_import_bundle(directory=write_bundle(tmp_path))
    assert [spec.segments for spec in kept] == [None, None]
    assert all(len(spec.digest) == 16 for spec in kept)
    assert (result.documents, result.segments) == (2, 4)
    stored = Segment.objects.get(document__external_id="d1", index=0)
    assert stored.text == DOCUMENTS[0]["segments"][0]
    assert stored.sentences == [[0, 25], [26, 36]]


def test_spans_are_checked_against_texts_read_back_from_disk(tmp_path, monkeypatch):
    """With work files the documents' specs keep no texts either: spans are checked against texts
    read back from disk by document id (one document in memory here, so d1 is read back twice)."""
    kept = []
    check = bundles.importing.check_documents

    def spy(*args, **kwargs):
        documents, broken = check(*args, **kwargs)
        kept.extend(documents)
        return documents, broken

    monkeypatch.setattr(bundles.importing, "check_documents", spy)
    monkeypatch.setattr(bundles.texts, "RECENT", 1)
    result = study_import_bundle(directory=write_bundle(tmp_path / "good", assignments=ASSIGNMENTS))
    assert [spec.segments for spec in kept] == [None, None]
    assert (result.assignments, result.annotations) == (5, 5)
    assert ErrorAnnotation.objects.get(comment="who is she?").text == "Miss Sessions"

    empty_database()
    late = {"document": "d1", "annotator": "w9", "annotations": [annotation(1, "CharE", 14, 45, "x")]}
    with pytest.raises(BundleInvalid) as raised:
        study_import_bundle(directory=write_bundle(tmp_path / "bad", assignments=[*ASSIGNMENTS, late]))
    assert str(raised.value).startswith("assignments.jsonl:6: annotation 1 (CharE): ")
    assert "segment 1" in str(raised.value) and not ErrorAnnotation.objects.exists()


def test_a_documents_file_changed_between_check_and_write_writes_nothing(tmp_path, monkeypatch):
    directory = write_bundle(tmp_path, assignments=None)
    write = bundles.importing.write_study

    def change_then_write(*args, **kwargs):
        changed = [dict(DOCUMENTS[0]), {**DOCUMENTS[1], "segments": ["Another text."]}]
        (directory / "documents.jsonl").write_text("\n".join(json.dumps(d) for d in changed) + "\n")
        return write(*args, **kwargs)

    monkeypatch.setattr(bundles.importing, "write_study", change_then_write)
    with pytest.raises(BundleInvalid) as raised:
        study_import_bundle(directory=directory)
    assert "documents.jsonl:2: the file changed while it was imported" in str(raised.value)
    assert not Study.objects.exists() and not Document.objects.exists() and not Segment.objects.exists()


def test_a_bad_span_on_the_last_line_writes_nothing(tmp_path):
    broken = [
        *ASSIGNMENTS,
        {"document": "d1", "annotator": "w9", "annotations": [annotation(0, "CharE", 0, 99, "x")]},
    ]
    with pytest.raises(BundleInvalid) as raised:
        study_import_bundle(directory=write_bundle(tmp_path, assignments=broken))
    assert "assignments.jsonl:6: annotation 1 (CharE)" in str(raised.value)
    assert not Study.objects.exists() and not Assignment.objects.exists()
    assert not ErrorAnnotation.objects.exists()


def test_insert_rows_refuses_a_field_that_would_go_unset(tmp_path):
    study_import_bundle(directory=write_bundle(tmp_path, assignments=ASSIGNMENTS))
    count = ErrorAnnotation.objects.count()
    assignment = Assignment.objects.first()
    segment = Segment.objects.first()
    with pytest.raises(ValueError, match="ErrorAnnotation.category_id is not given"):
        insert_rows(ErrorAnnotation, ("assignment_id", "segment_id", "start", "end", "text", "client_id"),
                    [(assignment.pk, segment.pk, 0, 4, segment.text[:4], "late")])  # fmt: skip
    assert ErrorAnnotation.objects.count() == count


def test_imported_assignments_take_their_defaults_and_leave_later_ids_free(tmp_path):
    """On PostgreSQL the import's assignments go in by COPY with ids taken from the sequence first:
    every field not given must hold its default, and a later assignment must get a new id."""
    study = study_import_bundle(directory=write_bundle(tmp_path, assignments=ASSIGNMENTS)).study
    imported = list(Assignment.objects.filter(study=study).order_by("pk"))
    assert len(imported) == len(ASSIGNMENTS)
    assert len({assignment.token for assignment in imported}) == len(imported)
    assert all(len(assignment.token) == 32 for assignment in imported)
    first = imported[0]
    assert (first.document.external_id, first.worker.external_id, first.status, first.active_seconds) == (
        "d1", "w1", Assignment.Status.SUBMITTED, 310,
    )  # fmt: skip
    assert (first.completion_code, first.segments_visited, first.platform_ids, first.joined) == (
        "",
        [],
        {},
        False,
    )
    assert first.created_at is not None and first.submitted_at.isoformat() == "2026-03-01T12:00:00+00:00"
    newcomer = Worker.objects.create(platform=first.worker.platform, external_id="newcomer")
    later = Assignment.objects.create(study=study, document=first.document, worker=newcomer)
    assert later.pk > imported[-1].pk
