"""A problem in a file that holds all its items on one line (Label Studio's JSON export, FALTE's
documents.json) is located by the tool's own ids, not as "line 1" of the file."""

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from studies.models import Study

pytestmark = pytest.mark.django_db

TEXT = "Anna met Ben at the mill. Rosalie waved."
ACROSS = {"id": "a1b2", "from_name": "label", "to_name": "text", "type": "labels",
          "value": {"start": 20, "end": 32, "text": TEXT[20:32], "labels": ["CharE"]}}  # fmt: skip
WRONG_TEXT = {"id": "z9", "from_name": "label", "to_name": "text", "type": "labels",
              "value": {"start": 0, "end": 4, "text": "Bert", "labels": ["CharE"]}}  # fmt: skip


def tasks(region=ACROSS):
    return [
        {"id": 16, "data": {"text": "Nothing to see."}, "annotations": [{"id": 44, "completed_by": 11, "result": []}]},
        {"id": 17, "data": {"text": TEXT}, "annotations": [
            {"id": 45, "completed_by": 11, "result": []},
            {"id": 46, "completed_by": 12, "result": [region]},
        ]},
    ]  # fmt: skip


def problems(path, *options):
    err = StringIO()
    with pytest.raises(CommandError, match="nothing was imported"):
        call_command("import_annotations", str(path), "--format", "label-studio", "--slug", "x", *options,
                     stderr=err)  # fmt: skip
    assert not Study.objects.exists()
    return err.getvalue().splitlines()


def test_a_one_line_label_studio_export_names_task_annotation_and_region_without_a_line(tmp_path):
    path = tmp_path / "export.json"
    path.write_text(json.dumps(tasks(ACROSS)), encoding="utf-8")
    assert problems(path, "--sentences-per-segment", "1") == [
        "export.json: task 17, annotation 46, region a1b2: CharE [20, 32) crosses the border between "
        "segments 0 and 1",
    ]
    path.write_text(json.dumps(tasks(WRONG_TEXT)), encoding="utf-8")
    assert problems(path) == [
        "export.json: task 17, annotation 46, region z9: value.text 'Bert' is not the text at [0, 4) counted "
        "in code points ('Anna') nor in UTF-16 code units ('Anna')",
    ]


def test_an_export_with_a_task_a_line_keeps_the_line(tmp_path):
    path = tmp_path / "export.json"
    path.write_text(
        "[\n" + ",\n".join(json.dumps(task) for task in tasks(ACROSS)) + "\n]\n", encoding="utf-8"
    )
    assert problems(path, "--sentences-per-segment", "1") == [
        "export.json:3: task 17, annotation 46, region a1b2: CharE [20, 32) crosses the border between "
        "segments 0 and 1",
    ]


def test_notes_of_a_one_line_export_name_the_annotation_without_a_line(tmp_path):
    cancelled = tasks({**WRONG_TEXT, "value": {**WRONG_TEXT["value"], "text": "Anna"}})
    cancelled[0]["annotations"].append({"id": 47, "completed_by": 12, "result": [], "was_cancelled": True})
    path = tmp_path / "export.json"
    path.write_text(json.dumps(cancelled), encoding="utf-8")
    out = StringIO()
    call_command("import_annotations", str(path), "--format", "label-studio", "--slug", "notes", stdout=out)
    assert (
        "note: export.json: task 16, annotation 47: cancelled (was_cancelled), not imported" in out.getvalue()
    )


def test_a_one_line_falte_documents_json_names_the_document_without_a_line(tmp_path):
    directory = tmp_path / "bundle"
    directory.mkdir()
    (directory / "study.yaml").write_text(
        "slug: falte\ntitle: One line\nprotocol: span\ntaxonomy:\n  slug: t\n  name: T\n"
        "  categories:\n    - {key: CharE, label: New character}\n",
        encoding="utf-8",
    )
    (directory / "documents.json").write_text('{"good": ["Fine."], "bad": ["Fine.", ""]}', encoding="utf-8")
    err = StringIO()
    with pytest.raises(CommandError):
        call_command("import_study", str(directory), stderr=err)
    assert err.getvalue().splitlines()[0] == "documents.json: document 'bad': segment 1 is empty"
