"""The corpus as a Parquet file that Hugging Face datasets reads (interop.formats.hf)."""

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from bundles.problems import Problems
from interop.corpus import GOLD, MODEL, Annotation, Corpus, Document, Link, Region
from interop.formats import doccano, hf

FILES = Path(__file__).parent / "files"
TEXT = "🥔 in 東京 is nai\u0308ve"


def corpus():
    return Corpus(
        documents=[
            Document(id="d1", text=TEXT, system="sys-a"),
            Document(id="d2", text="Nothing wrong here.", system="sys-b"),
            Document(id="unannotated", text="No row for me."),
        ],
        annotations=[
            Annotation(
                document="d1",
                annotator="alice",
                regions=[Region(0, 1, "FOOD", id="r1", note="a potato"), Region(5, 7, "LOC", id="r2")],
                links=[Link("r1", "r2", "in")],
                seconds=42,
            ),
            Annotation(document="d1", annotator="gpt-4o", kind=MODEL, regions=[Region(11, 17, "WORD")]),
            Annotation(document="d2", annotator="expert", kind=GOLD),
        ],
        labels=["FOOD", "LOC", "WORD"],
        link_labels=["in"],
    )


def test_one_row_per_annotation_with_spans_and_links_as_lists_of_structs(tmp_path):
    hf.write(corpus(), tmp_path / "corpus.parquet")

    table = pq.read_table(tmp_path / "corpus.parquet")
    assert table.column_names == [
        "document_id",
        "text",
        "system",
        "annotator",
        "kind",
        "seconds",
        "spans",
        "links",
    ]
    rows = table.to_pylist()
    assert [(r["document_id"], r["annotator"], r["kind"], r["system"]) for r in rows] == [
        ("d1", "alice", "main", "sys-a"),
        ("d1", "gpt-4o", "model", "sys-a"),
        ("d2", "expert", "gold", "sys-b"),
    ]
    assert rows[0]["text"] == TEXT and rows[0]["seconds"] == 42
    assert rows[0]["spans"] == [
        {"id": "r1", "start": 0, "end": 1, "label": "FOOD", "text": "🥔", "note": "a potato"},
        {"id": "r2", "start": 5, "end": 7, "label": "LOC", "text": "東京", "note": ""},
    ]
    assert rows[0]["links"] == [{"source": "r1", "target": "r2", "label": "in"}]
    assert rows[1]["spans"][0]["text"] == "nai\u0308ve"
    assert rows[2]["spans"] == [] and rows[2]["links"] == []  # found nothing
    metadata = table.schema.metadata
    assert json.loads(metadata[b"labels"]) == ["FOOD", "LOC", "WORD"]
    assert metadata[b"offsets"] == b"Unicode code points into text, end exclusive"


def test_a_read_corpus_exports_with_code_point_offsets(tmp_path):
    problems = Problems()
    read = doccano.read(FILES / "doccano" / "alice.jsonl", "alice.jsonl", problems)

    hf.write(read, tmp_path / "alice.parquet")

    rows = pq.read_table(tmp_path / "alice.parquet").to_pylist()
    emoji = next(r for r in rows if r["document_id"] == "2")
    assert [(s["start"], s["end"], s["text"]) for s in emoji["spans"]] == [(19, 29, "firetrucks")]
    assert all(r["text"][s["start"] : s["end"]] == s["text"] for r in rows for s in r["spans"])


def test_an_empty_corpus_is_a_valid_empty_file(tmp_path):
    hf.write(Corpus(), tmp_path / "empty.parquet")

    table = pq.read_table(tmp_path / "empty.parquet")
    assert table.num_rows == 0 and "spans" in table.column_names


def test_datasets_loads_the_file_as_it_is(tmp_path):
    datasets = pytest.importorskip("datasets")
    hf.write(corpus(), tmp_path / "corpus.parquet")

    dataset = datasets.load_dataset(
        "parquet",
        data_files=str(tmp_path / "corpus.parquet"),
        split="train",
        cache_dir=str(tmp_path / "cache"),
    )

    assert dataset.num_rows == 3
    assert dataset[0]["spans"][1] == {
        "id": "r2",
        "start": 5,
        "end": 7,
        "label": "LOC",
        "text": "東京",
        "note": "",
    }
    assert dataset[1]["kind"] == "model"


def test_reading_is_refused_as_a_problem():
    problems = Problems()

    assert hf.read("corpus.parquet", "corpus.parquet", problems) == Corpus()
    assert [str(p) for p in problems.items] == [
        "corpus.parquet:0: the Hugging Face (Parquet) format is export only: it cannot be imported"
    ]


def test_rows_held_as_arrow_batches_write_the_bytes_of_whole_row_groups(tmp_path, monkeypatch):
    many = corpus()
    for number in range(20):
        many.annotations.append(
            Annotation(document="d1", annotator=f"w{number}", regions=[Region(number % 5, 7, "LOC", id="r1")])
        )
    monkeypatch.setattr(hf, "ROW_GROUP", 7)
    monkeypatch.setattr(hf, "BATCH", 10**9)  # every row group made from its rows at once
    hf.write(many, tmp_path / "whole.parquet")
    monkeypatch.setattr(hf, "BATCH", 3)  # rows turned into Arrow three at a time
    hf.write(many, tmp_path / "batched.parquet")
    assert (tmp_path / "batched.parquet").read_bytes() == (tmp_path / "whole.parquet").read_bytes()
    assert pq.ParquetFile(tmp_path / "batched.parquet").metadata.num_row_groups == 4  # 23 rows, 7 a group
