"""factgenie campaigns' annotation records (docs/interop-formats.md).

A campaign is a folder ``campaigns/<id>/`` with ``metadata.json`` (``{"id", "mode",
"config": {"annotation_span_categories": [{"name", "color", "description"}], ...}}``) and
``files/*.jsonl``, one record a line for one annotator's work on one output::

    {"dataset": "d", "split": "test", "setup_id": "gpt-4o", "example_idx": 3,
     "output": "the generated text", "annotations": [{"text": "Paris", "start": 10,
     "type": 1, "reason": "wrong city"}], "flags": [], "options": [], "sliders": [],
     "text_fields": [], "metadata": {"annotator_id": "...", "campaign_id": "...", ...}}

``path`` is the campaign folder or one of its JSONL files (its campaign's metadata.json
is used when the file sits in the campaign's ``files/``).

Mapping: each (dataset, split, setup_id, example_idx) is a document with id
``dataset/split/setup_id/example_idx`` whose system is the setup; each record is an
annotation by ``metadata.annotator_id`` (or a top-level ``annotator_id``; else the
campaign's id), of kind model for an ``llm_eval`` campaign and main otherwise (without
metadata.json, a record whose metadata names a model or prompt is an LLM's). ``type`` is
an index into the campaign's span categories, whose names become the labels ("category
N" when no names are given); ``reason`` becomes the region's note.

Texts: factgenie saves the generated text in each record's ``output`` (a ``text``
field is accepted too). Records of older factgenie versions carry none; for them pass
``outputs=`` a factgenie outputs file or folder (``data/outputs/<setup>/*.jsonl``, records
with dataset, split, setup_id, example_idx and output); a record whose text is found
nowhere is a problem.

Offsets: ``start`` is where ``text`` begins; the end is ``start`` plus the text's length.
Crowdsourcing campaigns count in the browser, in UTF-16 code units; LLM campaigns find
the text in Python, in code points, case-insensitively and with the text stripped of
surrounding spaces, so their check ignores case and those spaces.
"""

from .reading import read, read_parts
from .writing import write

__all__ = ["read", "read_parts", "write"]
