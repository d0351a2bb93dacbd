"""factgenie campaigns read into a corpus and written back (interop.formats.factgenie)."""

import json
import shutil
from pathlib import Path

import pytest

from bundles.problems import Problems
from interop.corpus import MAIN, MODEL, Annotation, Corpus, Document, Region
from interop.formats import factgenie

FILES = Path(__file__).parent / "files" / "factgenie"
CATEGORIES = ["Incorrect", "Not checkable", "Misleading", "Other"]


def read(path, **options):
    problems = Problems()
    corpus = factgenie.read(path, Path(path).name, problems, **options)
    return corpus, problems


def messages(problems):
    return [(problem.line, problem.message) for problem in problems.items]


def spans(corpus, annotation):
    text = next(d.text for d in corpus.documents if d.id == annotation.document)
    return [(text[r.start : r.end], r.label, r.note) for r in annotation.regions]


def json_lines(path):
    return [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]


def test_an_llm_campaign_gives_the_evaluators_spans_with_category_names_and_reasons():
    corpus, problems = read(FILES / "llm-eval-1")

    assert not problems, messages(problems)
    assert corpus.labels == CATEGORIES
    assert [d.id for d in corpus.documents] == [
        "openweather/test/gpt-4o/0",
        "openweather/test/gpt-4o/1",
        "openweather/test/gpt-4o/2",
    ]
    assert corpus.documents[0].system == "gpt-4o"
    assert corpus.documents[0].meta == {
        "dataset": "openweather",
        "split": "test",
        "setup_id": "gpt-4o",
        "example_idx": 0,
    }
    assert {(a.annotator, a.kind) for a in corpus.annotations} == {("llm-eval-1", MODEL)}
    first, second, nothing = corpus.annotations
    # The evaluator wrote "Rain" where the output says "rain": factgenie matches case-insensitively.
    assert spans(corpus, first) == [
        ("18°C", "Incorrect", "The forecast says 21°C."),
        ("東京", "Incorrect", "Tokyo is cloudy in the data."),
        ("rain 🌧️", "Not checkable", "The data gives no precipitation."),
    ]
    assert first.regions[2].text == "Rain 🌧️"
    # " Zu\u0308rich": an LLM's start is where the text begins once stripped.
    assert spans(corpus, second)[0] == ("Zu\u0308rich", "Incorrect", "The city is Basel.")
    assert nothing.regions == []


def test_a_crowdsourcing_campaign_counts_utf16_units_and_gives_one_annotation_per_annotator():
    corpus, problems = read(FILES / "human-1")

    assert not problems, messages(problems)
    assert [(a.document[-1], a.annotator, a.kind) for a in corpus.annotations] == [
        ("0", "5f9c2a", MAIN),
        ("1", "5f9c2a", MAIN),
        ("0", "61aa07", MAIN),
        ("1", "61aa07", MAIN),
    ]
    alice_0, alice_1, bob_0, bob_1 = corpus.annotations
    # 🌧️ is two code points but three UTF-16 units: the browser's start of "18°C;" is 39, Python's 38.
    assert alice_0.regions[0] == Region(
        38, 43, "Incorrect", text="18°C;", id="k3j9x0ab", note="21°C in the data"
    )
    assert spans(corpus, alice_0)[1] == ("東京,", "Incorrect", "")
    assert spans(corpus, alice_1) == [("☀️", "Other", "an emoji in a forecast")]
    assert spans(corpus, bob_0) == [("rain 🌧️", "Not checkable", "")]
    assert bob_1.regions == [] and bob_1.meta["factgenie"]["record"]["flags"] == [True]


@pytest.mark.parametrize("campaign", ["llm-eval-1", "human-1"])
def test_writing_a_campaign_that_was_read_gives_the_same_files_and_corpus(tmp_path, campaign):
    corpus, _ = read(FILES / campaign)

    factgenie.write(corpus, tmp_path / campaign)

    written = tmp_path / campaign
    assert json.loads((written / "metadata.json").read_text()) == json.loads(
        (FILES / campaign / "metadata.json").read_text()
    )
    originals = sorted(path.name for path in (FILES / campaign / "files").iterdir())
    assert sorted(path.name for path in (written / "files").iterdir()) == originals
    for name in originals:
        assert json_lines(written / "files" / name) == json_lines(FILES / campaign / "files" / name)
    again, problems = read(written)
    assert not problems and again == corpus


