"""Importing study bundles: what a researcher sees for good and for bad input."""

import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from annotations.models import Assignment
from bundles import BundleInvalid
from bundles.services import study_import_bundle
from protocols.span.models import ErrorAnnotation
from studies.models import Category, Document, Segment, Study, Taxonomy
from tests.bundles import DOCUMENTS, annotation, study_yaml, write_bundle

pytestmark = pytest.mark.django_db

GOOD_ASSIGNMENTS = [
    {"document": "d1", "annotator": "w1", "block": "1", "annotations": [
        annotation(1, "CharE", 0, 13, "Miss Sessions"),
        annotation(1, "RepE", 23, 41, "Anna met Ben again",
                   paired={"segment": 0, "start": 0, "end": 12, "text": "Anna met Ben"}),
    ]},
    {"document": "d1", "annotator": "w2", "annotations": []},
]  # fmt: skip


def problems_of(directory, **kwargs):
    with pytest.raises(BundleInvalid) as caught:
        study_import_bundle(directory=directory, **kwargs)
    return [str(problem) for problem in caught.value.problems], caught.value


def assert_nothing_written():
    assert Study.objects.count() == 0
    assert Document.objects.count() == 0
    assert Segment.objects.count() == 0
    assert Assignment.objects.count() == 0
    assert Taxonomy.objects.count() == 0


def test_good_bundle_imports_study_documents_segments_and_annotations(tmp_path):
    result = study_import_bundle(directory=write_bundle(tmp_path, assignments=GOOD_ASSIGNMENTS))

    study = Study.objects.get(slug="bundle-study")
    assert result.study == study
    assert study.taxonomy.categories.count() == 4
    assert Category.objects.get(key="RepE").kind == "paired"
    assert list(study.documents.values_list("external_id", flat=True)) == ["d1", "d2"]
    first = Segment.objects.get(document__external_id="d1", index=0)
    assert first.text == "Anna met Ben at the mill. It rained."
    assert [first.text[s:e] for s, e in first.sentences] == ["Anna met Ben at the mill.", "It rained."]
    repetition = ErrorAnnotation.objects.get(category__key="RepE")
    assert (repetition.segment.index, repetition.start, repetition.end) == (1, 23, 41)
    assert (repetition.paired_segment.index, repetition.paired_text) == (0, "Anna met Ben")
    found_nothing = Assignment.objects.get(worker__external_id="w2")
    assert found_nothing.status == Assignment.Status.SUBMITTED
    assert found_nothing.annotations.count() == 0
    assert result.annotations == 2


def test_offsets_are_code_points_with_emoji_markup_and_spaces(tmp_path):
    # d2 segment 0: "Tom & Jerry <b>ran</b> home 😀 quickly."
    assignments = [{"document": "d2", "annotator": "w1", "annotations": [
        annotation(0, "CharE", 12, 22, "<b>ran</b>"),
        annotation(0, "CharE", 28, 37, "😀 quickly"),
        annotation(1, "CharE", 6, 16, "they   sle"),
    ]}]  # fmt: skip
    study_import_bundle(directory=write_bundle(tmp_path, assignments=assignments))
    texts = [(a.segment.text[a.start : a.end], a.text) for a in ErrorAnnotation.objects.all()]
    assert sorted(texts) == sorted([("<b>ran</b>",) * 2, ("😀 quickly",) * 2, ("they   sle",) * 2])


@pytest.mark.parametrize(
    ("documents", "expected"),
    [
        ([{"id": "a", "segments": ["x."]}, {"id": "a", "segments": ["y."]}],
         "documents.jsonl:2: duplicate document id 'a' (first on line 1)"),
        ([{"id": "a", "segments": ["x.", "   "]}], "documents.jsonl:1: document 'a': segment 1 is empty"),
        ([{"id": "a", "segments": []}], "documents.jsonl:1: document 'a': 'segments' must be a non-empty list"),
        ([{"segments": ["x."]}], "documents.jsonl:1: document 'id' is required"),
        ([{"id": "a", "segments": ["x."], "kind": "weird"}], "documents.jsonl:1: document 'a': kind must be one of"),
        ([{"id": "a", "segments": ["x."], "sentences": [[[0, 9]]]}], "documents.jsonl:1: document 'a': sentence [0, 9]"),
        ([{"id": "a", "segmnts": ["x."]}], "documents.jsonl:1: unknown field 'segmnts'"),
    ],
)  # fmt: skip
def test_document_problems_name_file_and_line(tmp_path, documents, expected):
    problems, _ = problems_of(write_bundle(tmp_path, documents=documents))
    assert any(p.startswith(expected) for p in problems), problems
    assert_nothing_written()


