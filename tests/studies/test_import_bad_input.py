"""Bundles with text that nothing can store: a `file:line: message` and nothing written.

NUL and lone surrogates break only when they reach the database (PostgreSQL
cannot store NUL at all), so run this file on PostgreSQL too. Every surface is
covered: import_bundle (the service), the import_study command, and admin's
"Import a study bundle" and "Add documents".
"""

import io
import json
import zipfile

import pytest
import yaml
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError
from django.urls import reverse

from annotations.models import Assignment
from bundles import BundleInvalid
from bundles.services import study_import_bundle
from studies.models import Document, Segment, Study, Taxonomy
from tests.bundles import annotation, study_yaml, write_bundle
from tests.factories import make_span_study
from tests.reviews.bundles import write_review_bundle

pytestmark = pytest.mark.django_db

GOOD_ASSIGNMENT = {"document": "d1", "annotator": "w1",
                   "annotations": [annotation(1, "CharE", 0, 13, "Miss Sessions")]}  # fmt: skip
NESTED = {
    "list-10k": "[" * 10_000 + "]" * 10_000,
    "object-10k": '{"a":' * 10_000 + "1" + "}" * 10_000,
    "list-100k": "[" * 100_000 + "]" * 100_000,
    "unclosed-100k": "[" * 100_000,
}


def lines(*records):
    return "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records)


def document(**extra):
    return {"id": "d3", "segments": ["A third text."], **extra}


def assignment(**extra):
    return {**GOOD_ASSIGNMENT, "annotator": "w3", **extra}


# (file, its line 3 as JSON text, a part of the message)
JSONL_CASES = {
    "doc-segment-nul": ("documents.jsonl", document(segments=["A th\x00ird text."]), "at segments[0] contains a NUL"),
    "doc-segment-surrogate": ("documents.jsonl", document(segments=["\ud800"]), "lone surrogate (\\ud800)"),
    "doc-id-nul": ("documents.jsonl", document(id="d\x003"), "at id contains a NUL"),
    "doc-meta-nul": ("documents.jsonl", document(meta={"rows": [["a", "\x00"]]}), "at meta.rows[0][1]"),
    "doc-meta-key-nul": ("documents.jsonl", document(meta={"\x00": 1}), "a key in meta contains a NUL"),
    "doc-meta-key-surrogate": ("documents.jsonl", document(meta={"\udfff": 1}), "lone surrogate (\\udfff)"),
    "doc-meta-nan": ("documents.jsonl", json.dumps(document(meta={"x": float("nan")})), "at meta.x is not finite"),
    "doc-meta-1e400": ("documents.jsonl", '{"id": "d3", "segments": ["x"], "meta": {"x": 1e400}}', "not finite"),
    "doc-huge-integer": ("documents.jsonl", '{"id": "d3", "segments": ["x"], "meta": {"n": ' + "7" * 5000 + "}}",
                         "more than 4300 digits"),
    "doc-depth-65": ("documents.jsonl", document(meta={"t": json.loads("[" * 63 + "]" * 63)}),
                     "nested more than 64 levels deep at meta.t[0][0]..."),
    "assignment-annotator-nul": ("assignments.jsonl", assignment(annotator="w\x00"), "at annotator contains a NUL"),
    "assignment-annotator-surrogate": ("assignments.jsonl", assignment(annotator="w\udc00"), "lone surrogate"),
    "assignment-comment-nul": (
        "assignments.jsonl",
        assignment(annotations=[annotation(1, "CharE", 0, 13, "Miss Sessions", comment="\x00")]),
        "at annotations[0].comment contains a NUL",
    ),
    "assignment-block-surrogate": ("assignments.jsonl", assignment(block="\ud83d"), "at block contains a lone"),
    **{
        f"{file.split('.')[0]}-{name}": (file, raw, "nested more than 64 levels deep")
        for file in ("documents.jsonl", "assignments.jsonl")
        for name, raw in NESTED.items()
    },
}  # fmt: skip