def test_a_records_file_inside_its_campaign_uses_the_campaigns_metadata():
    corpus, problems = read(FILES / "human-1" / "files" / "1-0-61aa07-1732180600.jsonl")

    assert not problems, messages(problems)
    assert corpus.labels == CATEGORIES
    assert spans(corpus, corpus.annotations[0]) == [("rain 🌧️", "Not checkable", "")]


def test_a_lone_records_file_numbers_its_categories_and_tells_an_llm_by_its_metadata(tmp_path):
    shutil.copy(
        FILES / "llm-eval-1" / "files" / "openweather-test-gpt-4o-1732096800.jsonl",
        tmp_path / "records.jsonl",
    )
    records = json_lines(tmp_path / "records.jsonl")
    for record in records:
        del record["metadata"]["annotation_span_categories"]
    (tmp_path / "records.jsonl").write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
    )

    corpus, problems = read(tmp_path / "records.jsonl")

    assert not problems, messages(problems)
    assert corpus.labels == ["category 0", "category 1", "category 2"]
    assert {a.kind for a in corpus.annotations} == {MODEL}
    factgenie.write(corpus, tmp_path / "again.jsonl")
    assert json_lines(tmp_path / "again.jsonl") == records


def test_records_without_their_output_text_take_it_from_factgenies_outputs(tmp_path):
    records = json_lines(FILES / "human-1" / "files" / "0-0-5f9c2a-1732179600.jsonl")
    outputs = tmp_path / "outputs" / "gpt-4o"
    outputs.mkdir(parents=True)
    keys = ("dataset", "split", "setup_id", "example_idx", "output")
    (outputs / "openweather-test.jsonl").write_text(
        "".join(json.dumps({key: r[key] for key in keys}, ensure_ascii=False) + "\n" for r in records)
    )
    for record in records:
        del record["output"]
    campaign = tmp_path / "human-1"
    (campaign / "files").mkdir(parents=True)
    shutil.copy(FILES / "human-1" / "metadata.json", campaign / "metadata.json")
    (campaign / "files" / "old.jsonl").write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records)
    )

    without, problems = read(campaign)
    assert messages(problems) == [
        (
            line,
            f"output 'openweather/test/gpt-4o/{line - 1}': the record has no 'output' text and no outputs file"
            " gives it (pass the factgenie outputs the campaign annotated)",
        )
        for line in (1, 2)
    ]
    assert without.documents == []

    corpus, problems = read(campaign, outputs=tmp_path / "outputs")
    assert not problems, messages(problems)
    assert spans(corpus, corpus.annotations[1]) == [("☀️", "Other", "an emoji in a forecast")]
    factgenie.write(corpus, tmp_path / "written")
    assert json_lines(tmp_path / "written" / "files" / "old.jsonl") == records


def test_another_formats_corpus_is_written_as_an_external_campaign(tmp_path):
    text = "Zu\u0308rich 🌧️ 東京 rain"
    corpus = Corpus(
        documents=[Document(id="doc-1", text=text, system="sys-a")],
        annotations=[
            Annotation(
                document="doc-1",
                annotator="ann",
                regions=[Region(0, 7, "LOC", note="not Basel"), Region(14, 18, "ERR")],
            ),
            Annotation(document="doc-1", annotator="gpt-4o", kind=MODEL),
        ],
        labels=["LOC", "ERR"],
    )

    factgenie.write(corpus, tmp_path / "campaign")

    metadata = json.loads((tmp_path / "campaign" / "metadata.json").read_text())
    assert metadata["mode"] == "external"
    assert [c["name"] for c in metadata["config"]["annotation_span_categories"]] == ["LOC", "ERR"]
    record, model = json_lines(tmp_path / "campaign" / "files" / "annotations.jsonl")
    assert model["metadata"] == {"annotator_id": "gpt-4o", "model": "gpt-4o"} and model["annotations"] == []
    assert record["annotations"] == [
        {"text": "Zu\u0308rich", "start": 0, "type": 0, "reason": "not Basel"},
        {"text": "rain", "start": 14, "type": 1, "reason": ""},
    ]
    again, problems = read(tmp_path / "campaign")
    assert not problems, messages(problems)
    assert spans(again, again.annotations[0]) == [("Zu\u0308rich", "LOC", "not Basel"), ("rain", "ERR", "")]
    assert [(a.annotator, a.kind) for a in again.annotations] == [("ann", MAIN), ("gpt-4o", MODEL)]


