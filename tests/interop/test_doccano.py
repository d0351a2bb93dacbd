"""doccano's JSONL exports read into a corpus and written back (interop.formats.doccano)."""

import json
import shutil
from pathlib import Path

import pytest

from bundles.problems import Problems
from interop.corpus import Annotation, Corpus, Document, Link, Region
from interop.formats import doccano

FILES = Path(__file__).parent / "files" / "doccano"


def read(path, **options):
    problems = Problems()
    corpus = doccano.read(path, Path(path).name, problems, **options)
    return corpus, problems


def messages(problems):
    return [(problem.line, problem.message) for problem in problems.items]


def covered(corpus, document_id, annotator=None):
    text = next(d.text for d in corpus.documents if d.id == document_id)
    annotation = next(
        a for a in corpus.annotations if a.document == document_id and annotator in (None, a.annotator)
    )
    return [(text[r.start : r.end], r.label) for r in annotation.regions]


def json_lines(path):
    return [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]


def test_an_export_without_relations_gives_each_line_as_the_files_annotator():
    corpus, problems = read(FILES / "alice.jsonl")

    assert not problems, messages(problems)
    assert [d.id for d in corpus.documents] == ["1", "2", "3", "4", "5", "6"]
    assert corpus.documents[0].meta == {"source": "conll"}
    assert {a.annotator for a in corpus.annotations} == {"alice"}
    assert corpus.labels == ["ORG", "MISC", "VEHICLE", "FOOD", "LOC"]
    assert covered(corpus, "1") == [("EU", "ORG"), ("German", "MISC")]
    assert corpus.annotations[1].meta["doccano"]["comments"] == ["the emoji is one grapheme"]


def test_utf16_offsets_become_code_points_for_emoji_cjk_and_combining_characters():
    corpus, _ = read(FILES / "alice.jsonl")

    # doccano's [22, 32] counts UTF-16 units; 👨🏻‍🚒 is 4 code points but 7 units.
    assert corpus.annotations[1].regions[0] == Region(start=19, end=29, label="VEHICLE")
    assert covered(corpus, "2") == [("firetrucks", "VEHICLE")]
    assert covered(corpus, "3") == [("🍣", "FOOD"), ("🍜", "FOOD")]
    assert covered(corpus, "4") == [("東京都", "LOC"), ("渋谷区", "LOC")]
    assert covered(corpus, "5") == [("Cafe\u0301", "ORG"), ("Zu\u0308rich", "LOC")]


def test_a_line_with_no_labels_is_an_annotation_that_found_nothing():
    corpus, _ = read(FILES / "alice.jsonl")

    nothing = next(a for a in corpus.annotations if a.document == "6")
    assert nothing.annotator == "alice" and nothing.regions == []


def test_code_point_offsets_are_read_when_asked_for():
    corpus, problems = read(FILES / "alice.jsonl", offsets=doccano.CODE_POINTS)

    assert (2, "document '2': label 1: end 32 is past the text's end (29 characters)") in messages(problems)
    assert covered(corpus, "3") == [("🍣 ", "FOOD")]  # and [14, 16] is past its end


def test_a_folder_of_per_user_exports_gives_one_annotation_per_user_with_relations():
    corpus, problems = read(FILES / "per_user")

    assert not problems, messages(problems)
    assert [d.id for d in corpus.documents] == ["11", "12"]
    assert [(a.document, a.annotator) for a in corpus.annotations] == [
        ("11", "alice"),
        ("12", "alice"),
        ("11", "bob"),
        ("12", "bob"),
    ]
    alice = corpus.annotations[0]
    assert [r.id for r in alice.regions] == ["101", "102", "103"]
    assert alice.links == [Link("101", "102", "foundedAt"), Link("101", "103", "foundedBy")]
    assert corpus.link_labels == ["foundedAt", "foundedBy", "basedIn"]
    assert covered(corpus, "12", "alice") == [("ソニー", "ORG"), ("東京", "LOC")]
    assert corpus.annotations[3].regions == [] and corpus.annotations[3].links == []


def test_an_annotator_field_names_the_annotator_and_a_line_without_id_is_numbered():
    corpus, problems = read(FILES / "annotators.jsonl")

    assert not problems, messages(problems)
    assert [d.id for d in corpus.documents] == ["21", "3"]
    assert [(a.document, a.annotator, len(a.regions)) for a in corpus.annotations] == [
        ("21", "carol", 2),
        ("21", "dave", 1),
        ("3", "carol", 0),
    ]


