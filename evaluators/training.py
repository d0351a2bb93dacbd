"""Training data for error detectors out of a span study, with a document-level split.

SNaC (Goyal et al. 2022, section 5 and appendix C) trains coherence-error
detectors on its human span annotations: a sentence or segment is positive
for a category when an annotator's span of that category touches it. This
module turns a study into those rows (sentences, segments, and the union
spans themselves) and writes them as JSON Lines and Parquet with one fixed
schema. Labels come from one kind of human annotation, the people's ("main")
or the experts' ("gold"); an automatic evaluator's ("model") spans are never
labels. The researcher's guide is docs/training-data.md.
"""

import bisect
import hashlib
import json
import math
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from protocols.span.report import span_study_for
from reports.metrics.spans.data import GOLD, MAIN
from reports.metrics.spans.layout import segment_sentences
from studies.models import Document

SPLITS = ("train", "dev", "test")
REFERENCES = {"people": MAIN, "gold": GOLD}
GROUP_BY = ("document", "input")
TABLES = ("sentences", "segments", "spans")
FORMATS = {"jsonl": ".jsonl", "parquet": ".parquet"}
SPLIT_FILE = "split.json"
# Rows held in memory before they go to disk: one Parquet row group.
BATCH_ROWS = 50_000


def split_documents(units, *, fractions, seed):
    """{document: split} for ``units`` ({document: what must stay in one split}).

    Every distinct unit gets a place in a seeded order (SHA-256 of the seed
    and the unit, so the order does not depend on the Python version or on
    the other units); the first round(f_train * n) units go to train, those
    up to round((f_train + f_dev) * n) to dev, the rest to test, halves
    rounded up. A document follows its unit.
    """
    ordered = sorted(set(units.values()), key=lambda unit: (_place(seed, unit), unit))
    cuts = [math.floor(sum(fractions[: k + 1]) * len(ordered) + 0.5) for k in range(len(SPLITS) - 1)]
    split_of = {unit: SPLITS[bisect.bisect_right(cuts, place)] for place, unit in enumerate(ordered)}
    return {document: split_of[unit] for document, unit in units.items()}


def _place(seed, unit):
    return hashlib.sha256(f"{seed}\0{unit}".encode()).hexdigest()


def split_unit(document, input_id, group_by):
    """What keeps ``document`` company in a split: itself, or its input (when it has one)."""
    if group_by == "input" and input_id:
        return f"input:{input_id}"
    return f"document:{document}"


def labelled_documents(span_study, *, kind, allowed):
    """(document, its submitted annotations of ``kind``) for the documents in ``allowed``
    that have at least one, in study order. A document nobody of that kind read is no
    training data: its zeros would be guesses."""
    if kind not in REFERENCES.values():
        raise ValueError(f"labels come from people or gold annotations, not {kind!r}")
    annotations = defaultdict(list)
    for annotation in span_study.annotations:
        if annotation.kind == kind and annotation.submitted and annotation.document in allowed:
            annotations[annotation.document].append(annotation)
    return [
        (document, annotations[document.id]) for document in span_study.documents if annotations[document.id]
    ]


@dataclass(frozen=True)
class UnionSpan:
    category: str
    segment: int
    start: int
    end: int
    annotators: int


def union_spans(document, annotations, categories):
    """The annotators' spans of each category, merged where they overlap.

    Spans of one category in one segment that share at least one code point
    are merged into one, transitively (a chain of overlaps is one span); spans
    that only touch stay apart. ``annotators`` counts the distinct annotators
    with a span in the merged one. Paired categories count their primary span
    only. Sorted by category (taxonomy order), segment and start.
    """
    rank = {category.key: number for number, category in enumerate(categories)}
    placed = defaultdict(list)
    for annotation in annotations:
        for span in annotation.spans:
            if span.category not in rank or not 0 <= span.segment < len(document.segments):
                continue
            end = min(span.end, len(document.segments[span.segment]))
            if span.start < end:
                placed[rank[span.category], span.segment].append((span.start, end, annotation.annotator))
    unions = []
    for (number, segment), spans in sorted(placed.items()):
        merged = []
        for start, end, annotator in sorted(spans):
            if merged and start < merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], end)
                merged[-1][2].add(annotator)
            else:
                merged.append([start, end, {annotator}])
        key = categories[number].key
        unions.extend(UnionSpan(key, segment, start, end, len(who)) for start, end, who in merged)
    return unions


class LabelColumns:
    """The 0/1 columns of a taxonomy: ``label_<key>`` per category, ``group_<group>`` per group."""

    def __init__(self, categories):
        self.keys = [category.key for category in categories]
        self.group_of = {category.key: category.group for category in categories}
        self.groups = list(dict.fromkeys(self.group_of.values()))
        self.names = [f"label_{key}" for key in self.keys] + [f"group_{group}" for group in self.groups]

    def values(self, hit):
        """The columns' values when the categories in ``hit`` touch a unit."""
        groups = {self.group_of[key] for key in hit}
        labels = {f"label_{key}": int(key in hit) for key in self.keys}
        return labels | {f"group_{group}": int(group in groups) for group in self.groups}


