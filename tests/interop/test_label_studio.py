"""Label Studio exports in and out: offsets in both conventions, relations, annotators, predictions."""

import json
from pathlib import Path

import pytest

from annotations.models import Assignment
from bundles import BundleInvalid
from interop.services import study_export_annotations, study_import_annotations
from protocols.span.models import ErrorAnnotation
from studies.models import Study

pytestmark = pytest.mark.django_db

FILES = Path(__file__).parent / "files"
EXPORT = FILES / "label-studio-export.json"  # current Label Studio: code points
UTF16 = FILES / "label-studio-utf16.json"  # older Label Studio: UTF-16 code units


def spans_of(slug):
    """(document, annotator, kind, category, span text, paired text) of every stored span."""
    rows = ErrorAnnotation.objects.filter(assignment__study__slug=slug).select_related(
        "assignment__document", "assignment__worker", "category", "segment"
    )
    return sorted(
        (row.assignment.document.external_id, row.assignment.worker.external_id, row.assignment.kind,
         row.category.key, row.segment.text[row.start : row.end], row.paired_text)
        for row in rows
    )  # fmt: skip


def test_a_current_export_imports_its_texts_annotators_spans_links_and_predictions():
    done = study_import_annotations(path=EXPORT, fmt="label-studio", slug="ls")
    study = Study.objects.get(slug="ls")
    assert done.result.documents == 2
    categories = {c.key: (c.label, c.kind) for c in study.taxonomy.categories.all()}
    assert categories == {
        "InconE": ("InconE", "paired"), "CharE": ("CharE", "singleton"),
        "Named_Entity": ("Named Entity", "singleton"),
    }  # fmt: skip
    assert spans_of("ls") == [
        ("101", "7", "main", "CharE", "Rosalie", ""),
        ("101", "7", "main", "InconE", "Anna met Ben again", "Anna met Ben"),
        ("101", "8", "main", "CharE", "Rosalie", ""),
        ("101", "8", "main", "InconE", "Anna", "Anna"),
        ("101", "8", "main", "Named_Entity", "café", ""),
        ("101", "ner-v2", "model", "CharE", "Rosalie", ""),
        ("102", "8", "main", "CharE", "fini", ""),
        ("102", "8", "main", "CharE", "明日は雨", ""),
        ("102", "8", "main", "Named_Entity", "Cafe\u0301", ""),
    ]
    # The empty annotation is "found nothing"; the cancelled one is left out, and said so.
    found_nothing = Assignment.objects.get(study=study, document__external_id="102", worker__external_id="7")
    assert (
        found_nothing.status == Assignment.Status.SUBMITTED
        and not ErrorAnnotation.objects.filter(assignment=found_nothing).exists()
    )
    assert not Assignment.objects.filter(study=study, worker__external_id="9").exists()
    assert any("annotation 3: cancelled" in note for note in done.notes)
    # The model is one of the study's evaluators (imported), whose annotations its predictions are.
    assert list(study.evaluators.values_list("key", "kind")) == [("ner-v2", "import")]
    assert any("'choices' not imported" in note for note in done.notes)


def test_an_older_export_counting_utf16_units_imports_the_same_spans():
    study_import_annotations(path=EXPORT, fmt="label-studio", slug="new-style")
    done = study_import_annotations(path=UTF16, fmt="label-studio", slug="old-style")
    assert spans_of("old-style") == spans_of("new-style")
    assert any("UTF-16 code units" in note for note in done.notes)


def write_tasks(path, tasks):
    path.write_text(json.dumps(tasks, ensure_ascii=False, indent=2), encoding="utf-8")
    return path


