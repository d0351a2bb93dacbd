"""Potato's annotation output read into a corpus and written back (interop.formats.potato)."""

import json
import shutil
from pathlib import Path

import pytest

from bundles.problems import Problems
from interop.corpus import Annotation, Corpus, Document, Region
from interop.formats import potato

FILES = Path(__file__).parent / "files" / "potato"
OUTPUT = FILES / "annotation_output"


def read(path):
    problems = Problems()
    corpus = potato.read(path, Path(path).name, problems)
    return corpus, problems


def messages(problems):
    return [(problem.line, problem.message) for problem in problems.items]


def spans(corpus, annotation):
    text = next(d.text for d in corpus.documents if d.id == annotation.document)
    return [(text[r.start : r.end], r.label) for r in annotation.regions]


def json_lines(path):
    return [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]


def test_the_output_folder_gives_each_users_instances_with_their_spans():
    corpus, problems = read(OUTPUT)

    assert not problems, messages(problems)
    assert [d.id for d in corpus.documents] == ["inst_1", "inst_2", "inst_3"]
    assert [(a.document, a.annotator, a.seconds) for a in corpus.annotations] == [
        ("inst_1", "alice", 42),
        ("inst_2", "alice", 65),
        ("inst_3", "alice", 7),
        ("inst_1", "bob", 0),
        ("inst_3", "bob", 3),
    ]
    alice_1, alice_2, alice_3, bob_1, bob_3 = corpus.annotations
    assert spans(corpus, alice_1) == [("Potato", "tool"), ("🥔", "emoji"), ("Ann Arbor", "location")]
    assert alice_1.regions[1] == Region(37, 38, "emoji", text="🥔")
    assert spans(corpus, alice_2) == [("ポテト", "food"), ("🍟", "emoji"), ("nai\u0308ve", "odd word")]
    assert spans(corpus, bob_1) == [("Michigan", "location")]
    assert alice_3.regions == [] and bob_3.regions == []  # found nothing
    assert alice_1.meta["potato"]["record"]["label_annotations"] == {"certainty": {"certain": "true"}}
    assert corpus.labels == ["tool", "emoji", "location", "food", "odd word"]


def test_one_users_file_is_that_users_and_the_all_users_file_names_each_user():
    alice, problems = read(OUTPUT / "alice" / "annotated_instances.jsonl")
    assert not problems and {a.annotator for a in alice.annotations} == {"alice"}

    everyone, problems = read(FILES / "annotated_instances.jsonl")
    assert not problems, messages(problems)
    folder, _ = read(OUTPUT)
    assert [(a.document, a.annotator, a.regions) for a in everyone.annotations] == [
        (a.document, a.annotator, a.regions) for a in folder.annotations
    ]
    assert everyone.documents == folder.documents


def test_writing_the_output_folder_that_was_read_gives_the_same_files_and_corpus(tmp_path):
    corpus, _ = read(OUTPUT)

    potato.write(corpus, tmp_path / "annotation_output")

    for user in ("alice", "bob"):
        written = tmp_path / "annotation_output" / user / "annotated_instances.jsonl"
        assert json_lines(written) == json_lines(OUTPUT / user / "annotated_instances.jsonl")
    assert read(tmp_path / "annotation_output")[0] == corpus


@pytest.mark.parametrize(
    "source", ["annotated_instances.jsonl", "annotation_output/bob/annotated_instances.jsonl"]
)
def test_writing_a_file_that_was_read_gives_the_same_file_and_corpus(tmp_path, source):
    corpus, _ = read(FILES / source)
    target = tmp_path / source
    target.parent.mkdir(parents=True, exist_ok=True)

    potato.write(corpus, target)

    assert json_lines(target) == json_lines(FILES / source)
    assert read(target)[0] == corpus


def test_another_formats_corpus_is_written_with_code_point_offsets_and_span_texts(tmp_path):
    text = "🥔🍟 東京 e\u0301"
    corpus = Corpus(
        documents=[Document(id="x1", text=text), Document(id="unseen", text="nobody annotated this")],
        annotations=[
            Annotation(
                document="x1",
                annotator="carol",
                regions=[Region(1, 2, "fries"), Region(3, 5, "city"), Region(6, 8, "e")],
            )
        ],
    )

    potato.write(corpus, tmp_path / "out.jsonl")

    (record,) = json_lines(tmp_path / "out.jsonl")
    assert record["user_id"] == "carol" and record["instance_id"] == "x1"
    assert record["span_annotations"] == [
        {"start": 1, "end": 2, "span": "🍟", "annotation": "fries"},
        {"start": 3, "end": 5, "span": "東京", "annotation": "city"},
        {"start": 6, "end": 8, "span": "e\u0301", "annotation": "e"},
    ]
    again, problems = read(tmp_path / "out.jsonl")
    assert not problems, messages(problems)
    assert spans(again, again.annotations[0]) == [("🍟", "fries"), ("東京", "city"), ("e\u0301", "e")]