@pytest.mark.parametrize("name", ["alice.jsonl", "annotators.jsonl"])
def test_writing_what_was_read_gives_the_same_file_and_corpus(tmp_path, name):
    corpus, _ = read(FILES / name)

    doccano.write(corpus, tmp_path / name)

    assert json_lines(tmp_path / name) == json_lines(FILES / name)
    again, problems = read(tmp_path / name)
    assert not problems and again == corpus


def test_writing_a_per_user_folder_gives_the_same_files(tmp_path):
    corpus, _ = read(FILES / "per_user")

    doccano.write(corpus, tmp_path / "per_user")

    for name in ("alice.jsonl", "bob.jsonl"):
        assert json_lines(tmp_path / "per_user" / name) == json_lines(FILES / "per_user" / name)
    assert read(tmp_path / "per_user")[0] == corpus


def test_another_formats_corpus_is_written_with_entities_relations_and_utf16_offsets(tmp_path):
    text = "🍣 from Tokyo"
    corpus = Corpus(
        documents=[Document(id="sushi", text=text)],
        annotations=[
            Annotation(
                document="sushi",
                annotator="erin",
                regions=[Region(0, 1, "FOOD", id="r1"), Region(7, 12, "LOC", id="r2")],
                links=[Link("r1", "r2", "from")],
            ),
            Annotation(document="sushi", annotator="frank"),
        ],
    )

    doccano.write(corpus, tmp_path / "out.jsonl")

    first, second = json_lines(tmp_path / "out.jsonl")
    assert first["user"] == "erin" and second["user"] == "frank"
    assert [(e["start_offset"], e["end_offset"]) for e in first["entities"]] == [(0, 2), (8, 13)]
    assert [e["id"] for e in first["entities"]] == [0, 1]  # doccano's ids are numbers
    assert first["relations"] == [{"id": 0, "from_id": 0, "to_id": 1, "type": "from"}]
    again, problems = read(tmp_path / "out.jsonl")
    assert not problems, messages(problems)
    assert covered(again, "sushi", "erin") == [("🍣", "FOOD"), ("Tokyo", "LOC")]
    assert again.annotations[0].links == [Link("0", "1", "from")]


def test_every_problem_of_a_bad_file_is_reported_with_its_line():
    corpus, problems = read(FILES / "bad.jsonl")

    found = messages(problems)
    expected = [
        (1, "not JSON: Expecting ',' delimiter (column 31)"),
        (2, "a line must hold a JSON object, not a list"),
        (3, "document '1': 'text' is missing"),
        (4, "document '2': label 1: end 40 is past the text's end (10 UTF-16 code units)"),
        (4, "document '2': label 2: start 5 is not before end 5"),
        (4, "document '2': label 3: start -1 is negative"),
        (4, "document '2': label 4: start 'a' is not a whole number"),
        (4, "document '2': label 5: label '' is not a label name"),
        (4, "document '2': label 6: must be [start, end, label], not [0, 2]"),
        (4, "document '2': label 7: start True is not a whole number"),
        (
            5,
            "document '3': label 1: start 1 falls inside a character that UTF-16 writes as two units"
            " (offsets here count UTF-16 code units)",
        ),
        (6, "document '4': entity 2: id 1 is entity 1's already"),
        (6, "document '4': entity 3: end_offset missing"),
        (6, "document '4': relation 1: to_id 77 is not the id of an entity of this line"),
        (6, "document '4': relation 2: type '' is not a relation label"),
        (6, "document '4': relation 2: id 9 is used twice"),
        (8, "a string holds a NUL character (\\u0000), which cannot be stored"),
        (9, "a string holds a lone surrogate (half of a UTF-16 pair), which is not Unicode text"),
        (10, "not UTF-8 text (byte 23 of the line)"),
        (11, "document '8': 'label' and 'entities' are given; a doccano line has one of them"),
        (12, "document '4': its text differs from the one on bad.jsonl line 6"),
    ]
    assert found == expected
    assert [d.id for d in corpus.documents] == ["2", "3", "4", "8"]


