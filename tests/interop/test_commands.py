"""import_annotations and export_annotations on the command line."""

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from studies.models import Study

pytestmark = pytest.mark.django_db

FILES = Path(__file__).parent / "files"
EXPORT = FILES / "label-studio-export.json"


def run(*args):
    out, err = StringIO(), StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_import_prints_what_it_made_and_what_it_left_out():
    out, _ = run("import_annotations", str(EXPORT), "--format", "label-studio", "--slug", "cmd")
    assert out.splitlines()[0] == "imported cmd: 2 documents, 2 segments, 5 assignments, 9 annotations"
    assert (
        "note: label-studio-export.json:2: task 101, annotation 3: cancelled (was_cancelled), not imported"
        in out
    )


def test_a_bad_file_exits_non_zero_with_file_line_item_problems_and_writes_nothing(tmp_path):
    tasks = json.loads(EXPORT.read_text(encoding="utf-8"))
    tasks[1]["annotations"][1]["result"][0]["value"]["labels"] = []
    tasks[0]["annotations"][0]["completed_by"] = None
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(tasks, indent=2, ensure_ascii=False), encoding="utf-8")
    err = StringIO()
    with pytest.raises(CommandError, match=r"2 problem\(s\); nothing was imported"):
        call_command("import_annotations", str(path), "--format", "label-studio", "--slug", "bad", stderr=err)
    assert err.getvalue().splitlines() == [
        "bad.json:2: task 101, annotation 1: completed_by must be a user id or an object with its id",
        "bad.json:265: task 102, annotation 5, region e1: value.labels must name exactly one label, not []",
    ]
    assert not Study.objects.exists()


def test_an_existing_slug_is_a_problem():
    run("import_annotations", str(EXPORT), "--format", "label-studio", "--slug", "twice")
    err = StringIO()
    with pytest.raises(CommandError):
        call_command(
            "import_annotations", str(EXPORT), "--format", "label-studio", "--slug", "twice", stderr=err
        )
    assert err.getvalue().splitlines() == [
        "label-studio-export.json:0: a study with slug 'twice' already exists"
    ]


def test_a_format_whose_module_is_missing_is_a_clear_error(monkeypatch):
    from interop.formats import registry

    monkeypatch.setitem(registry.FORMATS, "potato", "interop.formats.not_written_yet")
    with pytest.raises(CommandError, match="format 'potato' is not available in this installation"):
        run("import_annotations", str(EXPORT), "--format", "potato", "--slug", "p")
    with pytest.raises(CommandError, match="format 'hf' is written only; it cannot be imported"):
        run("import_annotations", str(EXPORT), "--format", "hf", "--slug", "p")


def test_export_writes_the_file_and_refuses_unknown_studies(tmp_path):
    run("import_annotations", str(EXPORT), "--format", "label-studio", "--slug", "out")
    out, _ = run("export_annotations", "out", "--format", "label-studio", str(tmp_path / "out.json"))
    assert (
        out.strip() == f"exported out as label-studio to {tmp_path / 'out.json'}: 2 documents, 5 annotations"
    )
    assert [task["id"] for task in json.loads((tmp_path / "out.json").read_text())] == [101, 102]
    with pytest.raises(CommandError, match="no study with slug 'nope'"):
        run("export_annotations", "nope", "--format", "label-studio", str(tmp_path / "x.json"))


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (b'[{"id": 1, "data": {"text": "A"}},\n  {"id": 2, "data": ', "broken.json:2: not JSON we accept"),
        (b'{"id": 1, "data": {"text": "A"}}', "broken.json:1: must be a JSON array of tasks"),
        (b"\xff\xfe[]", "broken.json:0: not UTF-8 text"),
        (b"[]", "broken.json:0: no tasks in the file"),
    ],
    ids=["not-json", "not-an-array", "not-utf8", "empty"],
)
def test_a_file_that_is_no_export_is_one_problem(tmp_path, content, problem):
    path = tmp_path / "broken.json"
    path.write_bytes(content)
    err = StringIO()
    with pytest.raises(CommandError):
        call_command("import_annotations", str(path), "--format", "label-studio", "--slug", "x", stderr=err)
    assert err.getvalue().startswith(problem)
    assert not Study.objects.exists()
