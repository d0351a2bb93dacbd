"""A person's repeated annotation of one item (Label Studio lets a user annotate a task twice) is
imported, never refused: by default the later one is a retest of the same worker (docs/interop.md,
"Repeated annotations")."""

import json
from io import StringIO

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.urls import reverse

from annotations.models import Assignment
from interop.services import study_export_annotations
from protocols.review.models import ReviewItem
from protocols.span.models import ErrorAnnotation
from studies.models import Study

pytestmark = pytest.mark.django_db

TEXT = "Anna met Ben at the mill. Rosalie waved."


def region(region_id, start, end, label="CharE"):
    return {"id": region_id, "from_name": "label", "to_name": "text", "type": "labels",
            "value": {"start": start, "end": end, "text": TEXT[start:end], "labels": [label]}}  # fmt: skip


def annotation(annotation_id, user, *regions):
    return {"id": annotation_id, "completed_by": user, "result": list(regions), "was_cancelled": False,
            "ground_truth": False, "lead_time": 12.0}  # fmt: skip


def one_line_export(path, *annotations, predictions=()):
    """A Label Studio JSON export as Label Studio writes it: the whole array on one line."""
    tasks = [
        {"id": 17, "data": {"text": TEXT}, "annotations": list(annotations), "predictions": list(predictions)}
    ]
    path.write_text(json.dumps(tasks, ensure_ascii=False), encoding="utf-8")
    assert len(path.read_text(encoding="utf-8").splitlines()) == 1
    return path


def run(*args):
    out, err = StringIO(), StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def work_of(slug, worker):
    """{kind: [span texts of each assignment, in the order they were stored]} of one worker."""
    found = {}
    for assignment in Assignment.objects.filter(study__slug=slug, worker__external_id=worker).order_by("pk"):
        spans = ErrorAnnotation.objects.filter(assignment=assignment).select_related("segment")
        found.setdefault(assignment.kind, []).append(sorted(s.segment.text[s.start : s.end] for s in spans))
    return found


ROSALIE, ANNA, BEN = region("a1b2", 26, 33), region("c3d4", 0, 4), region("e5f6", 9, 12)


def test_a_users_second_annotation_of_a_task_is_imported_as_their_retest(tmp_path):
    path = one_line_export(tmp_path / "export.json", annotation(45, 11, ROSALIE), annotation(46, 11, ANNA),
                           annotation(47, 12))  # fmt: skip
    out, _ = run("import_annotations", str(path), "--format", "label-studio", "--slug", "repeats")
    assert out.splitlines()[0] == "imported repeats: 1 documents, 1 segments, 3 assignments, 2 annotations"
    assert work_of("repeats", "11") == {"main": [["Rosalie"]], "retest": [["Anna"]]}
    assert work_of("repeats", "12") == {"main": [[]]}
    assert (
        "note: export.json: task 17, annotation 46: annotation 2 of task 17 by annotator '11', imported as a "
        "retest (repeats=retest); their main one is task 17, annotation 45"
    ) in out.splitlines()
    # Two people annotated the task: the study asks for two annotators, not three.
    assert Study.objects.get(slug="repeats").annotators_per_document == 2


def test_repeats_latest_keeps_the_latest_as_the_main_annotation_and_the_earlier_as_retests(tmp_path):
    path = one_line_export(tmp_path / "export.json", annotation(45, 11, ROSALIE), annotation(46, 11, ANNA),
                           annotation(48, 11, BEN))  # fmt: skip
    out, _ = run("import_annotations", str(path), "--format", "label-studio", "--slug", "latest",
                 "--option", "repeats=latest")  # fmt: skip
    assert work_of("latest", "11") == {"main": [["Ben"]], "retest": [["Rosalie"], ["Anna"]]}
    assert (
        "annotation 45: annotation 1 of task 17 by annotator '11', imported as a retest (repeats=latest)"
        in out
    )


def test_three_annotations_of_one_user_are_a_main_one_and_two_retests(tmp_path):
    path = one_line_export(tmp_path / "export.json", annotation(45, 11, ROSALIE), annotation(46, 11, ANNA),
                           annotation(48, 11, BEN))  # fmt: skip
    run("import_annotations", str(path), "--format", "label-studio", "--slug", "three")
    assert work_of("three", "11") == {"main": [["Rosalie"]], "retest": [["Anna"], ["Ben"]]}


def test_an_unknown_repeats_value_is_a_problem_and_nothing_is_written(tmp_path):
    path = one_line_export(tmp_path / "export.json", annotation(45, 11, ROSALIE))
    err = StringIO()
    with pytest.raises(CommandError, match="1 problem"):
        call_command("import_annotations", str(path), "--format", "label-studio", "--slug", "x",
                     "--option", "repeats=first", stderr=err)  # fmt: skip
    assert err.getvalue().splitlines()[0] == (
        "export.json:0: repeats 'first': say retest (the default: a person's later annotations of an item are "
        "their retests) or latest (the latest is their main annotation, the earlier ones retests)"
    )
    assert not Study.objects.exists()


