"""Suggestions, arms and decisions in bundles: checked (file:line: message, nothing written),
stored, and exported back unchanged, also in the anonymised export."""

import json

import pytest
from django.core.management import call_command

from annotations.models import Assignment
from bundles import BundleInvalid
from bundles.services import study_export_bundle, study_import_bundle
from protocols.span.models import Suggestion, SuggestionDecision
from studies.models import Study
from tests.bundles import annotation, study_yaml, write_bundle
from tests.studies.test_roundtrip import empty_database, read_all

pytestmark = pytest.mark.django_db

# d1 segment 0: "Anna met Ben at the mill. It rained."; segment 1: "Miss Sessions arrived. Anna met Ben again."
SUGGESTIONS = [
    {"document": "d1", "position": 1, "segment": 0, "start": 0, "end": 4, "text": "Anna", "category": "CharE",
     "source": "evaluator llm, run 3"},
    {"document": "d1", "position": 2, "segment": 0, "start": 9, "end": 12, "text": "Ben", "category": "CharE",
     "source": "evaluator llm, run 3"},
    {"document": "d1", "position": 3, "segment": 1, "start": 23, "end": 42, "text": "Anna met Ben again.",
     "category": "RepE", "paired": {"segment": 0, "start": 0, "end": 12, "text": "Anna met Ben"},
     "source": "evaluator llm, run 3"},
    {"document": "d1", "position": 4, "segment": 1, "start": 0, "end": 13, "text": "Miss Sessions",
     "category": "CharE", "source": "evaluator llm, run 3"},
]  # fmt: skip
LINES = [
    {"document": "d1", "annotator": "w1", "arm": "suggestions", "submitted_at": "2026-03-01T12:00:00Z",
     "annotations": [
         annotation(0, "CharE", 0, 4, "Anna", client_id="a1"),
         annotation(0, "SceneE", 9, 12, "Ben", client_id="a2"),
         annotation(1, "RepE", 23, 41, "Anna met Ben again", paired={"segment": 0, "start": 0, "end": 12,
                                                                     "text": "Anna met Ben"}, client_id="a3"),
     ],
     "suggestion_decisions": [
         {"suggestion": 1, "action": "accept", "seconds": 2.5, "annotation": "a1"},
         {"suggestion": 2, "action": "change", "seconds": 4.0, "annotation": "a2"},
         {"suggestion": 3, "action": "adjust", "seconds": 9.25, "annotation": "a3"},
         {"suggestion": 4, "action": "reject", "seconds": 1.0},
     ]},
    {"document": "d1", "annotator": "w2", "arm": "control", "submitted_at": "2026-03-01T12:00:00Z",
     "annotations": [annotation(1, "CharE", 0, 13, "Miss Sessions")]},
]  # fmt: skip
ASSISTED = {"assistance": {"share": 0.5, "seed": 3}}


def write_assisted(directory, lines=LINES, suggestions=SUGGESTIONS):
    write_bundle(directory, study=study_yaml(config=ASSISTED), assignments=lines)
    (directory / "suggestions.jsonl").write_text(
        "".join(json.dumps(s, ensure_ascii=False) + "\n" for s in suggestions)
    )
    return directory


def problems_of(tmp_path, **options):
    with pytest.raises(BundleInvalid) as caught:
        study_import_bundle(directory=write_assisted(tmp_path, **options))
    return [str(problem) for problem in caught.value.problems]


def test_import_stores_suggestions_arms_and_decisions(tmp_path):
    study = study_import_bundle(directory=write_assisted(tmp_path)).study
    assert Suggestion.objects.filter(document__study=study).count() == 4
    assert dict(Assignment.objects.filter(study=study).values_list("worker__external_id", "arm")) == {
        "w1": "suggestions", "w2": "control",
    }  # fmt: skip
    stored = {
        d.suggestion.position: (d.action, d.seconds, d.annotation and d.annotation.client_id)
        for d in SuggestionDecision.objects.filter(assignment__study=study).select_related(
            "suggestion", "annotation"
        )
    }
    assert stored == {1: ("accept", 2.5, "a1"), 2: ("change", 4.0, "a2"), 3: ("adjust", 9.25, "a3"),
                      4: ("reject", 1.0, None)}  # fmt: skip


def test_export_import_export_is_identical_and_the_anonymised_export_keeps_them(tmp_path):
    study_import_bundle(directory=write_assisted(tmp_path / "in"))
    call_command("export_study", "bundle-study", str(tmp_path / "first"))
    empty_database()
    call_command("import_study", str(tmp_path / "first"))
    call_command("export_study", "bundle-study", str(tmp_path / "second"))
    first, second = read_all(tmp_path / "first"), read_all(tmp_path / "second")
    assert first == second
    assert [json.loads(line) for line in first["suggestions.jsonl"].decode().splitlines()] == SUGGESTIONS
    lines = [json.loads(line) for line in first["assignments.jsonl"].decode().splitlines()]
    assert [line["arm"] for line in lines] == ["suggestions", "control"]
    assert lines[0]["suggestion_decisions"] == LINES[0]["suggestion_decisions"]
    study_export_bundle(study=Study.objects.get(), directory=tmp_path / "anonymous", identities=False)
    anonymous = [
        json.loads(line) for line in (tmp_path / "anonymous" / "assignments.jsonl").read_text().splitlines()
    ]
    assert sorted(line["arm"] for line in anonymous) == ["control", "suggestions"]
    assisted = next(line for line in anonymous if line["arm"] == "suggestions")
    assert assisted["suggestion_decisions"] == LINES[0]["suggestion_decisions"]
    assert "w1" not in (tmp_path / "anonymous" / "assignments.jsonl").read_text()