def test_every_problem_of_a_bad_file_is_reported_with_its_line():
    corpus, problems = read(FILES / "bad.jsonl")

    assert messages(problems) == [
        (1, "instance 'a': span 2: end 40 is past the text's end (11 characters)"),
        (1, "instance 'a': span 3: text 'Shirt' is not the text its offsets cover ('Short')"),
        (1, "instance 'a': span 4: annotation missing"),
        (1, "instance 'a': span 5: start 3 is not before end 3"),
        (1, "instance 'a': span 6: annotation '' is not a label name"),
        (1, "instance 'a': span 7: must be an object, not a list"),
        (2, "instance on line 2: id missing"),
        (3, "instance 'b': displayed_text must be text, not a number"),
        (4, "instance 'c': span_annotations must be a list, not a string"),
        (5, "instance 'a': its displayed_text differs from the one on bad.jsonl line 1"),
        (
            8,
            "instance on line 8: an all-users line (user_id, instance_id) after a per-user line (id) on line 1;"
            " Potato writes one shape to a file",
        ),
        (9, "a string holds a lone surrogate (half of a UTF-16 pair), which is not Unicode text"),
    ]
    assert spans(corpus, corpus.annotations[0]) == [("Short", "x")]


def test_a_folder_without_potato_output_is_a_problem(tmp_path):
    shutil.copytree(OUTPUT / "alice", tmp_path / "alice")
    (tmp_path / "alice" / "annotated_instances.jsonl").rename(tmp_path / "alice" / "other.jsonl")

    _, problems = read(tmp_path)

    assert messages(problems) == [
        (0, "the folder holds no annotated_instances.jsonl, nor a folder per annotator with one")
    ]


def test_an_upload_kept_under_another_name_is_the_annotator_its_name_says(tmp_path):
    shutil.copy(OUTPUT / "bob" / "annotated_instances.jsonl", tmp_path / "upload-3f2a.jsonl")
    problems = Problems()

    renamed = potato.read(tmp_path / "upload-3f2a.jsonl", "bob.jsonl", problems)
    in_folder = potato.read(tmp_path / "upload-3f2a.jsonl", "bob/annotated_instances.jsonl", problems)

    assert not problems
    assert (
        {a.annotator for a in renamed.annotations} == {a.annotator for a in in_folder.annotations} == {"bob"}
    )


def test_an_all_users_line_must_name_its_user(tmp_path):
    path = tmp_path / "annotated_instances.jsonl"
    lines = [
        {"user_id": "", "instance_id": "a", "displayed_text": "Text.", "span_annotations": []},
        {"user_id": ["x"], "instance_id": "b", "displayed_text": "Text.", "span_annotations": []},
        {"instance_id": "c", "displayed_text": "Text.", "span_annotations": []},
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))

    _, problems = read(path)

    assert messages(problems) == [
        (1, "instance 'a': user_id '' names no annotator"),
        (2, "instance 'b': user_id ['x'] names no annotator"),
        (3, "instance on line 3: user_id missing"),
    ]


def test_spans_read_from_other_formats_cover_the_same_text_once_written_as_potato(tmp_path):
    from interop.formats import doccano, factgenie

    sources = [
        factgenie.read(FILES.parent / "factgenie" / "human-1", "human-1", Problems()),  # UTF-16 offsets
        doccano.read(FILES.parent / "doccano" / "alice.jsonl", "alice.jsonl", Problems()),  # UTF-16 offsets
    ]
    for number, source in enumerate(sources):
        potato.write(source, tmp_path / f"out-{number}")
        written, problems = read(tmp_path / f"out-{number}")

        assert not problems, messages(problems)
        covered = {(a.document, a.annotator): spans(source, a) for a in source.annotations}
        assert {(a.document, a.annotator): spans(written, a) for a in written.annotations} == covered
