"""A Label Studio export read twice, a task at a time (interop/formats/label_studio/reading.py):
what is wrong late in a large file is still named by its line and task, and nothing is imported."""

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from bundles.problems import Problem, Problems
from interop import reading
from interop.formats import label_studio
from interop.importing import write_corpus_bundle
from interop.services import study_export_annotations, study_import_annotations
from studies.models import Study

pytestmark = pytest.mark.django_db

TASKS = 300
TEXT = "Mara watched the ship. Jonas counted 🚢 crates at dawn."


def region(number, user, start, end, label="CharE", text=None):
    return {"id": f"t{number}u{user}r{start}", "from_name": "label", "to_name": "text", "type": "labels",
            "value": {"start": start, "end": end, "text": TEXT[start:end] if text is None else text,
                      "labels": [label]}}  # fmt: skip


def task(number):
    return {"id": number, "data": {"text": TEXT}, "annotations": [
        {"id": number * 10 + user, "completed_by": user, "lead_time": 30,
         "result": [region(number, user, 0, 4), region(number, user, 23, 28, "GramE")]}
        for user in (11, 12)
    ]}  # fmt: skip


def export(path, tasks):
    """The tasks a line each, as an indented export puts each task on lines of its own."""
    path.write_text("[\n" + ",\n".join(json.dumps(item, ensure_ascii=False) for item in tasks) + "\n]\n")
    return path


def problems_of(path, *options):
    err = StringIO()
    with pytest.raises(CommandError, match="nothing was imported"):
        call_command("import_annotations", str(path), "--format", "label-studio", "--slug", "large", *options,
                     stderr=err)  # fmt: skip
    assert not Study.objects.exists()
    return err.getvalue().splitlines()


@pytest.fixture(autouse=True)
def small_reads(monkeypatch):
    """Read buffers of 4 KB: the file is read in some 40 pieces, its tasks cut across them."""
    monkeypatch.setattr(reading, "CHUNK", 4096)


def test_a_span_wrong_in_the_last_task_is_named_by_its_line_and_nothing_is_imported(tmp_path):
    tasks = [task(number) for number in range(1, TASKS + 1)]
    tasks[-1]["annotations"][1]["result"][0] = region(TASKS, 12, 0, 4, text="Jona")
    path = export(tmp_path / "export.json", tasks)

    assert problems_of(path) == [
        f"export.json:{TASKS + 1}: task {TASKS}, annotation {TASKS * 10 + 12}, region t{TASKS}u12r0: value.text "
        "'Jona' is not the text at [0, 4) counted in code points ('Mara') nor in UTF-16 code units ('Mara')",
    ]


def test_a_span_across_segments_in_the_last_task_is_named_when_its_bundle_lines_are_written(tmp_path):
    tasks = [task(number) for number in range(1, TASKS + 1)]
    tasks[-1]["annotations"][0]["result"].append(region(TASKS, 11, 17, 29))
    path = export(tmp_path / "export.json", tasks)

    assert problems_of(path, "--sentences-per-segment", "1") == [
        f"export.json:{TASKS + 1}: task {TASKS}, annotation {TASKS * 10 + 11}, region t{TASKS}u11r17: CharE "
        "[17, 29) crosses the border between segments 0 and 1",
    ]


def test_a_file_cut_short_is_that_problem_alone_though_earlier_tasks_are_wrong_too(tmp_path):
    tasks = [task(number) for number in range(1, TASKS + 1)]
    tasks[1]["annotations"][0]["completed_by"] = None
    text = export(tmp_path / "export.json", tasks).read_text()
    path = tmp_path / "export.json"
    path.write_text(text[: text.rindex('"GramE"')])

    named = problems_of(path)

    assert len(named) == 1
    assert named == [
        f"export.json:{TASKS + 1}: not JSON we accept: invalid JSON: Expecting value (column 825)"
    ]


def test_the_bundles_last_lines_name_the_files_last_task_and_annotation(tmp_path):
    path = export(tmp_path / "export.json", [task(number) for number in range(1, TASKS + 1)])
    problems = Problems()
    parts = label_studio.read_parts(path, "export.json", problems)
    lines = write_corpus_bundle(parts, tmp_path, name="export.json", fmt="label-studio", slug="large",
                                problems=problems)  # fmt: skip
    assert not problems

    document = lines.translate(Problem("documents.jsonl", TASKS, "a problem of its document"))
    annotation = lines.translate(Problem("assignments.jsonl", 2 * TASKS, "a problem of its assignment"))

    assert str(document) == f"export.json:{TASKS + 1}: task {TASKS}: a problem of its document"
    assert str(annotation) == (
        f"export.json:{TASKS + 1}: task {TASKS}, annotation {TASKS * 10 + 12}: a problem of its assignment"
    )
    assert (tmp_path / "assignments.jsonl").read_text().count("\n") == 2 * TASKS


def test_reads_cut_anywhere_import_the_same_study_as_one_read(tmp_path, monkeypatch):
    path = export(tmp_path / "export.json", [task(number) for number in range(1, 41)])
    study_import_annotations(path=path, fmt="label-studio", slug="pieces")
    monkeypatch.setattr(reading, "CHUNK", 1 << 20)
    study_import_annotations(path=path, fmt="label-studio", slug="whole")

    exported = []
    for slug in ("pieces", "whole"):
        study_export_annotations(study=Study.objects.get(slug=slug), fmt="label-studio", path=tmp_path / slug)
        exported.append((tmp_path / slug).read_bytes())

    assert exported[0] == exported[1]
    assert len(json.loads(exported[0])) == 40
