"""Pairwise bundles: choices in and out, checked like everything else, and the round trip exact."""

import json
from pathlib import Path

import pytest
from django.urls import reverse

from accounts.models import Worker
from annotations.models import Assignment
from bundles import BundleInvalid
from bundles.services import study_export_bundle, study_import_bundle
from protocols.pairwise.models import PairwiseChoice
from studies.models import Study
from tests.bundles import whole_and_batched
from tests.pairwise.bundles import SYSTEMS, pair_assignment, pairwise_documents, write_pairwise_bundle

pytestmark = pytest.mark.django_db

STRENGTH = {"strength": {"max": 2}, "question": "Which is better?"}


def choice(left, right, picked="left", strength=None):
    return {"left": left, "right": right, "choice": picked, "strength": strength}


def lines():
    """Two workers on b1 (with strengths), one on b2 and its retest; ties and both sides."""
    b1 = [choice("b1-in0-sysA", "b1-in0-sysB", "left", 2), choice("b1-in0-sysC", "b1-in0-sysA", "right", 1),
          choice("b1-in1-sysB", "b1-in1-sysC", "tie")]  # fmt: skip
    b2 = [choice("b2-in0-sysA", "b2-in0-sysB", "right", 1), choice("b2-in1-sysC", "b2-in1-sysA", "tie")]
    return [
        {"annotator": "P-1", "platform": "prolific", "block": "b1", "active_seconds": 61,
         "submitted_at": "2026-03-02T10:00:00+00:00", "choices": b1},
        {"annotator": "P-2", "platform": "prolific", "block": "b1", "choices": b1[::-1]},
        {"annotator": "P-1", "platform": "prolific", "block": "b2", "kind": "main", "choices": b2},
        {"annotator": "P-1", "platform": "prolific", "block": "b2", "kind": "retest", "choices": b2[:1]},
    ]  # fmt: skip


def read_all(directory):
    return {path.name: path.read_bytes() for path in sorted(Path(directory).iterdir())}


def round_trip(study, tmp_path):
    study_export_bundle(study=study, directory=tmp_path / "first")
    Assignment.objects.all().delete()
    Study.objects.all().delete()
    Worker.objects.all().delete()
    study_import_bundle(directory=tmp_path / "first")
    study_export_bundle(study=Study.objects.get(), directory=tmp_path / "second")
    return read_all(tmp_path / "first"), read_all(tmp_path / "second")


def test_a_bundle_with_choices_imports_and_round_trips_byte_for_byte(tmp_path):
    result = study_import_bundle(
        directory=write_pairwise_bundle(tmp_path / "in", config=STRENGTH, assignments=lines())
    )
    assert (result.assignments, result.annotations) == (4, 9)
    study = result.study
    first = Assignment.objects.get(worker__external_id="P-1", block="b1")
    assert (
        first.status == Assignment.Status.SUBMITTED and first.document is None and first.active_seconds == 61
    )
    assert [(c.position, c.left.external_id, c.right.external_id, c.choice, c.strength)
            for c in first.pairwise_choices.select_related("left", "right")] == [
        (0, "b1-in0-sysA", "b1-in0-sysB", "left", 2), (1, "b1-in0-sysC", "b1-in0-sysA", "right", 1),
        (2, "b1-in1-sysB", "b1-in1-sysC", "tie", None),
    ]  # fmt: skip
    assert (
        len(first.items) == 3 and first.items[1]["left"] == study.documents.get(external_id="b1-in0-sysC").pk
    )

    exported, again = round_trip(study, tmp_path)
    assert exported == again
    assert set(exported) == {"study.yaml", "documents.jsonl", "assignments.jsonl", "annotations.csv"}
    written = [json.loads(line) for line in exported["assignments.jsonl"].decode().splitlines()]
    assert [(w["annotator"], w["block"], w["kind"]) for w in written] == [
        ("P-1", "b1", "main"), ("P-2", "b1", "main"), ("P-1", "b2", "main"), ("P-1", "b2", "retest")
    ]  # fmt: skip
    assert written[1]["choices"] == lines()[1]["choices"]


def test_work_done_on_the_page_round_trips_too(client, tmp_path):
    study = study_import_bundle(directory=write_pairwise_bundle(tmp_path / "in", config=STRENGTH)).study
    for worker, block in [("w1", "b1"), ("w2", "b1"), ("w1", "b2")]:
        assignment = pair_assignment(study, worker, block)
        for number, entry in enumerate(assignment.items):
            picked = ["left", "right", "tie"][number % 3]
            body = {
                "position": entry["position"],
                "choice": picked,
                "strength": None if picked == "tie" else 1,
            }
            url = reverse("task-api-pairwise-choices", args=[assignment.token])
            assert client.post(url, json.dumps(body), content_type="application/json").status_code == 200
        submit = reverse("task-api-submit", args=[assignment.token])
        assert client.post(submit, "{}", content_type="application/json").status_code == 200
    exported, again = round_trip(study, tmp_path)
    assert exported == again
    written = [json.loads(line) for line in exported["assignments.jsonl"].decode().splitlines()]
    assert [len(w["choices"]) for w in written] == [6, 6, 6]