def test_json_nested_too_deeply_is_a_problem_not_a_crash(tmp_path):
    path = tmp_path / "deep.jsonl"
    path.write_text(
        '{"id": 1, "text": "fine", "label": []}\n'
        + "[" * 100_000
        + "]" * 100_000
        + "\n"
        + '{"id": 2, "text": "x", "label": []'
        + ', "meta": '
        + "[" * 65
        + "]" * 65
        + "}\n"
        + '{"id": 3, "text": "x", "label": [[0, NaN, "A"]]}\n'
    )

    corpus, problems = read(path)

    assert messages(problems) == [
        (2, "not readable: JSON nested more than 64 levels"),
        (3, "not readable: JSON nested more than 64 levels"),
        (4, "a number is not finite (NaN or Infinity is not JSON)"),
    ]
    assert [d.id for d in corpus.documents] == ["1"]


def test_a_missing_file_or_empty_folder_is_a_problem(tmp_path):
    assert messages(read(tmp_path / "absent.jsonl")[1]) == [
        (0, "cannot read the file: No such file or directory")
    ]
    (tmp_path / "empty").mkdir()
    assert messages(read(tmp_path / "empty")[1]) == [(0, "the folder holds no .jsonl file")]


def test_the_collaborative_all_jsonl_is_the_projects_annotation(tmp_path):
    shutil.copy(FILES / "alice.jsonl", tmp_path / "all.jsonl")

    corpus, _ = read(tmp_path / "all.jsonl")

    assert {a.annotator for a in corpus.annotations} == {"doccano"}


def test_the_offsets_option_takes_the_names_a_command_line_gives():
    corpus, problems = read(FILES / "alice.jsonl", offsets="code-points")
    assert (2, "document '2': label 1: end 32 is past the text's end (29 characters)") in messages(problems)

    _, problems = read(FILES / "alice.jsonl", offsets="bytes")
    assert messages(problems) == [(0, "offsets 'bytes': say utf-16 (doccano's own) or code-points")]


def test_an_upload_kept_under_another_name_is_the_annotator_its_name_says(tmp_path):
    shutil.copy(FILES / "alice.jsonl", tmp_path / "upload-3f2a.jsonl")
    problems = Problems()

    corpus = doccano.read(tmp_path / "upload-3f2a.jsonl", "erin.jsonl", problems)

    assert {a.annotator for a in corpus.annotations} == {"erin"}


def test_doccano_1x_annotations_give_one_annotation_per_user_of_each_line():
    corpus, problems = read(FILES / "v1_annotations.jsonl")

    assert not problems, messages(problems)
    assert corpus.documents[0].meta == {"meta": {"source": "news"}, "annotation_approver": None}
    assert [(a.document, a.annotator) for a in corpus.annotations] == [
        ("31", "1"),
        ("31", "2"),
        ("32", "v1_annotations"),
    ]
    assert covered(corpus, "31", "1") == [("Barack Obama", "4")]  # 1.x exported label ids
    assert covered(corpus, "31", "2") == [("東京", "5"), ("Barack", "4")]
    assert corpus.annotations[2].regions == []


def test_doccano_1x_text_labels_are_read_like_todays_label_tuples():
    corpus, problems = read(FILES / "v1_labels.jsonl")

    assert not problems, messages(problems)
    assert covered(corpus, "41") == [("Angela Merkel", "PERSON"), ("習近平", "PERSON"), ("Berlin", "LOC")]


@pytest.mark.parametrize("name", ["v1_annotations.jsonl", "v1_labels.jsonl"])
def test_doccano_1x_files_are_written_back_as_they_were(tmp_path, name):
    corpus, _ = read(FILES / name)

    doccano.write(corpus, tmp_path / name)

    assert json_lines(tmp_path / name) == json_lines(FILES / name)
    assert read(tmp_path / name)[0] == corpus


def test_a_user_who_labels_a_document_in_two_files_of_a_folder_annotated_it_twice(tmp_path):
    shutil.copytree(FILES / "per_user", tmp_path / "per_user")
    with (tmp_path / "per_user" / "bob.jsonl").open("a") as bob:
        bob.write(
            json.dumps(
                {
                    "id": 11,
                    "text": json_lines(FILES / "per_user" / "alice.jsonl")[0]["text"],
                    "label": [],
                    "user": "alice",
                }
            )
            + "\n"
        )

    corpus, problems = read(tmp_path / "per_user")

    # Read as alice's second annotation of the document, which the import keeps as her retest.
    assert not problems.items
    assert [
        (a.line, a.item) for a in corpus.annotations if a.document == "11" and a.annotator == "alice"
    ] == [
        (1, "document '11', annotator 'alice'"),
        (3, "document '11', annotator 'alice'"),
    ]
