"""Researchers export a span study as training data for error detectors (SNaC, section 5 and
appendix C): labelled sentences and segments, union spans, and a document-level split."""

import json

import pandas
import polars
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from django.core.management import CommandError, call_command

from annotations.models import Assignment
from evaluators.training import split_documents, split_unit
from studies.models import Category, Document
from tests.factories import (
    AssignmentFactory,
    CategoryFactory,
    DocumentFactory,
    ErrorAnnotationFactory,
    SegmentFactory,
    StudyFactory,
    WorkerFactory,
)

pytestmark = pytest.mark.django_db

# Anna(0,4) met(5,8) Ben(9,12) .(12) | He(14,16) left(17,21) .(21) | Rain(23,27) fell(28,32) .(32)
FIRST = "Anna met Ben. He left. Rain fell."
# A combining diaeresis, an emoji outside the BMP and CJK, then a family emoji of five code
# points: offsets count code points, not UTF-16 units or bytes.
OPENING = "Zoe\u0308 saw 😀 at 東京."
CLOSING = "👩\u200d👩\u200d👧 slept."
SECOND = f"{OPENING} {CLOSING}"
FAMILY = (len(OPENING) + 1, len(OPENING) + 6)
LABELS = ["label_CharE", "label_SceneE", "label_RepE", "label_GramE"]
GROUPS = ["group_coherence", "group_language", "group_fluency"]


def mark(assignment, segment, key, start, end, **paired):
    category = Category.objects.get(taxonomy=assignment.study.taxonomy, key=key)
    ErrorAnnotationFactory(
        assignment=assignment, segment=segment, category=category, start=start, end=end,
        text=segment.text[start:end], **paired,
    )  # fmt: skip


def read(assignment_kind, document, worker, status=Assignment.Status.SUBMITTED):
    return AssignmentFactory(document=document, worker=worker, kind=assignment_kind, status=status)


def document(study, external_id, texts, *, sentences=None, kind=Document.Kind.MAIN, **fields):
    made = DocumentFactory(study=study, external_id=external_id, kind=kind, **fields)
    segments = [SegmentFactory(document=made, index=index, text=text) for index, text in enumerate(texts)]
    for segment, given in zip(segments, sentences or [], strict=False):
        segment.sentences = given
        segment.save()
    return made, segments


@pytest.fixture
def study():
    """d1 read by A and B (worked example), d2 read by A who found nothing, d3 only by a model,
    q1 a qualification document; expert gold on d1; model, qualification and unsubmitted work."""
    study = StudyFactory(slug="snac-train", protocol="span")
    for order, (key, group) in enumerate(
        [("CharE", "coherence"), ("SceneE", "coherence"), ("RepE", "language"), ("GramE", "fluency")]
    ):
        kind = Category.Kind.PAIRED if key == "RepE" else Category.Kind.SINGLETON
        CategoryFactory(taxonomy=study.taxonomy, key=key, group=group, kind=kind, order=order)
    d1, (first, second) = document(
        study, "d1", [FIRST, SECOND], input_id="book1", position=0,
        sentences=[[[0, 13], [14, 22], [23, 33]], [[0, len(OPENING)], [FAMILY[0], len(SECOND)]]],
    )  # fmt: skip
    d2, _ = document(study, "d2", ["Tom slept. Tom woke."], input_id="book1", system="sysB", position=1)
    d3, (third,) = document(study, "d3", ["Rain fell."], input_id="book2", position=2)
    q1, (trial,) = document(study, "q1", [FIRST], kind=Document.Kind.QUALIFICATION, position=3)
    a, b, c, expert, model = (WorkerFactory() for _ in range(5))

    by_a = read("main", d1, a)
    mark(by_a, first, "CharE", 0, 4)
    mark(by_a, first, "CharE", 9, 12)
    mark(by_a, first, "SceneE", 9, 18)  # "Ben. He l": crosses sentences 0 and 1
    mark(by_a, first, "RepE", 23, 27, paired_segment=first, paired_start=0, paired_end=4, paired_text="Anna")
    mark(by_a, second, "CharE", OPENING.index("😀"), OPENING.index("東") + 1)
    mark(by_a, second, "SceneE", *FAMILY)
    by_b = read("main", d1, b)
    mark(by_b, first, "CharE", 2, 10)  # links both of A's CharE spans
    mark(by_b, first, "CharE", 12, 16)  # only touches the linked ones at 12
    mark(by_b, second, "CharE", OPENING.index("東"), len(OPENING) + 1)  # ends where sentence 4 starts
    read("main", d2, a)

    for kind, reader in [("model", model), ("qualification", a)]:
        mark(read(kind, d1, reader), first, "GramE", 0, len(FIRST))
    mark(read("main", d1, c, status=Assignment.Status.IN_PROGRESS), first, "GramE", 0, 4)
    mark(read("model", d3, model), third, "CharE", 0, 4)
    mark(read("main", q1, a), trial, "CharE", 0, 4)

    by_expert = read("gold", d1, expert)
    mark(by_expert, first, "GramE", 28, 32)
    mark(by_expert, second, "SceneE", 0, 3)
    return study