def test_invalid_json_line_is_reported_with_its_line(tmp_path):
    raw = json.dumps({"id": "a", "segments": ["x."]}) + "\n\n{not json}\n"
    problems, _ = problems_of(write_bundle(tmp_path, raw_documents=raw))
    assert problems[0].startswith("documents.jsonl:3: invalid JSON")
    assert_nothing_written()


@pytest.mark.parametrize(
    ("item", "expected"),
    [
        (annotation(0, "Nope", 0, 4, "Anna"), "unknown category 'Nope'"),
        (annotation(0, "CharE", 30, 99, "x"), "offsets [30, 99) are outside segment 0"),
        (annotation(0, "CharE", 5, 3, "x"), "offsets [5, 3) are outside segment 0"),
        (annotation(0, "CharE", 0, 4, "Bert"), "text 'Bert' does not match the offsets [0, 4), which hold 'Anna'"),
        (annotation(0, "RepE", 0, 4, "Anna"), "paired category RepE needs its paired span"),
        (annotation(0, "CharE", 0, 4, "Anna", paired={"segment": 0, "start": 0, "end": 1}),
         "category CharE is singleton but has a paired span"),
        (annotation(7, "CharE", 0, 4, "Anna"), "segment 7 is not in the document"),
        (annotation(0, "RepE", 0, 4, "Anna", paired={"segment": 1, "start": 0, "end": 4, "text": "Miss"}),
         "the paired span must be earlier"),
        (annotation(1, "RepE", 0, 4, "Miss", paired={"segment": 0, "start": 0, "end": 4, "text": "Bert"}),
         "paired span: text 'Bert' does not match"),
        ({"segment": 0, "category": "CharE", "text": "Anna"}, "no start/end offsets; import with --locate"),
    ],
)  # fmt: skip
def test_annotation_problems_name_file_and_line(tmp_path, item, expected):
    assignments = [{"document": "d1", "annotator": "ok", "annotations": []},
                   {"document": "d1", "annotator": "w1", "annotations": [item]}]  # fmt: skip
    problems, _ = problems_of(write_bundle(tmp_path, assignments=assignments))
    assert len(problems) == 1, problems
    assert problems[0].startswith("assignments.jsonl:2: annotation 1")
    assert expected in problems[0]
    assert_nothing_written()


def test_assignment_for_unknown_document_and_duplicates(tmp_path):
    assignments = [
        {"document": "ghost", "annotator": "w1", "annotations": []},
        {"document": "d1", "annotator": "w1", "annotations": []},
        {"document": "d1", "annotator": "w1", "annotations": []},
    ]
    problems, _ = problems_of(write_bundle(tmp_path, assignments=assignments))
    assert problems == [
        "assignments.jsonl:1: assignment for unknown document 'ghost'",
        "assignments.jsonl:3: annotator 'w1' already has a main assignment for 'd1' (line 2)",
    ]
    assert_nothing_written()


def test_every_problem_is_reported_in_one_run(tmp_path):
    documents = [*DOCUMENTS, {"id": "d1", "segments": ["again."]}, {"id": "d3", "segments": [""]}]
    assignments = [{"document": "d2", "annotator": "w", "annotations": [annotation(0, "Zzz", 0, 1, "T")]}]
    study = study_yaml(protocol="poetry")
    problems, _ = problems_of(
        write_bundle(tmp_path, study=study, documents=documents, assignments=assignments)
    )
    assert len(problems) == 4, problems
    assert problems[0].startswith("study.yaml:1: unknown protocol 'poetry'")


def test_study_yaml_problems_carry_the_category_line(tmp_path):
    study = study_yaml()
    study["taxonomy"] = dict(study["taxonomy"])
    study["taxonomy"]["categories"] = [
        {"key": "A", "label": "a", "shortcut": "x"},
        {"key": "B", "label": "b", "shortcut": "x", "kind": "triple", "color": "red"},
        {"key": "A", "label": "again"},
    ]
    problems, _ = problems_of(write_bundle(tmp_path, study=study))
    text = (tmp_path / "study.yaml").read_text().splitlines()
    b_line = next(i for i, line in enumerate(text, 1) if "key: B" in line)
    expected = {
        f"study.yaml:{b_line}: category B: kind must be singleton or paired, not 'triple'",
        f"study.yaml:{b_line}: category B: colour must be #rrggbb, not 'red'",
        f"study.yaml:{b_line}: shortcut 'x' is already used by A",
    }
    assert expected <= set(problems), problems
    assert any("duplicate category key 'A'" in p for p in problems)


