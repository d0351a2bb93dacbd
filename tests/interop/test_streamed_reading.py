"""A JSON array read an item at a time (interop/reading.py): the items and lines of a whole parse,
whatever the read buffer cuts, and a file that is no readable array named by line and problem."""

import json

import pytest

from bundles.problems import Problems
from interop import reading

# A number first: nothing read before it has made the buffer longer than the number.
ITEMS = [
    123456789,
    {"id": 1, "data": {"text": "Anna met Ben. 😀 They laughed at the café!"}, "score": 12345.5e-3},
    {"id": 2, "data": {"text": 'a "quoted" \\ back\nslash ' + "x" * 40}, "flags": [True, False, None]},
    "a string item with é and 🚢",
    {"id": 5, "data": {}},
]


def items_of(path, what="task"):
    problems = Problems()
    items = list(reading.json_array_items(path, "export.json", problems, what=what))
    return items, [str(problem) for problem in problems.items]


@pytest.mark.parametrize("chunk", [1, 2, 3, 5, 7, 16, 64, 1 << 20])
def test_items_cut_anywhere_by_the_read_buffer_are_read_whole(tmp_path, monkeypatch, chunk):
    monkeypatch.setattr(reading, "CHUNK", chunk)
    path = tmp_path / "export.json"
    path.write_text("[\n" + ",\n".join(json.dumps(item, ensure_ascii=False) for item in ITEMS) + "\n]\n")

    items, problems = items_of(path)

    assert problems == []
    assert [value for _, value in items] == ITEMS
    assert [line for line, _ in items] == [2, 3, 4, 5, 6]


def test_white_space_and_commas_between_items_and_lines_shared_by_items(tmp_path, monkeypatch):
    monkeypatch.setattr(reading, "CHUNK", 4)
    path = tmp_path / "export.json"
    path.write_text('\ufeff  [ \n\n {"a": 1}  \r\n ,\t{"b": 2}, {"c": 3}\n\n,\n\n  [4]\n\t]  \n\n')

    items, problems = items_of(path)

    assert problems == []
    # Items 2 and 3 start on one line: a line would not tell them apart, so they have none.
    assert items == [(3, {"a": 1}), (None, {"b": 2}), (None, {"c": 3}), (8, [4])]


def test_a_file_on_one_line_gives_no_line_even_for_its_only_item(tmp_path):
    path = tmp_path / "export.json"
    path.write_text('[{"a": 1}]\n')
    assert items_of(path) == ([(None, {"a": 1})], [])
    path.write_text('[{"a": 1}\n]')
    assert items_of(path) == ([(1, {"a": 1})], [])
    path.write_text("[]")
    assert items_of(path) == ([], [])


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ('[{"a": 1},\n{"b": 2},\n{"c": ', "export.json:3: not JSON we accept: invalid JSON: Expecting value"),
        ('[{"a": 1},\n{"b": "cut', "export.json:2: not JSON we accept: invalid JSON: Unterminated string"),
        ('[{"a": 1},\n{"b": 2}', "export.json:2: not JSON we accept: invalid JSON: Expecting ',' delimiter"),
        ('[{"a": 1},\n{"b": 2},\n]', "export.json:3: not JSON we accept: invalid JSON: Expecting value"),
        ('[{"a": 1},\n,{"b": 2}]', "export.json:2: not JSON we accept: invalid JSON: Expecting value"),
        ('[{"a": 1}\n{"b": 2}]', "export.json:2: not JSON we accept: invalid JSON: Expecting ',' delimiter"),
        ('[{"a": 1}]\n\n]', "export.json:3: not JSON we accept: invalid JSON: Extra data"),
        ('{"a": 1}', "export.json:1: must be a JSON array of tasks, [{...}, ...]"),
        ('\n\n"text"', "export.json:3: must be a JSON array of tasks, [{...}, ...]"),
        ("", "export.json:1: not JSON we accept: invalid JSON: Expecting value"),
        ("   \n", "export.json:2: not JSON we accept: invalid JSON: Expecting value"),
    ],
    ids=[
        "truncated",
        "cut-in-a-text",
        "no-end",
        "trailing-comma",
        "two-commas",
        "no-comma",
        "extra-data",
        "an-object",
        "a-text",
        "empty",
        "blank",
    ],  # fmt: skip
)
@pytest.mark.parametrize("chunk", [3, 1 << 20])
def test_a_file_that_is_no_whole_array_is_named_by_line_and_problem(tmp_path, monkeypatch, content, problem,
                                                                     chunk):  # fmt: skip
    monkeypatch.setattr(reading, "CHUNK", chunk)
    path = tmp_path / "export.json"
    path.write_text(content)

    _, problems = items_of(path)

    assert len(problems) == 1
    assert problems[0].startswith(problem)


def test_what_no_database_could_store_is_named_by_the_item_path(tmp_path, monkeypatch):
    monkeypatch.setattr(reading, "CHUNK", 5)
    path = tmp_path / "export.json"
    path.write_text('[\n{"data": {"text": "fine"}},\n{"data": {"text": "a NUL \\u0000 here"}}\n]')

    _, problems = items_of(path)

    assert problems == [
        "export.json:3: not JSON we accept: the text at [1].data.text contains a NUL character (\\u0000), "
        "which cannot be stored"
    ]


def test_bytes_that_are_not_utf8_are_named_by_their_place_in_the_file(tmp_path, monkeypatch):
    monkeypatch.setattr(reading, "CHUNK", 4)
    path = tmp_path / "export.json"
    data = '[{"text": "café 😀"},\n{"text": "'.encode() + b"\xf0\x9f\x98" + b'"}]'
    path.write_bytes(data)

    with pytest.raises(UnicodeDecodeError) as whole:
        data.decode("utf-8")

    _, problems = items_of(path)

    assert problems == [f"export.json:0: not UTF-8 text ({whole.value.reason} at byte {whole.value.start})"]