def export(study, out, *args):
    call_command("export_training_data", study.slug, str(out), *args)
    return out


def lines(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def labels(row):
    return [row[name] for name in LABELS + GROUPS]


def test_sentence_and_segment_labels_of_the_worked_example(study, tmp_path):
    out = export(study, tmp_path / "out")
    sentences = [row for row in lines(out / "sentences.jsonl") if row["document"] == "d1"]
    assert [(row["segment"], row["sentence"], row["start"], row["end"]) for row in sentences] == [
        (0, 0, 0, 13), (0, 1, 14, 22), (0, 2, 23, 33), (1, 3, 0, len(OPENING)), (1, 4, FAMILY[0], len(SECOND)),
    ]  # fmt: skip
    assert [row["text"] for row in sentences] == ["Anna met Ben.", "He left.", "Rain fell.", OPENING, CLOSING]
    # CharE, SceneE, RepE, GramE | coherence, language, fluency. Sentence 1 has CharE from B's
    # ". He" and SceneE from A's span across sentences; B's CharE in segment 1 ends where
    # sentence 4 starts (end exclusive), so sentence 4 has only A's SceneE; nobody used GramE.
    assert [labels(row) for row in sentences] == [
        [1, 1, 0, 0, 1, 0, 0],
        [1, 1, 0, 0, 1, 0, 0],
        [0, 0, 1, 0, 0, 1, 0],
        [1, 0, 0, 0, 1, 0, 0],
        [0, 1, 0, 0, 1, 0, 0],
    ]
    assert {row["annotators"] for row in sentences} == {2}
    assert {row["system"] for row in sentences} == {"sysA"}

    segments = lines(out / "segments.jsonl")
    assert [(row["document"], row["segment"], row["text"]) for row in segments] == [
        ("d1", 0, FIRST), ("d1", 1, SECOND), ("d2", 0, "Tom slept. Tom woke."),
    ]  # fmt: skip
    assert [labels(row) for row in segments] == [[1, 1, 1, 0, 1, 1, 0], [1, 1, 0, 0, 1, 0, 0], [0] * 7]
    assert [row["annotators"] for row in segments] == [2, 2, 1]
    assert list(segments[0]) == [
        "document",
        "system",
        "split",
        "segment",
        "text",
        *LABELS,
        *GROUPS,
        "annotators",
    ]


def test_union_spans_merge_transitively_count_annotators_and_slice_code_points(study, tmp_path):
    out = export(study, tmp_path / "out")
    spans = lines(out / "spans.jsonl")
    emoji = OPENING.index("😀")
    assert [
        (s["category"], s["group"], s["segment"], s["start"], s["end"], s["annotators"]) for s in spans
    ] == [
        ("CharE", "coherence", 0, 0, 12, 2),  # A's "Anna" and "Ben" joined through B's "na met B"
        ("CharE", "coherence", 0, 12, 16, 1),  # touches the first at 12: stays apart
        ("CharE", "coherence", 1, emoji, len(OPENING) + 1, 2),
        ("SceneE", "coherence", 0, 9, 18, 1),
        ("SceneE", "coherence", 1, *FAMILY, 1),
        ("RepE", "language", 0, 23, 27, 1),
    ]
    assert [s["text"] for s in spans] == [
        "Anna met Ben",
        ". He",
        "😀 at 東京. ",
        "Ben. He l",
        CLOSING[:5],
        "Rain",
    ]
    texts = {0: FIRST, 1: SECOND}
    assert all(s["text"] == texts[s["segment"]][s["start"] : s["end"]] for s in spans)
    assert {(s["document"], s["split"]) for s in spans} == {("d1", "train")}


def test_model_spans_qualification_documents_and_unsubmitted_work_never_enter(study, tmp_path):
    out = export(study, tmp_path / "out")
    for table in ("sentences", "segments", "spans"):
        rows = lines(out / f"{table}.jsonl")
        assert {row["document"] for row in rows} <= {"d1", "d2"}
        assert "GramE" not in {row.get("category") for row in rows}
        assert all(row.get("label_GramE", 0) == 0 and row.get("group_fluency", 0) == 0 for row in rows)
    split = json.loads((out / "split.json").read_text())
    assert split["documents"] == {"train": ["d1", "d2"], "dev": [], "test": []}
    assert split["left_out"] == ["d3"]  # a model's spans alone do not make a document labelled


def test_gold_reference_labels_with_expert_spans_and_leaves_out_documents_without_gold(study, tmp_path):
    out = export(study, tmp_path / "out", "--reference", "gold")
    sentences = lines(out / "sentences.jsonl")
    assert [labels(row) for row in sentences] == [
        [0, 0, 0, 0, 0, 0, 0],
        [0, 0, 0, 0, 0, 0, 0],
        [0, 0, 0, 1, 0, 0, 1],
        [0, 1, 0, 0, 1, 0, 0],
        [0, 0, 0, 0, 0, 0, 0],
    ]
    assert {(row["document"], row["annotators"]) for row in sentences} == {("d1", 1)}
    spans = lines(out / "spans.jsonl")
    assert [(s["category"], s["segment"], s["text"]) for s in spans] == [
        ("SceneE", 1, "Zoe"),
        ("GramE", 0, "fell"),
    ]
    split = json.loads((out / "split.json").read_text())
    assert split["reference"] == "gold" and split["left_out"] == ["d2", "d3"]


def test_split_is_seeded_disjoint_complete_and_rounds_the_fractions():
    units = {f"doc{n}": split_unit(f"doc{n}", "", "document") for n in range(40)}
    first = split_documents(units, fractions=(0.8, 0.1, 0.1), seed=0)
    assert first == split_documents(dict(reversed(units.items())), fractions=(0.8, 0.1, 0.1), seed=0)
    assert first != split_documents(units, fractions=(0.8, 0.1, 0.1), seed=1)
    assert set(first) == set(units) and set(first.values()) == {"train", "dev", "test"}
    assert [list(first.values()).count(split) for split in ("train", "dev", "test")] == [32, 4, 4]

    # 7 units at 0.5/0.25/0.25: train round(3.5) = 4, dev round(5.25) - 4 = 1, test the other 2.
    seven = split_documents({n: n for n in range(7)}, fractions=(0.5, 0.25, 0.25), seed=3)
    assert [list(seven.values()).count(split) for split in ("train", "dev", "test")] == [4, 1, 2]
    assert set(split_documents({n: n for n in range(5)}, fractions=(1, 0, 0), seed=0).values()) == {"train"}


@pytest.fixture
def systems_study():
    """Four inputs (books), each summarised by three systems; every summary read once."""
    study = StudyFactory(slug="snac-systems", protocol="span")
    CategoryFactory(taxonomy=study.taxonomy, key="CharE", group="coherence")
    worker = WorkerFactory()
    for book in range(4):
        for system in ("gpt3", "bart", "pegasus"):
            made, (segment,) = document(
                study, f"book{book}-{system}", [FIRST], input_id=f"book{book}", system=system
            )
            mark(read("main", made, worker), segment, "CharE", 0, 4)
    return study


@pytest.mark.parametrize("group_by", ["document", "input"])
def test_every_file_follows_split_json_and_inputs_stay_together(systems_study, tmp_path, group_by):
    out = export(
        systems_study, tmp_path / "out", "--split", "0.5,0.25,0.25", "--seed", "7", "--group-by", group_by
    )
    split = json.loads((out / "split.json").read_text())
    assert (split["seed"], split["group_by"]) == (7, group_by)
    assert split["fractions"] == {"train": 0.5, "dev": 0.25, "test": 0.25}
    # 12 documents or 4 inputs of 3: either way 6, 3 and 3 documents.
    assert [len(split["documents"][name]) for name in ("train", "dev", "test")] == [6, 3, 3]
    split_of = {doc: name for name, docs in split["documents"].items() for doc in docs}
    assert len(split_of) == 12
    for table in ("sentences", "segments", "spans"):
        assert {(row["document"], row["split"]) for row in lines(out / f"{table}.jsonl")} == set(
            split_of.items()
        )
        frame = pandas.read_parquet(out / f"{table}.parquet")
        assert {(row.document, row.split) for row in frame.itertuples()} == set(split_of.items())
    if group_by == "input":
        for book in range(4):
            assert len({name for doc, name in split_of.items() if doc.startswith(f"book{book}-")}) == 1


def test_files_load_in_pandas_polars_and_hugging_face_datasets(study, tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    monkeypatch.setenv("HF_DATASETS_CACHE", str(tmp_path / "hf" / "datasets"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    # Imported here, after the environment above: datasets reads it when first imported.
    import datasets

    out = export(study, tmp_path / "out")
    cache = str(tmp_path / "hf" / "datasets")
    for table, rows in [("sentences", 7), ("segments", 3), ("spans", 6)]:
        parquet, jsonl = str(out / f"{table}.parquet"), str(out / f"{table}.jsonl")
        columns = pq.read_schema(parquet).names
        loaded = [
            pandas.read_parquet(parquet),
            pandas.read_json(jsonl, lines=True, dtype=False),
            polars.read_parquet(parquet),
            datasets.load_dataset("parquet", data_files=parquet, split="train", cache_dir=cache),
            datasets.load_dataset("json", data_files=jsonl, split="train", cache_dir=cache),
        ]
        for frame in loaded:
            assert len(frame) == rows
            assert (
                list(frame.column_names if isinstance(frame, datasets.Dataset) else frame.columns) == columns
            )

    schema = pq.read_schema(out / "sentences.parquet")
    assert schema.field("label_GramE").type == pa.int8() and schema.field("group_fluency").type == pa.int8()
    assert schema.field("start").type == pa.int64() and schema.field("text").type == pa.string()
    assert polars.read_parquet(out / "sentences.parquet")["label_CharE"].dtype == polars.Int8


def test_the_schema_stays_when_a_file_has_no_rows(tmp_path):
    study = StudyFactory(slug="no-gold", protocol="span")
    CategoryFactory(taxonomy=study.taxonomy, key="CharE", group="coherence")
    made, (segment,) = document(study, "d1", [FIRST])
    mark(read("main", made, WorkerFactory()), segment, "CharE", 0, 4)
    full, empty = export(study, tmp_path / "people"), export(study, tmp_path / "gold", "--reference", "gold")
    for table in ("sentences", "segments", "spans"):
        assert pq.read_schema(empty / f"{table}.parquet") == pq.read_schema(full / f"{table}.parquet")
        assert pq.read_metadata(empty / f"{table}.parquet").num_rows == 0
        assert (
            polars.read_parquet(empty / f"{table}.parquet").columns
            == pq.read_schema(full / f"{table}.parquet").names
        )
        assert (empty / f"{table}.jsonl").read_text() == ""
    assert json.loads((empty / "split.json").read_text())["left_out"] == ["d1"]


@pytest.mark.parametrize(
    "split, message",
    [
        ("0.8,0.2", "3 fractions"),
        ("0.5,0.5,0.5", "sum to 1"),
        ("1.2,-0.1,-0.1", "between 0 and 1"),
        ("a,b,c", "3 numbers"),
    ],
)
def test_a_bad_split_is_refused_and_nothing_is_written(study, tmp_path, split, message):
    with pytest.raises(CommandError, match=message):
        export(study, tmp_path / "out", "--split", split)
    assert not (tmp_path / "out").exists()


def test_unknown_and_non_span_studies_are_refused(tmp_path):
    with pytest.raises(CommandError, match="no study with slug 'missing'"):
        call_command("export_training_data", "missing", str(tmp_path))
    with pytest.raises(CommandError, match="likert study"):
        export(StudyFactory(slug="ratings", protocol="likert"), tmp_path)


def test_an_earlier_export_is_kept_unless_forced(study, tmp_path):
    out = export(study, tmp_path / "out", "--format", "jsonl")
    (out / "sentences.jsonl").write_text("kept\n")
    with pytest.raises(
        CommandError, match=r"sentences\.jsonl, segments\.jsonl, spans\.jsonl, split\.json already"
    ):
        export(study, out, "--format", "jsonl")
    assert (out / "sentences.jsonl").read_text() == "kept\n"
    export(study, out, "--format", "parquet", "--force")  # split.json exists: --force needed
    export(study, out, "--force")
    assert len(lines(out / "sentences.jsonl")) == 7
    assert sorted(path.name for path in out.iterdir()) == [
        "segments.jsonl", "segments.parquet", "sentences.jsonl", "sentences.parquet",
        "spans.jsonl", "spans.parquet", "split.json",
    ]  # fmt: skip


def test_parquet_is_written_in_row_groups_as_rows_come(study, tmp_path, monkeypatch):
    monkeypatch.setattr("evaluators.training.BATCH_ROWS", 2)
    out = export(study, tmp_path / "out")
    parquet = pq.ParquetFile(out / "sentences.parquet")
    assert parquet.metadata.num_row_groups > 1
    assert parquet.read().to_pylist() == lines(out / "sentences.jsonl")