def jsonl_bundle(directory, file, bad_line):
    """A good bundle whose `file` gets `bad_line` as its line 3."""
    write_bundle(directory, assignments=[GOOD_ASSIGNMENT, {**GOOD_ASSIGNMENT, "annotator": "w2"}])
    path = directory / file
    path.write_text(path.read_text() + lines(bad_line))
    return directory


def import_problems(directory):
    with pytest.raises(BundleInvalid) as caught:
        study_import_bundle(directory=directory)
    return [str(problem) for problem in caught.value.problems]


def assert_nothing_written(documents=0, segments=0, taxonomies=0):
    assert Study.objects.count() == (1 if documents else 0)
    assert Document.objects.count() == documents
    assert Segment.objects.count() == segments
    assert Assignment.objects.count() == 0
    assert Taxonomy.objects.count() == taxonomies


@pytest.mark.parametrize(("file", "bad_line", "message"), JSONL_CASES.values(), ids=JSONL_CASES.keys())
def test_a_bad_jsonl_line_is_a_problem_of_its_line(tmp_path, file, bad_line, message):
    problems = import_problems(jsonl_bundle(tmp_path, file, bad_line))
    assert [p for p in problems if p.startswith(f"{file}:3: ")], problems
    assert any(message in p for p in problems if p.startswith(f"{file}:3: ")), problems
    assert_nothing_written()


def test_the_first_bad_value_in_reading_order_is_named(tmp_path):
    bad = document(segments=["ok", "\x00"], meta={"a": "\ud800"})
    problems = import_problems(jsonl_bundle(tmp_path, "documents.jsonl", bad))
    assert (
        "documents.jsonl:3: the text at segments[1] contains a NUL character (\\u0000), which cannot be stored"
        in problems
    )


def test_real_meta_tables_are_well_within_the_depth_limit(tmp_path):
    meta = {"data": {"tables": [{"title": "Box", "columns": ["player", "pts"], "rows": [["Young", 30]]}]}}
    directory = jsonl_bundle(tmp_path, "documents.jsonl", document(meta=meta))
    study = study_import_bundle(directory=directory).study
    assert study.documents.get(external_id="d3").meta == meta