def test_the_analysts_bundle_names_annotators_by_pseudonym(tmp_path):
    study = study_import_bundle(
        directory=write_pairwise_bundle(tmp_path / "in", config=STRENGTH, assignments=lines())
    ).study
    study_export_bundle(study=study, directory=tmp_path / "out", identities=False)
    text = (tmp_path / "out" / "assignments.jsonl").read_text()
    assert "P-1" not in text and "prolific" not in text and '"platform": "import"' in text


def bad_line(**changes):
    line = {"annotator": "x", "block": "b1", "choices": [choice("b1-in0-sysA", "b1-in0-sysB", "left", 1)]}
    line.update(changes)
    return line


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (bad_line(block="b9"), "assignment for unknown block 'b9'"),
        (bad_line(choices="left"), "'choices' must be a list of {left, right, choice, strength}"),
        (bad_line(choices=[["b1-in0-sysA", "b1-in0-sysB"]]), 'choice 1: give {"left", "right", "choice", "strength"}'),
        (bad_line(choices=[{"left": "b1-in0-sysA", "right": "b1-in0-sysB"}]), 'choice 1: give {"left", "right", "choice", "strength"}'),
        (bad_line(choices=[choice("b1-in0-sysA", "b1-in0-sysB") | {"why": "?"}]), 'choice 1: give {"left", "right", "choice", "strength"}'),
        (bad_line(choices=[choice("b2-in0-sysA", "b1-in0-sysB", "left", 1)]), "choice 1: document 'b2-in0-sysA' is not an output of this block"),
        (bad_line(choices=[choice("b1-in0-sysA", ["b1-in0-sysB"], "left", 1)]), "choice 1: document ['b1-in0-sysB'] is not an output of this block"),
        (bad_line(choices=[choice("b1-in0-sysA", "b1-in0-sysA", "left", 1)]), "choice 1: left and right must be different documents"),
        (bad_line(choices=[choice("b1-in0-sysA", "b1-in1-sysB", "left", 1)]),
         "choice 1: 'b1-in0-sysA' and 'b1-in1-sysB' are outputs of different inputs ('b1-in0', 'b1-in1')"),
        (bad_line(choices=[choice("b1-in0-sysA", "b1-in0-sysB", "left", 1), choice("b1-in0-sysB", "b1-in0-sysA", "tie")]),
         "choice 2: the pair 'b1-in0-sysB' / 'b1-in0-sysA' is already chosen in choice 1"),
        (bad_line(choices=[choice("b1-in0-sysA", "b1-in0-sysB", "A", 1)]), """choice 1: 'choice' must be one of "left", "right", "tie", not 'A'"""),
        (bad_line(choices=[choice("b1-in0-sysA", "b1-in0-sysB", "left")]), "choice 1: 'strength' is required"),
        (bad_line(choices=[choice("b1-in0-sysA", "b1-in0-sysB", "left", 3)]), "choice 1: 'strength' must be a whole number from 1 to 2, not 3"),
        (bad_line(choices=[choice("b1-in0-sysA", "b1-in0-sysB", "tie", 1)]), "choice 1: a tie has no strength"),
        (bad_line(annotator=""), "'annotator' is required"),
        (bad_line(mood="fine"), "unknown field 'mood'"),
        ([1, 2], 'an assignment must be an object: {"block": ..., "annotator": ..., "choices": [...]}'),
        (lines()[0] | {"annotator": "P-1"}, "annotator 'P-1' already has a main assignment for block 'b1' (line 1)"),
    ],
)  # fmt: skip
def test_a_bad_line_is_reported_with_file_and_line_and_nothing_is_written(tmp_path, line, expected):
    with pytest.raises(BundleInvalid) as caught:
        study_import_bundle(
            directory=write_pairwise_bundle(tmp_path, config=STRENGTH, assignments=[lines()[0], line])
        )
    messages = [str(p) for p in caught.value.problems]
    assert len(messages) == 1 and messages[0].startswith(f"assignments.jsonl:2: {expected}"), messages
    assert (
        not Study.objects.exists() and not Assignment.objects.exists() and not PairwiseChoice.objects.exists()
    )


def test_a_tie_in_a_study_without_ties_is_refused(tmp_path):
    line = bad_line(choices=[choice("b1-in0-sysA", "b1-in0-sysB", "tie")])
    with pytest.raises(BundleInvalid) as caught:
        study_import_bundle(
            directory=write_pairwise_bundle(tmp_path, config={"allow_ties": False}, assignments=[line])
        )
    assert [str(p) for p in caught.value.problems] == [
        """assignments.jsonl:1: choice 1: this study allows no ties: 'choice' must be "left", "right\""""
    ]