def bad_line(**changes):
    first = json.loads(json.dumps(LINES[0]))
    first.update(changes)
    return [first, LINES[1]]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"lines": bad_line(arm="Treatment A")}, "assignments.jsonl:1: 'arm' must be a lower-case name"),
        ({"lines": bad_line(suggestion_decisions=[{"suggestion": 9, "action": "reject", "seconds": 1}])},
         "assignments.jsonl:1: suggestion_decisions[1]: no suggestion 9 for 'd1' in suggestions.jsonl"),
        ({"lines": bad_line(suggestion_decisions=[{"suggestion": 2, "action": "accept", "seconds": 1,
                                                   "annotation": "a2"}])},
         "assignments.jsonl:1: suggestion_decisions[1]: action 'accept' does not fit the annotation stored (it is 'change')"),
        ({"lines": bad_line(suggestion_decisions=[{"suggestion": 1, "action": "accept", "seconds": 1,
                                                   "annotation": "zz"}])},
         "assignments.jsonl:1: suggestion_decisions[1]: annotation 'zz' is not among this line's annotations"),
        ({"lines": bad_line(suggestion_decisions=[{"suggestion": 4, "action": "ignore", "seconds": 1}])},
         "assignments.jsonl:1: suggestion_decisions[1]: unknown action 'ignore'"),
        ({"suggestions": [{**SUGGESTIONS[0], "text": "Anne"}, *SUGGESTIONS[1:]]},
         "suggestions.jsonl:1: suggestion: text 'Anne' does not match"),
        ({"suggestions": [*SUGGESTIONS, {**SUGGESTIONS[0]}]}, "suggestions.jsonl:5: suggestion 1 of 'd1' is given twice"),
    ],
)  # fmt: skip
def test_bad_suggestions_and_decisions_are_named_and_nothing_is_written(tmp_path, options, message):
    problems = problems_of(tmp_path, **options)
    assert any(problem.startswith(message) for problem in problems), problems
    assert not Study.objects.exists() and not Suggestion.objects.exists()


def test_the_annotation_table_has_arms_decisions_and_rejected_suggestions(tmp_path):
    import csv
    import io

    from exports.rows import csv_lines, row_count

    study = study_import_bundle(directory=write_assisted(tmp_path)).study
    rows = list(csv.DictReader(io.StringIO("".join(csv_lines(study)))))
    assert row_count(study) == len(rows) == 5  # 3 + 1 spans, and the rejected suggestion
    taken = {(row["span_text"], row["suggestion_action"]): row for row in rows}
    assert (
        taken[("Anna", "accept")]["arm"] == "suggestions" and taken[("Anna", "accept")]["suggestion"] == "1"
    )
    assert (
        taken[("Ben", "change")]["category"] == "SceneE"
        and taken[("Ben", "change")]["decide_seconds"] == "4.0"
    )
    rejected = taken[("Miss Sessions", "reject")]
    assert (rejected["category"], rejected["suggestion"], rejected["arm"]) == ("CharE", "4", "suggestions")
    control = taken[("Miss Sessions", "")]
    assert (control["arm"], control["suggestion"]) == ("control", "")
    assert "w1" not in "".join(csv_lines(study))  # pseudonyms only


@pytest.mark.parametrize("batch", [None, 1])
def test_suggestions_wait_on_disk_and_go_in_a_batch_at_a_time(tmp_path, monkeypatch, batch):
    """The checked suggestions wait on disk (bundles/checked_suggestions.py): while the assignments
    are checked, no SuggestionLine is alive beyond the one a decision is being checked against
    (before, every suggestion with its texts was). Written a suggestion at a time, each batch
    reading its own ids, the decisions still point at the right suggestions and spans."""
    from protocols.span.assistance.bundle import SuggestionLine
    from tests.bundles import held_while_checking

    if batch:
        monkeypatch.setattr("bundles.checked_suggestions.BATCH", batch)
    held = held_while_checking(
        monkeypatch, "protocols.span.bundle_checks", "_check_assignment", SuggestionLine
    )
    study_import_bundle(directory=write_assisted(tmp_path / "in"))
    assert held == [0, 0], held
    call_command("export_study", "bundle-study", str(tmp_path / "out"))
    exported = read_all(tmp_path / "out")
    assert [json.loads(line) for line in exported["suggestions.jsonl"].decode().splitlines()] == SUGGESTIONS
    lines = [json.loads(line) for line in exported["assignments.jsonl"].decode().splitlines()]
    assert lines[0]["suggestion_decisions"] == LINES[0]["suggestion_decisions"]
    assert {a["client_id"] for a in lines[0]["annotations"]} == {"a1", "a2", "a3"}