@pytest.mark.parametrize(
    ("item", "message"),
    [
        (
            {"explanation": "Wrong \x00 score."},
            "review_items.jsonl:2: the text at explanation contains a NUL",
        ),
        ({"evaluator": "\ud800"}, "review_items.jsonl:2: the text at evaluator contains a lone surrogate"),
        (
            {
                "span": [
                    [
                        [
                            [
                                [
                                    [
                                        [
                                            [
                                                [
                                                    [
                                                        [
                                                            [
                                                                [
                                                                    [
                                                                        [
                                                                            [
                                                                                [
                                                                                    [
                                                                                        [
                                                                                            [
                                                                                                [
                                                                                                    [
                                                                                                        [
                                                                                                            [
                                                                                                                [
                                                                                                                    [
                                                                                                                        [
                                                                                                                            [
                                                                                                                                [
                                                                                                                                    [
                                                                                                                                        [
                                                                                                                                            [
                                                                                                                                                [
                                                                                                                                                    [
                                                                                                                                                        [
                                                                                                                                                            [
                                                                                                                                                                [
                                                                                                                                                                    [
                                                                                                                                                                        [
                                                                                                                                                                            [
                                                                                                                                                                                [
                                                                                                                                                                                    [
                                                                                                                                                                                        [
                                                                                                                                                                                            [
                                                                                                                                                                                                [
                                                                                                                                                                                                    [
                                                                                                                                                                                                        [
                                                                                                                                                                                                            [
                                                                                                                                                                                                                [
                                                                                                                                                                                                                    [
                                                                                                                                                                                                                        [
                                                                                                                                                                                                                            [
                                                                                                                                                                                                                                [
                                                                                                                                                                                                                                    [
                                                                                                                                                                                                                                        [
                                                                                                                                                                                                                                            [
                                                                                                                                                                                                                                                [
                                                                                                                                                                                                                                                    [
                                                                                                                                                                                                                                                        [
                                                                                                                                                                                                                                                            [
                                                                                                                                                                                                                                                                [
                                                                                                                                                                                                                                                                    [
                                                                                                                                                                                                                                                                        [
                                                                                                                                                                                                                                                                            [
                                                                                                                                                                                                                                                                                "x"
                                                                                                                                                                                                                                                                            ]
                                                                                                                                                                                                                                                                        ]
                                                                                                                                                                                                                                                                    ]
                                                                                                                                                                                                                                                                ]
                                                                                                                                                                                                                                                            ]
                                                                                                                                                                                                                                                        ]
                                                                                                                                                                                                                                                    ]
                                                                                                                                                                                                                                                ]
                                                                                                                                                                                                                                            ]
                                                                                                                                                                                                                                        ]
                                                                                                                                                                                                                                    ]
                                                                                                                                                                                                                                ]
                                                                                                                                                                                                                            ]
                                                                                                                                                                                                                        ]
                                                                                                                                                                                                                    ]
                                                                                                                                                                                                                ]
                                                                                                                                                                                                            ]
                                                                                                                                                                                                        ]
                                                                                                                                                                                                    ]
                                                                                                                                                                                                ]
                                                                                                                                                                                            ]
                                                                                                                                                                                        ]
                                                                                                                                                                                    ]
                                                                                                                                                                                ]
                                                                                                                                                                            ]
                                                                                                                                                                        ]
                                                                                                                                                                    ]
                                                                                                                                                                ]
                                                                                                                                                            ]
                                                                                                                                                        ]
                                                                                                                                                    ]
                                                                                                                                                ]
                                                                                                                                            ]
                                                                                                                                        ]
                                                                                                                                    ]
                                                                                                                                ]
                                                                                                                            ]
                                                                                                                        ]
                                                                                                                    ]
                                                                                                                ]
                                                                                                            ]
                                                                                                        ]
                                                                                                    ]
                                                                                                ]
                                                                                            ]
                                                                                        ]
                                                                                    ]
                                                                                ]
                                                                            ]
                                                                        ]
                                                                    ]
                                                                ]
                                                            ]
                                                        ]
                                                    ]
                                                ]
                                            ]
                                        ]
                                    ]
                                ]
                            ]
                        ]
                    ]
                ]
            },
            "review_items.jsonl:2: nested more than 64 levels deep at span[0][0][0]...",
        ),
    ],
)
def test_bad_review_items_are_problems_of_their_line(tmp_path, item, message):
    directory = write_review_bundle(tmp_path)
    path = directory / "review_items.jsonl"
    first, *rest = path.read_text().splitlines(keepends=True)
    good = {"document": "game1", "evaluator": "gpt-4o", "span": "Young", "explanation": "Bad."}
    path.write_text(first + lines({**good, **item}) + "".join(rest))
    problems = import_problems(directory)
    assert any(p.startswith(message) for p in problems), problems
    assert_nothing_written()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{\n  "good": ["Fine."],\n  "bad": ["Fi\\u0000ne."]\n}\n',
         "documents.json:3: the text at bad[0] contains a NUL character"),
        ('{\n  "good": ["Fine."],\n  "bad": {"sentences": ["\\ud800"]}\n}\n',
         "documents.json:3: the text at bad.sentences[0] contains a lone surrogate"),
        ('{\n  "good": ["Fine."],\n  "\\u0000": ["x"]\n}\n', "documents.json:0: a key contains a NUL"),
        ('{\n  "good": ["Fine."],\n  "deep": ' + "[" * 10_000 + "]" * 10_000 + "\n}\n",
         "documents.json:3: nested more than 64 levels deep (column 74)"),
        ('{"deep": ' + "[" * 100_000, "documents.json:1: nested more than 64 levels deep (column 73)"),
        ('{\n  "good": ["Fine."],\n  "deep": ' + "[" * 70 + "]" * 70 + "\n}\n",
         "documents.json:3: nested more than 64 levels deep at deep[0][0][0]..."),
    ],
    ids=["nul", "surrogate", "nul-key", "deep-10k", "unclosed-100k", "depth-71"],
)  # fmt: skip
def test_falte_json_problems_name_the_line(tmp_path, text, expected):
    directory = write_bundle(tmp_path)
    (directory / "documents.jsonl").unlink()
    (directory / "documents.json").write_text(text)
    problems = import_problems(directory)
    assert any(p.startswith(expected) for p in problems), problems
    assert_nothing_written()