def schemas(columns):
    """The fixed Arrow schema of each table: int64 numbers, int8 labels, string text."""
    text, number = pa.string(), pa.int64()
    labels = [(name, pa.int8()) for name in columns.names]
    where = [("document", text), ("system", text), ("split", text), ("segment", number)]
    sentence = [("sentence", number), ("start", number), ("end", number), ("text", text)]
    span = [("document", text), ("split", text), ("category", text), ("group", text), ("segment", number)]
    span += [("start", number), ("end", number), ("text", text), ("annotators", number)]
    return {
        "sentences": pa.schema(where + sentence + labels + [("annotators", number)]),
        "segments": pa.schema(where + [("text", text)] + labels + [("annotators", number)]),
        "spans": pa.schema(span),
    }


def document_rows(document, annotations, *, split, categories, columns):
    """{table: rows} of one document; sentences are numbered through the whole document."""
    unions = union_spans(document, annotations, categories)
    head = {"document": document.id, "system": document.system, "split": split}
    readers = {"annotators": len(annotations)}
    rows = {table: [] for table in TABLES}
    number = 0
    for index, text in enumerate(document.segments):
        here = [union for union in unions if union.segment == index]
        hit = {union.category for union in here}
        rows["segments"].append(head | {"segment": index, "text": text} | columns.values(hit) | readers)
        for start, end in segment_sentences(document, index):
            hit = {union.category for union in here if union.start < end and start < union.end}
            place = {
                "segment": index,
                "sentence": number,
                "start": start,
                "end": end,
                "text": text[start:end],
            }
            rows["sentences"].append(head | place | columns.values(hit) | readers)
            number += 1
    for union in unions:
        rows["spans"].append(
            {
                "document": document.id,
                "split": split,
                "category": union.category,
                "group": columns.group_of[union.category],
                "segment": union.segment,
                "start": union.start,
                "end": union.end,
                "text": document.segments[union.segment][union.start : union.end],
                "annotators": union.annotators,
            }
        )
    return rows


class JsonLinesTable:
    """One JSON object a line, in the schema's key order, written as rows come."""

    def __init__(self, path, schema):
        self.handle = open(path, "w", encoding="utf-8")  # noqa: SIM115 - closed by close(), as ParquetWriter is

    def write(self, rows):
        self.handle.writelines(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)

    def close(self):
        self.handle.close()


class ParquetTable:
    """Rows gathered into row groups of BATCH_ROWS; the schema is written even for no rows."""

    def __init__(self, path, schema):
        self.schema = schema
        self.writer = pq.ParquetWriter(path, schema)
        self.batch = []

    def write(self, rows):
        self.batch.extend(rows)
        if len(self.batch) >= BATCH_ROWS:
            self._flush()

    def _flush(self):
        if self.batch:
            self.writer.write_table(pa.Table.from_pylist(self.batch, schema=self.schema))
            self.batch = []

    def close(self):
        self._flush()
        self.writer.close()


WRITERS = {"jsonl": JsonLinesTable, "parquet": ParquetTable}


def training_paths(directory, formats):
    """The files an export into ``directory`` writes."""
    directory = Path(directory)
    tables = [directory / f"{table}{FORMATS[name]}" for table in TABLES for name in formats]
    return tables + [directory / SPLIT_FILE]


def training_data_export(
    *, study, directory, formats, fractions, seed=0, group_by="document", reference="people"
):
    """Write ``study``'s training data into ``directory`` (docs/training-data.md) and return
    what split.json holds plus {"rows": {table: count}}.

    Only the study's main documents take part (not qualification or attention
    checks), labelled by the submitted annotations of ``reference``. Each file
    is written under a ``.partial`` name and renamed when all are complete, so
    a failed export leaves no file that looks finished.
    """
    inputs = dict(
        Document.objects.filter(study=study, kind=Document.Kind.MAIN).values_list("external_id", "input_id")
    )
    span_study = span_study_for(study)
    documents = labelled_documents(span_study, kind=REFERENCES[reference], allowed=inputs.keys())
    units = {document.id: split_unit(document.id, inputs[document.id], group_by) for document, _ in documents}
    split_of = split_documents(units, fractions=fractions, seed=seed)
    columns = LabelColumns(span_study.categories)

    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    tables = schemas(columns)
    partial = {path: path.with_name(path.name + ".partial") for path in training_paths(directory, formats)}
    writers = {
        (table, name): WRITERS[name](partial[directory / f"{table}{FORMATS[name]}"], tables[table])
        for table in TABLES
        for name in formats
    }
    counts = dict.fromkeys(TABLES, 0)
    try:
        for document, annotations in documents:
            rows = document_rows(
                document,
                annotations,
                split=split_of[document.id],
                categories=span_study.categories,
                columns=columns,
            )
            for (table, _), writer in writers.items():
                writer.write(rows[table])
            for table in TABLES:
                counts[table] += len(rows[table])
    except BaseException:
        for writer in writers.values():
            writer.close()
        for written in partial.values():
            written.unlink(missing_ok=True)
        raise
    for writer in writers.values():
        writer.close()

    labelled = {document.id for document, _ in documents}
    record = {
        "study": study.slug,
        "reference": reference,
        "group_by": group_by,
        "seed": seed,
        "fractions": dict(zip(SPLITS, fractions, strict=True)),
        "documents": {split: [d.id for d, _ in documents if split_of[d.id] == split] for split in SPLITS},
        "left_out": [external_id for external_id in inputs if external_id not in labelled],
    }
    partial[directory / SPLIT_FILE].write_text(json.dumps(record, ensure_ascii=False, indent=2) + "\n")
    for path, written in partial.items():
        written.replace(path)
    return record | {"rows": counts}