def test_a_span_matching_neither_convention_is_named_by_task_annotation_and_region_and_nothing_is_written(
    tmp_path,
):
    tasks = json.loads(EXPORT.read_text(encoding="utf-8"))
    region = tasks[0]["annotations"][1]["result"][0]  # b1, "Rosalie"
    region["value"]["start"] += 3
    region["value"]["end"] += 3
    with pytest.raises(BundleInvalid) as raised:
        study_import_annotations(
            path=write_tasks(tmp_path / "bad.json", tasks), fmt="label-studio", slug="bad"
        )
    assert [str(p) for p in raised.value.problems] == [
        "bad.json:2: task 101, annotation 2, region b1: value.text 'Rosalie' is not the text at [51, 58) "
        "counted in code points ('alie la') nor in UTF-16 code units ('salie l')"
    ]
    assert not Study.objects.filter(slug="bad").exists()
    assert not Assignment.objects.exists()


def test_two_text_fields_are_told_apart_by_the_spans_or_named():
    tasks = json.loads(EXPORT.read_text(encoding="utf-8"))
    for task in tasks:
        task["annotations"], task["predictions"] = [], []
    path = write_tasks(Path(FILES.parent / "tmp-two-fields.json"), tasks)
    try:
        with pytest.raises(BundleInvalid) as raised:
            study_import_annotations(path=path, fmt="label-studio", slug="two")
        assert "data has 2 fields that are text in every task (text, source_id)" in str(raised.value)
        study_import_annotations(
            path=path,
            fmt="label-studio",
            slug="two",
            options={"text_field": "text"},
            settings_path=FILES / "study.yaml",
        )  # no span, so no label: categories given
    finally:
        path.unlink()
    assert Study.objects.get(slug="two").documents.count() == 2


def exported(path):
    """What an export says, as sets: texts, and per task the annotators' spans and links."""
    tasks = json.loads(Path(path).read_text(encoding="utf-8"))
    view = {}
    for task in tasks:
        text = task["data"]["text"]
        people = {}
        for kind in ("annotations", "predictions"):
            for annotation in task[kind]:
                if annotation.get("was_cancelled"):
                    continue
                who = annotation.get("model_version") or annotation["completed_by"]
                who = who["id"] if isinstance(who, dict) else who
                regions = {
                    r["id"]: (
                        r["value"]["start"],
                        r["value"]["end"],
                        r["value"]["text"],
                        r["value"]["labels"][0],
                    )
                    for r in annotation["result"]
                    if r["type"] == "labels"
                }
                assert all(text[s:e] == t for s, e, t, _ in regions.values())
                links = {
                    (regions[r["from_id"]], regions[r["to_id"]], tuple(r["labels"]), r["direction"])
                    for r in annotation["result"]
                    if r["type"] == "relation"
                }
                people[(kind, str(who))] = (set(regions.values()), links)
        view[task["id"]] = (text, task["data"], people)
    return view


def test_an_imported_export_round_trips_to_an_equivalent_file_and_the_same_study(tmp_path):
    study_import_annotations(path=EXPORT, fmt="label-studio", slug="first")
    out = tmp_path / "export.json"
    study_export_annotations(study=Study.objects.get(slug="first"), fmt="label-studio", path=out)
    assert exported(out) == exported(EXPORT)
    study_import_annotations(path=out, fmt="label-studio", slug="second")
    assert spans_of("second") == spans_of("first")
    again = tmp_path / "again.json"
    study_export_annotations(study=Study.objects.get(slug="second"), fmt="label-studio", path=again)
    assert again.read_text(encoding="utf-8") == out.read_text(encoding="utf-8")


def test_the_export_for_analysts_names_people_by_pseudonym(tmp_path):
    study_import_annotations(path=EXPORT, fmt="label-studio", slug="anon")
    out = tmp_path / "export.json"
    study_export_annotations(
        study=Study.objects.get(slug="anon"), fmt="label-studio", path=out, identities=False
    )
    annotators = {a["completed_by"] for task in json.loads(out.read_text()) for a in task["annotations"]}
    assert len(annotators) == 2 and not annotators & {7, 8, "7", "8"}
    assert all(str(who).startswith("A") for who in annotators)
    predictions = {p["model_version"] for task in json.loads(out.read_text()) for p in task["predictions"]}
    assert predictions == {"ner-v2"}