STUDY_YAML_CASES = {
    "nul-escape": ('title: "A \\0 study"\n', "study.yaml:1: the text at title contains a NUL character"),
    "surrogate-escape": ('instructions: "Mark \\ud800 errors."\n',
                         "study.yaml:1: the text at instructions contains a lone surrogate (\\ud800)"),
    "nul-key": ('config: {"\\0": 1}\n', "study.yaml:1: a key in config contains a NUL"),
    "raw-nul": ("title: A \x00 study\n", "study.yaml:1: invalid YAML: unacceptable character #x0000"),
    "deep-10k": ("config: " + "[" * 10_000 + "]" * 10_000 + "\n", "study.yaml:0: invalid YAML: nested more than 64"),
    "deep-100k": ("config: " + "[" * 100_000 + "\n", "study.yaml:"),
    "depth-70": ("config: " + "[" * 70 + "]" * 70 + "\n", "study.yaml:1: nested more than 64 levels deep at config[0]"),
    "nan": ("config: {x: .nan}\n", "study.yaml:1: the number at config.x is not finite"),
}  # fmt: skip


def study_yaml_text(first_line):
    """study.yaml with `first_line` in place of the setting it names."""
    fields = study_yaml()
    fields.pop(first_line.split(":")[0], None)
    return first_line + yaml.safe_dump(fields, sort_keys=False)


@pytest.mark.parametrize(("first_line", "expected"), STUDY_YAML_CASES.values(), ids=STUDY_YAML_CASES.keys())
def test_bad_study_yaml_is_a_problem_of_its_line(tmp_path, first_line, expected):
    directory = write_bundle(tmp_path)
    (directory / "study.yaml").write_text(study_yaml_text(first_line))
    problems = import_problems(directory)
    assert any(p.startswith(expected) for p in problems), problems
    assert_nothing_written()


def test_a_nul_deep_in_study_yaml_names_the_line_of_its_mapping(tmp_path):
    text = yaml.safe_dump(study_yaml(), sort_keys=False).replace(
        "label: Abrupt scene", 'label: "Abrupt\\0scene"'
    )
    line = text.splitlines().index("  - key: SceneE") + 1
    directory = write_bundle(tmp_path)
    (directory / "study.yaml").write_text(text)
    assert import_problems(directory) == [
        f"study.yaml:{line}: the text at taxonomy.categories[1].label contains a NUL character (\\u0000), "
        "which cannot be stored"
    ]
    assert_nothing_written()


@pytest.mark.parametrize("file", ["study.yaml", "documents.jsonl", "documents.json", "assignments.jsonl"])
def test_a_file_that_is_not_utf8_is_a_problem_of_the_file(tmp_path, file):
    directory = write_bundle(tmp_path, assignments=[GOOD_ASSIGNMENT])
    if file == "documents.json":
        (directory / "documents.jsonl").unlink()
    path = directory / file
    path.write_bytes((path.read_bytes() if path.exists() else b'{"d": ["x"]}') + b'\n{"\xff\xfe": 1}\n')
    problems = import_problems(directory)
    assert any(p.startswith(f"{file}:0: not UTF-8 text") for p in problems), problems
    assert_nothing_written()