def document(external_id, block="b1", input_id="in0", system="sysA"):
    return {"id": external_id, "block": block, "input_id": input_id, "system": system, "segments": ["Text."]}


@pytest.mark.parametrize(
    ("documents", "expected"),
    [
        ([document("a"), document("b", system="")],
         ["documents.jsonl:2: document 'b' (block 'b1'): a pairwise study needs the 'input_id' and 'system' of every output",
          "documents.jsonl:1: block 'b1' has no pair to compare: its inputs need two or more outputs (of different systems) each"]),
        ([document("a"), document("b", system="sysB"), document("c", system="sysA")],
         ["documents.jsonl:3: document 'c' (block 'b1'): input 'in0' already has an output of system 'sysA' in this block ('a'); a pair compares two systems"]),
        ([document("a", block=""), document("b", block="", system="sysB")],
         ["documents.jsonl:0: no document has a 'block': a pairwise study hands out blocks of outputs"]),
    ],
)  # fmt: skip
def test_documents_that_make_no_pairs_are_reported_with_their_line(tmp_path, documents, expected):
    with pytest.raises(BundleInvalid) as caught:
        study_import_bundle(directory=write_pairwise_bundle(tmp_path, documents=documents))
    assert [str(p) for p in caught.value.problems] == expected
    assert not Study.objects.exists()


def test_an_input_with_a_single_output_is_a_warning(tmp_path):
    documents = pairwise_documents(blocks=("b1",), inputs=1) + [document("lonely", input_id="in9")]
    result = study_import_bundle(directory=write_pairwise_bundle(tmp_path, documents=documents))
    assert [str(w) for w in result.warnings] == [
        f"documents.jsonl:{len(SYSTEMS) + 1}: warning: input 'in9' has one output in block 'b1' ('lonely'): it is in no pair"
    ]


def test_a_line_naming_a_broken_document_is_not_reported_twice(tmp_path):
    documents = [
        *pairwise_documents(blocks=("b1",), inputs=1),
        {"id": "b1-in0-sysD", "block": "b1", "segments": []},
    ]
    line = bad_line(choices=[choice("b1-in0-sysD", "b1-in0-sysA", "left", 1)])
    with pytest.raises(BundleInvalid) as caught:
        study_import_bundle(
            directory=write_pairwise_bundle(
                tmp_path, config=STRENGTH, documents=documents, assignments=[line]
            )
        )
    assert [p.file for p in caught.value.problems] == ["documents.jsonl"]


def test_choices_written_a_batch_at_a_time_are_the_choices_written_at_once(tmp_path, monkeypatch):
    """Checked lines wait on disk and are written a batch at a time, each batch reading its own
    documents' ids: batches of one give the same study, byte for byte, and at most a batch of
    checked lines is in memory while one is written."""
    from protocols.pairwise.bundle_checks import PairwiseAssignmentSpec

    directory = write_pairwise_bundle(tmp_path / "in", config=STRENGTH, assignments=lines())
    (whole, batched), held = whole_and_batched(
        tmp_path, directory, monkeypatch, "pairwise", PairwiseAssignmentSpec
    )
    assert whole == batched
    assert len(held) == 4 and max(held) <= 1, held


def test_no_document_is_held_in_memory_while_the_choices_are_checked(tmp_path, monkeypatch):
    """The checked documents wait on disk from their check to the write, and a block's outputs are
    read from there when a line names it: while the lines are checked, no DocumentSpec is alive."""
    from bundles.specs import DocumentSpec
    from tests.bundles import held_while_checking

    held = held_while_checking(monkeypatch, "protocols.pairwise.bundle_checks", "_check_line", DocumentSpec)
    study_import_bundle(directory=write_pairwise_bundle(tmp_path, config=STRENGTH, assignments=lines()))
    assert len(held) == 4 and max(held) == 0, held
    assert PairwiseChoice.objects.count() == sum(len(line["choices"]) for line in lines())


def test_the_export_holds_a_chunk_of_assignments_at_a_time(tmp_path, monkeypatch):
    """The bundle export sorts the lines from a few fields of each assignment, then reads the rows
    and their choices a chunk at a time: with chunks of one, one Assignment is alive as each line is
    written (before, every one, with all their choices), and the file is the same."""
    from tests.bundles import held_while_exporting

    study = study_import_bundle(
        directory=write_pairwise_bundle(tmp_path / "in", config=STRENGTH, assignments=lines())
    ).study
    held, (whole, chunked) = held_while_exporting(monkeypatch, study, tmp_path)
    assert len(held) == 4 and max(held) == 1, held
    assert chunked == whole