def test_existing_slug_and_changed_taxonomy_are_refused(tmp_path):
    study_import_bundle(directory=write_bundle(tmp_path / "one"))
    problems, _ = problems_of(write_bundle(tmp_path / "two"))
    assert problems == ["study.yaml:1: a study with slug 'bundle-study' already exists"]

    changed = study_yaml(slug="second")
    changed["taxonomy"] = {**changed["taxonomy"], "categories": changed["taxonomy"]["categories"][:2]}
    problems, _ = problems_of(write_bundle(tmp_path / "three", study=changed))
    assert "is already taken" in problems[0] and "choose another slug or version" in problems[0]

    # The same taxonomy again is shared, not duplicated.
    study_import_bundle(directory=write_bundle(tmp_path / "four", study=study_yaml(slug="third")))
    assert Taxonomy.objects.count() == 1


def test_file_too_large_is_refused(tmp_path, settings):
    settings.BUNDLE_MAX_FILE_BYTES = 100
    problems, _ = problems_of(write_bundle(tmp_path))
    assert any(p.startswith("documents.jsonl:0: file too large") for p in problems), problems
    assert Study.objects.count() == 0


def test_locate_finds_first_occurrence_and_counts_misses(tmp_path):
    assignments = [{"document": "d1", "annotator": "w1", "annotations": [
        {"segment": 1, "category": "CharE", "text": "Anna"},
        {"segment": 1, "category": "RepE", "text": "Ben", "paired": {"segment": 0, "text": "Ben"}},
    ]}]  # fmt: skip
    result = study_import_bundle(directory=write_bundle(tmp_path, assignments=assignments), locate=True)
    assert result.located == 3
    anna = ErrorAnnotation.objects.get(category__key="CharE")
    assert (anna.start, anna.end) == (23, 27)
    repetition = ErrorAnnotation.objects.get(category__key="RepE")
    assert (repetition.paired_start, repetition.paired_end) == (9, 12)

    missing = [{"document": "d1", "annotator": "w1", "annotations": [
        {"segment": 0, "category": "CharE", "text": "Zebra"},
        {"segment": 0, "category": "CharE", "text": "mill"},
    ]}]  # fmt: skip
    problems, invalid = problems_of(
        write_bundle(tmp_path / "b", study=study_yaml(slug="other"), assignments=missing), locate=True
    )
    assert problems == ["assignments.jsonl:1: annotation 1 (CharE): span text 'Zebra' not found in segment 0"]
    assert invalid.summary == "--locate: 1 of 2 spans given only as text were not found"


def test_falte_json_paragraphs_and_sentences(tmp_path):
    directory = write_bundle(tmp_path, study=study_yaml(config={"sentences_per_segment": 2}))
    (directory / "documents.jsonl").unlink()
    (directory / "documents.json").write_text(json.dumps({
        "story-1": ["First paragraph. Two sentences.", "Second paragraph."],
        "story-2": {"sentences": ["One.", "Two!", "Three?", "Four.", "Five."]},
    }, indent=2))  # fmt: skip
    study_import_bundle(directory=directory)
    story1 = Segment.objects.filter(document__external_id="story-1").order_by("index")
    assert [s.text for s in story1] == ["First paragraph. Two sentences.", "Second paragraph."]
    story2 = Segment.objects.filter(document__external_id="story-2").order_by("index")
    assert [s.text for s in story2] == ["One. Two!", "Three? Four.", "Five."]
    assert story2[1].sentences == [[0, 6], [7, 12]]


def test_falte_json_problem_names_the_line_of_its_document(tmp_path):
    directory = write_bundle(tmp_path)
    (directory / "documents.jsonl").unlink()
    (directory / "documents.json").write_text('{\n  "good": ["Fine."],\n  "bad": ["Fine.", ""]\n}\n')
    problems, _ = problems_of(directory)
    assert problems == ["documents.json:3: document 'bad': segment 1 is empty"]


def test_import_study_command_prints_problems_and_exits_non_zero(tmp_path, capsys):
    directory = write_bundle(tmp_path, documents=[{"id": "a", "segments": ["x", ""]}])
    with pytest.raises(CommandError, match="nothing was imported"):
        call_command("import_study", str(directory))
    assert "documents.jsonl:1: document 'a': segment 1 is empty" in capsys.readouterr().err
    assert Study.objects.count() == 0


def test_import_study_command_reports_counts(tmp_path, capsys):
    call_command("import_study", str(write_bundle(tmp_path, assignments=GOOD_ASSIGNMENTS)))
    assert "bundle-study: 2 documents, 4 segments, 2 assignments, 2 annotations" in capsys.readouterr().out