def test_every_problem_of_a_bad_records_file_is_reported_with_its_line():
    corpus, problems = read(FILES / "bad.jsonl")

    no_text = "the record has no 'output' text and no outputs file gives it (pass the factgenie outputs the campaign annotated)"
    assert messages(problems) == [
        (1, f"output 'd/s/m/0': {no_text}"),
        (2, "output 'd/s/m/1': annotation 2: end 44 is past the text's end (16 characters)"),
        (2, "output 'd/s/m/1': annotation 3: text 'Short' is not the text its offsets cover ('hort ')"),
        (2, "output 'd/s/m/1': annotation 4: start missing"),
        (2, "output 'd/s/m/1': annotation 5: text '' is not a stretch of the output"),
        (2, "output 'd/s/m/1': annotation 6: type -1 is not a category index"),
        (2, "output 'd/s/m/1': annotation 7: start '6' is not a whole number"),
        (2, "output 'd/s/m/1': annotation 8: must be an object, not a string"),
        (3, "record: dataset, setup_id, example_idx missing"),
        (4, "output 'd/s/m/1': its text differs from the one on bad.jsonl line 2"),
        (7, "record: example_idx 3.5 is not a whole number"),
        (8, "output 'd/s/m/4': annotations must be a list, not an object"),
        (9, "record: split 1.5 is not text"),
        (9, "record: setup_id ['m'] is not text"),
    ]
    assert spans(corpus, corpus.annotations[0]) == [("text", "category 0", "")]


def test_a_campaign_folder_without_metadata_or_records_is_a_problem(tmp_path):
    (tmp_path / "empty").mkdir()

    _, problems = read(tmp_path / "empty")

    assert messages(problems) == [
        (0, "cannot read the file: No such file or directory"),
        (0, "the campaign has no files/*.jsonl of annotation records"),
    ]


@pytest.mark.parametrize(
    "metadata, problem",
    [
        ('{"mode": "crowdsourcing", "config": []}', "'config' must be an object"),
        (
            '{"mode": "crowdsourcing", "config": {"annotation_span_categories": "Incorrect"}}',
            "config.annotation_span_categories must be a list of objects with a 'name'",
        ),
        (
            '{"mode": "crowdsourcing", "config": {"annotation_span_categories": [{"name": "A"}, {"name": "A"}]}}',
            "config.annotation_span_categories name a category twice",
        ),
        ('{"mode": "llm_gen", "config": {}}', "campaign mode 'llm_gen' holds no span annotations"),
        (
            '{"mode": "crowdsourcing", ',
            "not JSON: Expecting property name enclosed in double quotes (column 27)",
        ),
    ],
)
def test_a_bad_metadata_json_is_one_problem_and_the_records_are_still_checked(tmp_path, metadata, problem):
    shutil.copytree(FILES / "human-1", tmp_path / "human-1")
    (tmp_path / "human-1" / "metadata.json").write_text(metadata)

    corpus, problems = read(tmp_path / "human-1")

    assert [str(p) for p in problems.items] == [f"human-1/metadata.json:0: {problem}"]
    assert len(corpus.annotations) == 4


def test_a_crowdsourcing_records_file_read_alone_still_counts_utf16_units(tmp_path):
    shutil.copy(FILES / "human-1" / "files" / "0-0-5f9c2a-1732179600.jsonl", tmp_path / "alone.jsonl")

    corpus, problems = read(tmp_path / "alone.jsonl")

    assert not problems, messages(problems)
    assert spans(corpus, corpus.annotations[0])[0] == ("18°C;", "Incorrect", "21°C in the data")
    assert {a.kind for a in corpus.annotations} == {MAIN}
    factgenie.write(corpus, tmp_path / "again.jsonl")
    assert json_lines(tmp_path / "again.jsonl") == json_lines(tmp_path / "alone.jsonl")
