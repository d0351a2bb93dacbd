"""A corpus as a Parquet file for Hugging Face ``datasets`` (export only; docs/interop-formats.md).

One row per annotation, i.e. per (document, annotator): ``document_id``, ``text``,
``system``, ``annotator``, ``kind`` (main, gold or model), ``seconds``, ``spans`` (a list of
``{id, start, end, label, text, note}``) and ``links`` (a list of ``{source, target,
label}``, naming span ids). ``datasets.load_dataset("parquet", data_files=path)`` reads it
as it is. Offsets count code points, end exclusive (``text[start:end]`` in Python, which
is what ``spans.text`` holds); the file's schema metadata says so, with the corpus's
labels in order. A document nobody annotated has no row.

exports/parquet.py streams a study's table from the database; this module writes a
corpus and imports no Django, so it shares pyarrow but none of that module's code.
"""

import json

import pyarrow as pa
import pyarrow.parquet as pq

from interop.corpus import Corpus

ROW_GROUP = 10_000
BATCH = 500  # rows turned into Arrow at a time while a row group fills
SPAN = pa.struct(
    [
        ("id", pa.string()),
        ("start", pa.int64()),
        ("end", pa.int64()),
        ("label", pa.string()),
        ("text", pa.string()),
        ("note", pa.string()),
    ]
)
LINK = pa.struct([("source", pa.string()), ("target", pa.string()), ("label", pa.string())])
SCHEMA = pa.schema(
    [
        ("document_id", pa.string()),
        ("text", pa.string()),
        ("system", pa.string()),
        ("annotator", pa.string()),
        ("kind", pa.string()),
        ("seconds", pa.int64()),
        ("spans", pa.list_(SPAN)),
        ("links", pa.list_(LINK)),
    ]
)


def read(path, name, problems):
    problems.add(name, 0, "the Hugging Face (Parquet) format is export only: it cannot be imported")
    return Corpus()


def write(corpus, path):
    """The corpus's annotations as rows of a Parquet file at ``path``."""
    metadata = {
        "offsets": "Unicode code points into text, end exclusive",
        "labels": json.dumps(corpus.labels, ensure_ascii=False),
        "link_labels": json.dumps(corpus.link_labels, ensure_ascii=False),
    }
    schema = SCHEMA.with_metadata(metadata)
    with pq.ParquetWriter(str(path), schema) as writer:
        rows, batches, held, written = [], [], 0, 0
        for document, annotation in corpus.with_documents():
            rows.append(_row(document, annotation))
            if len(rows) == BATCH:  # Arrow holds a row in a fraction of the memory a dict of it takes
                batches.append(pa.RecordBatch.from_pylist(rows, schema=schema))
                held, rows = held + len(rows), []
            if held + len(rows) == ROW_GROUP:
                written += _write_group(writer, batches, rows, schema)
                batches, held, rows = [], 0, []
        if batches or rows or not written:  # a corpus without annotations: a file of no rows, with its schema
            _write_group(writer, batches, rows, schema)


def _write_group(writer, batches, rows, schema):
    """One row group from the batches and rows held, its columns made contiguous as one table of all
    its rows would give them, so that the file's pages (and bytes) do not depend on the batches."""
    batches = [*batches, pa.RecordBatch.from_pylist(rows, schema=schema)]
    table = pa.Table.from_batches(batches, schema=schema).combine_chunks()
    writer.write_table(table)
    return table.num_rows


def _row(document, annotation):
    return {
        "document_id": document.id,
        "text": document.text,
        "system": document.system,
        "annotator": annotation.annotator,
        "kind": annotation.kind,
        "seconds": annotation.seconds,
        "spans": [
            {
                "id": region.id,
                "start": region.start,
                "end": region.end,
                "label": region.label,
                "text": document.text[region.start : region.end],
                "note": region.note,
            }
            for region in annotation.regions
        ],
        "links": [
            {"source": link.source, "target": link.target, "label": link.label} for link in annotation.links
        ],
    }
