"""A bundle survives export -> import into an empty database -> export unchanged."""

import shutil
from pathlib import Path

import pytest
from django.core.management import call_command

from accounts.models import Worker
from annotations.models import Assignment
from bundles.services import study_export_bundle, study_import_bundle
from studies.models import Category, Study, Taxonomy
from tests.bundles import annotation, write_bundle

pytestmark = pytest.mark.django_db

DEMO = Path(__file__).resolve().parents[2] / "demo" / "snac-demo"


def read_all(directory):
    return {path.name: path.read_bytes() for path in sorted(Path(directory).iterdir())}


def empty_database():
    Assignment.objects.all().delete()
    Worker.objects.all().delete()
    Study.objects.all().delete()
    Category.objects.all().delete()
    Taxonomy.objects.all().delete()


def test_export_import_export_is_identical(tmp_path):
    assignments = [
        {"document": "d1", "annotator": "w1", "block": "7", "active_seconds": 310,
         "submitted_at": "2026-03-01T12:00:00Z", "annotations": [
            annotation(1, "CharE", 0, 13, "Miss Sessions", comment="who is she? <b>"),
            annotation(1, "RepE", 23, 41, "Anna met Ben again",
                       paired={"segment": 0, "start": 0, "end": 12, "text": "Anna met Ben"}),
         ]},
        {"document": "d2", "annotator": "w2", "annotations": []},
        {"document": "d2", "annotator": "expert", "platform": "expert", "kind": "gold",
         "annotations": [annotation(0, "CharE", 28, 29, "😀")]},
    ]  # fmt: skip
    study_import_bundle(directory=write_bundle(tmp_path / "in", assignments=assignments))
    call_command("export_study", "bundle-study", str(tmp_path / "first"))

    empty_database()
    call_command("import_study", str(tmp_path / "first"))
    call_command("export_study", "bundle-study", str(tmp_path / "second"))

    first, second = read_all(tmp_path / "first"), read_all(tmp_path / "second")
    assert set(first) == {"study.yaml", "documents.jsonl", "assignments.jsonl", "annotations.csv"}
    assert first == second
    csv_text = first["annotations.csv"].decode()
    assert "Miss Sessions" in csv_text and "who is she? <b>" in csv_text
    assert len(csv_text.strip().splitlines()) == 1 + 3


def test_demo_bundle_round_trips(tmp_path):
    study_import_bundle(directory=DEMO)
    study = Study.objects.get()
    study_export_bundle(study=study, directory=tmp_path / "first")
    empty_database()
    study_import_bundle(directory=tmp_path / "first")
    study_export_bundle(study=Study.objects.get(), directory=tmp_path / "second")
    assert read_all(tmp_path / "first") == read_all(tmp_path / "second")


def test_given_sentences_survive_the_round_trip(tmp_path):
    documents = [{"id": "x", "segments": ["One two. Three four."], "sentences": [[[0, 4], [4, 20]]]}]
    study_import_bundle(directory=write_bundle(tmp_path / "in", documents=documents))
    study_export_bundle(study=Study.objects.get(), directory=tmp_path / "out")
    assert '"sentences": [[[0, 4], [4, 20]]]' in (tmp_path / "out" / "documents.jsonl").read_text()


def test_export_of_a_bundle_without_assignments_reimports(tmp_path):
    shutil.copytree(DEMO, tmp_path / "demo")
    study_import_bundle(directory=tmp_path / "demo")
    study_export_bundle(study=Study.objects.get(), directory=tmp_path / "out")
    assert (tmp_path / "out" / "assignments.jsonl").read_text() == ""