def test_a_given_taxonomy_names_categories_by_key_or_label_and_exports_by_what_matched(tmp_path):
    study_import_annotations(
        path=EXPORT, fmt="label-studio", slug="given", settings_path=FILES / "study.yaml"
    )
    study = Study.objects.get(slug="given")
    assert (study.title, study.annotators_per_document, study.taxonomy.slug) == (
        "Coherence of short stories",
        2,
        "story-errors",
    )
    assert ("102", "8", "main", "NamedEnt", "Cafe\u0301", "") in spans_of("given")
    out = tmp_path / "export.json"
    study_export_annotations(study=study, fmt="label-studio", path=out)
    labels = {r["value"]["labels"][0] for t in json.loads(out.read_text()) for a in t["annotations"]
              for r in a["result"] if r["type"] == "labels"}  # fmt: skip
    # A hand-made taxonomy's spans are named by key: "Named Entity" matched NamedEnt's label.
    assert labels == {"CharE", "InconE", "NamedEnt"}


def test_a_label_the_given_taxonomy_lacks_is_a_problem(tmp_path):
    settings = (FILES / "study.yaml").read_text().replace("label: Named Entity", "label: Proper name")
    (tmp_path / "study.yaml").write_text(settings)
    with pytest.raises(BundleInvalid) as raised:
        study_import_annotations(
            path=EXPORT, fmt="label-studio", slug="lacks", settings_path=tmp_path / "study.yaml"
        )
    assert [str(p) for p in raised.value.problems] == [
        "study.yaml:7: the file's label 'Named Entity' is neither the key nor the label of a category "
        "(the taxonomy has CharE, InconE, NamedEnt)"
    ]
    assert not Study.objects.exists()


def one_task(results, **annotation):
    text = "Anna met Ben. Anna met Ben again. Ben left."

    def region(rid, needle, label, nth=0):  # fmt: skip
        start = -1
        for _ in range(nth + 1):
            start = text.index(needle, start + 1)
        return {"id": rid, "type": "labels", "from_name": "label", "to_name": "text",
                "value": {"start": start, "end": start + len(needle), "text": needle, "labels": [label]}}  # fmt: skip

    return [{"id": 1, "data": {"text": text}, "annotations": [
        {"id": 9, "completed_by": 3, "result": [r if "type" in r else region(**r) for r in results], **annotation}
    ]}]  # fmt: skip


def span(rid, needle, label, nth=0):
    return {"rid": rid, "needle": needle, "label": label, "nth": nth}


def relation(a, b):
    return {"type": "relation", "from_id": a, "to_id": b, "direction": "right", "labels": []}


def test_a_link_naming_no_region_is_a_problem(tmp_path):
    results = [span(rid="a", needle="Ben", label="RepE"), relation("a", "zz")]
    path = write_tasks(tmp_path / "links.json", one_task(results))
    with pytest.raises(BundleInvalid) as raised:
        study_import_annotations(path=path, fmt="label-studio", slug="links")
    assert [p.message for p in raised.value.problems] == [
        "task 1, annotation 9: link a -> zz names no region 'zz'"
    ]
    assert not Study.objects.exists()


def test_a_ground_truth_annotation_is_gold_and_stays_ground_truth(tmp_path):
    results = [span(rid="a", needle="Ben left", label="CharE")]
    path = write_tasks(tmp_path / "gold.json", one_task(results, ground_truth=True))
    study_import_annotations(path=path, fmt="label-studio", slug="gold")
    assert Assignment.objects.get(study__slug="gold").kind == Assignment.Kind.GOLD
    out = tmp_path / "out.json"
    study_export_annotations(study=Study.objects.get(slug="gold"), fmt="label-studio", path=out)
    assert json.loads(out.read_text())[0]["annotations"][0]["ground_truth"] is True