# The other surfaces: the command and admin ----------------------------------------


def test_the_command_prints_the_problem_and_exits_non_zero(tmp_path, capsys):
    directory = jsonl_bundle(tmp_path, "documents.jsonl", NESTED["list-100k"])
    with pytest.raises(CommandError, match="nothing was imported"):
        call_command("import_study", str(directory))
    assert "documents.jsonl:3: nested more than 64 levels deep (column 65)" in capsys.readouterr().err
    assert_nothing_written()


def make_zip(directory):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for path in directory.iterdir():
            archive.writestr(path.name, path.read_bytes())
    return buffer.getvalue()


@pytest.mark.parametrize(
    "case", ["doc-segment-nul", "doc-segment-surrogate", "assignment-comment-nul", "documents-list-100k"]
)
def test_the_admin_upload_lists_the_problem_and_imports_nothing(client, researcher, tmp_path, case):
    file, bad_line, _ = JSONL_CASES[case]
    content = make_zip(jsonl_bundle(tmp_path, file, bad_line))
    client.force_login(researcher)
    upload = SimpleUploadedFile("bundle.zip", content, content_type="application/zip")
    response = client.post(reverse("admin:studies_study_import"), {"bundle": upload})
    assert response.status_code == 200
    page = response.content.decode()
    assert f"{file}:3: " in page
    assert "Nothing was imported." in page
    assert_nothing_written()


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        ("documents.jsonl", lines(document(id="n1"), document(id="n2", segments=["\x00"])),
         "documents.jsonl:2: the text at segments[0] contains a NUL character"),
        ("documents.jsonl", lines(document(id="n1"), document(id="n2", meta={"s": "\ud800"})),
         "documents.jsonl:2: the text at meta.s contains a lone surrogate"),
        ("documents.jsonl", lines(document(id="n1")) + NESTED["list-10k"] + "\n",
         "documents.jsonl:2: nested more than 64 levels deep"),
        ("documents.json", '{"n1": ["ok"],\n "n2": ["\\u0000"]}', "documents.json:2: the text at n2[0] contains a NUL"),
    ],
    ids=["nul", "surrogate", "deep", "falte-nul"],
)  # fmt: skip
def test_admin_add_documents_lists_the_problem_and_adds_nothing(client, researcher, name, text, expected):
    study = make_span_study(researcher=researcher, documents=1)
    before = (Document.objects.count(), Segment.objects.count())
    client.force_login(researcher)
    upload = SimpleUploadedFile(name, text.encode(), content_type="application/octet-stream")
    response = client.post(
        reverse("admin:studies_study_add_documents", args=[study.pk]), {"documents": upload}
    )
    assert response.status_code == 200
    assert expected in response.content.decode().replace("&#x27;", "'")
    assert (Document.objects.count(), Segment.objects.count()) == before


def test_repeated_yaml_aliases_are_refused_not_walked(tmp_path):
    """A few hundred bytes of nested aliases stand for 10**12 values: refused once the walk has
    counted more values than any document holds, long before the end."""
    bomb = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
    for level in "bcdefghijkl":
        previous = chr(ord(level) - 1)
        bomb.append(f"{level}: &{level} [*{previous}, *{previous}, *{previous}, *{previous}, *{previous}, "
                    f"*{previous}, *{previous}, *{previous}, *{previous}, *{previous}]")  # fmt: skip
    text = yaml.safe_dump(study_yaml(), sort_keys=False) + "config:\n  " + "\n  ".join(bomb) + "\n"
    directory = write_bundle(tmp_path)
    (directory / "study.yaml").write_text(text)
    problems = import_problems(directory)
    assert any("more than 2,000,000 values" in problem for problem in problems), problems
    assert_nothing_written()