def test_admin_imports_the_export_with_the_repeated_annotation(client, researcher, tmp_path):
    path = one_line_export(tmp_path / "export.json", annotation(45, 11, ROSALIE), annotation(46, 11, ANNA))
    client.force_login(researcher)
    response = client.post(
        reverse("admin:studies_study_import_annotations"),
        {"file": SimpleUploadedFile("project-9.json", path.read_bytes()), "format": "label-studio",
         "slug": "uploaded"},
    )  # fmt: skip
    assert response.status_code == 302
    assert work_of("uploaded", "11") == {"main": [["Rosalie"]], "retest": [["Anna"]]}
    page = client.get(response["Location"]).content.decode()
    assert (
        "task 17, annotation 46: annotation 2 of task 17 by annotator &#x27;11&#x27;, imported as a retest"
        in page
    )


def test_export_writes_the_repeated_annotation_back_after_the_main_one(tmp_path):
    path = one_line_export(tmp_path / "export.json", annotation(45, 11, ROSALIE), annotation(46, 11, ANNA),
                           annotation(47, 12, BEN))  # fmt: skip
    run("import_annotations", str(path), "--format", "label-studio", "--slug", "back")
    study_export_annotations(
        study=Study.objects.get(slug="back"), fmt="label-studio", path=tmp_path / "back.json"
    )
    [task] = json.loads((tmp_path / "back.json").read_text(encoding="utf-8"))
    written = [(a["completed_by"], [r["value"]["text"] for r in a["result"]]) for a in task["annotations"]]
    assert written == [(11, ["Rosalie"]), (11, ["Anna"]), (12, ["Ben"])]
    # Imported again, the file gives the same main and retest assignments.
    run("import_annotations", str(tmp_path / "back.json"), "--format", "label-studio", "--slug", "again")
    assert work_of("again", "11") == work_of("back", "11") == {"main": [["Rosalie"]], "retest": [["Anna"]]}


def test_doccano_potato_and_factgenie_keep_a_repeated_annotation_as_a_retest(tmp_path):
    doccano = tmp_path / "alice.jsonl"
    doccano.write_text(
        json.dumps({"id": 4, "text": TEXT, "label": [[26, 33, "CharE"]]}) + "\n"
        + json.dumps({"id": 4, "text": TEXT, "label": [[0, 4, "CharE"]]}) + "\n",
        encoding="utf-8",
    )  # fmt: skip
    potato = tmp_path / "bob.jsonl"
    potato.write_text(
        json.dumps({"id": "a", "displayed_text": TEXT,
                    "span_annotations": [{"start": 26, "end": 33, "span": "Rosalie", "annotation": "CharE"}]}) + "\n"
        + json.dumps({"id": "a", "displayed_text": TEXT,
                      "span_annotations": [{"start": 0, "end": 4, "span": "Anna", "annotation": "CharE"}]}) + "\n",
        encoding="utf-8",
    )  # fmt: skip
    factgenie = tmp_path / "records.jsonl"
    record = {"dataset": "d", "split": "s", "setup_id": "m", "example_idx": 0, "output": TEXT,
              "metadata": {"annotator_id": "carol"}}  # fmt: skip
    factgenie.write_text(
        json.dumps({**record, "annotations": [{"text": "Rosalie", "start": 26, "type": 0}]}) + "\n"
        + json.dumps({**record, "annotations": [{"text": "Anna", "start": 0, "type": 0}]}) + "\n",
        encoding="utf-8",
    )  # fmt: skip
    for path, fmt, person in ((doccano, "doccano", "alice"), (potato, "potato", "bob"),
                              (factgenie, "factgenie", "carol")):  # fmt: skip
        out, _ = run("import_annotations", str(path), "--format", fmt, "--slug", fmt)
        assert work_of(fmt, person) == {"main": [["Rosalie"]], "retest": [["Anna"]]}, fmt
        assert f"{path.name}:2: " in out and "imported as a retest (repeats=retest)" in out, fmt


def test_a_models_repeated_prediction_is_kept_as_its_retest_and_both_are_reviewed(tmp_path):
    prediction = lambda *regions: {"model_version": "ner-v2", "result": list(regions)}  # noqa: E731
    path = one_line_export(tmp_path / "export.json", annotation(45, 11, ROSALIE),
                           predictions=[prediction(ROSALIE), prediction(ANNA)])  # fmt: skip
    run("import_annotations", str(path), "--format", "label-studio", "--slug", "spans")
    assert work_of("spans", "ner-v2") == {"model": [["Rosalie"]], "retest": [["Anna"]]}
    out, _ = run(
        "import_annotations", str(path), "--format", "label-studio", "--slug", "judge", "--into", "review"
    )
    items = ReviewItem.objects.filter(document__study__slug="judge").order_by("position")
    assert [(item.evaluator, item.span_text) for item in items] == [("ner-v2", "Rosalie"), ("ner-v2", "Anna")]
    assert "evaluator 'ner-v2' annotated task 17 more than once: the regions of each are review items" in out


def test_the_report_counts_the_main_annotations_and_leaves_the_retests_out(tmp_path):
    path = one_line_export(tmp_path / "export.json", annotation(45, 11, ROSALIE), annotation(46, 11, ANNA),
                           annotation(47, 12, ROSALIE),
                           predictions=[{"model_version": "ner-v2", "result": [ROSALIE]},
                                        {"model_version": "ner-v2", "result": [ANNA]}])  # fmt: skip
    run("import_annotations", str(path), "--format", "label-studio", "--slug", "reported")
    run("study_report", "reported", "--output", str(tmp_path / "report.json"))
    report = json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    # Two people marked Rosalie in their main annotations; 11's retest (Anna) is no third annotator.
    assert report["categories"]["CharE"]["spans"] == 2
    assert report["categories"]["CharE"]["two_agree_pct"] == 100.0