def test_a_study_made_on_the_platform_exports_its_segments_joined_and_its_pairs_as_relations(tmp_path):
    from django.utils import timezone

    from tests.factories import AssignmentFactory, ErrorAnnotationFactory, make_span_study

    study = make_span_study(documents=1, segments=2, slug="made-here")
    document = study.documents.get()
    first, second = document.segments.order_by("index")
    assignment = AssignmentFactory(
        document=document, status=Assignment.Status.SUBMITTED, submitted_at=timezone.now()
    )
    repetition = study.taxonomy.categories.get(key="RepE")
    at = second.text.index("Anna met Ben")
    ErrorAnnotationFactory(
        assignment=assignment, segment=second, category=repetition, start=at, end=at + 12, text="Anna met Ben",
        paired_segment=first, paired_start=at, paired_end=at + 12, paired_text="Anna met Ben",
    )  # fmt: skip
    out = tmp_path / "out.json"
    study_export_annotations(study=Study.objects.get(pk=study.pk), fmt="label-studio", path=out)
    (task,) = json.loads(out.read_text())
    assert task["id"] == 1
    assert task["data"] == {"text": f"{first.text}\n\n{second.text}"}
    (annotation,) = task["annotations"]
    regions = {r["id"]: r["value"] for r in annotation["result"] if r["type"] == "labels"}
    (link,) = [r for r in annotation["result"] if r["type"] == "relation"]
    later, earlier = regions[link["from_id"]], regions[link["to_id"]]
    text = task["data"]["text"]
    assert text[later["start"] : later["end"]] == later["text"] == "Anna met Ben"
    assert later["start"] > earlier["start"] and later["labels"] == ["RepE"]
    assert (link["direction"], link["labels"]) == ("right", [])


def test_only_span_studies_export_as_spans(tmp_path):
    from django.core.management import CommandError, call_command

    from tests.factories import StudyFactory

    StudyFactory(slug="ratings", protocol="likert")
    with pytest.raises(CommandError, match="'ratings' is a likert study; only span studies"):
        call_command("export_annotations", "ratings", "--format", "label-studio", str(tmp_path / "x.json"))


def test_a_region_without_text_beyond_the_task_text_is_a_problem(tmp_path):
    tasks = one_task([span(rid="a", needle="Ben left", label="CharE")])
    value = tasks[0]["annotations"][0]["result"][0]["value"]
    del value["text"]
    value["end"] = 99
    with pytest.raises(BundleInvalid) as raised:
        study_import_annotations(
            path=write_tasks(tmp_path / "far.json", tasks), fmt="label-studio", slug="far"
        )
    assert [p.message for p in raised.value.problems] == [
        "task 1, annotation 9, region a: [34, 99) is outside the task's text (43 characters)"
    ]


def test_qualification_rounds_stay_on_the_platform(tmp_path):
    # A retest is written, as the annotator's repeated annotation (tests/interop/test_repeats.py).
    from django.utils import timezone

    study_import_annotations(path=EXPORT, fmt="label-studio", slug="rounds")
    main = Assignment.objects.get(study__slug="rounds", document__external_id="101", worker__external_id="7")
    Assignment.objects.create(
        study=main.study, document=main.document, worker=main.worker, kind=Assignment.Kind.QUALIFICATION,
        status=Assignment.Status.SUBMITTED, submitted_at=timezone.now(),
    )  # fmt: skip
    out = tmp_path / "out.json"
    study_export_annotations(study=Study.objects.get(slug="rounds"), fmt="label-studio", path=out)
    assert exported(out) == exported(EXPORT)


def test_a_model_named_unlike_an_evaluator_key_keeps_its_predictions_and_says_so(tmp_path):
    tasks = json.loads(EXPORT.read_text(encoding="utf-8"))
    for task in tasks:
        for prediction in task["predictions"]:
            prediction["model_version"] = "org/ner v2"
    done = study_import_annotations(
        path=write_tasks(tmp_path / "odd.json", tasks), fmt="label-studio", slug="odd"
    )
    study = Study.objects.get(slug="odd")
    assert not study.evaluators.exists()
    assert Assignment.objects.filter(study=study, kind="model", worker__external_id="org/ner v2").exists()
    assert any("the model 'org/ner v2' is no evaluator key" in note for note in done.notes)
