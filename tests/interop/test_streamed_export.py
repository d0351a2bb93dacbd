"""A study's export in every format is the file the export wrote when it read the study's bundle
back whole (tests/interop/bundle_corpus.py), byte for byte, on random studies read in small chunks."""

import json
import random
import re
from datetime import UTC, datetime

import pytest

from interop import exporting, study_records
from interop.formats.registry import format_module
from interop.services import study_import_annotations
from studies.models import Document, Study
from tests.interop.bundle_corpus import bundle_corpus

pytestmark = pytest.mark.django_db

WORDS = ["Anna", "met", "Ben", "at", "the", "mill", "🚢", "Jonas", "é", "雨", "counted", "crates"]
LABELS = ["CharE", "Gram E", "Cause"]
# Every format, and the shapes each writes: a file, or (no suffix) a folder.
OUTPUTS = [
    ("label-studio", "out.json"), ("doccano", "out.jsonl"), ("doccano", "out"), ("potato", "out.jsonl"),
    ("potato", "out"), ("factgenie", "out.jsonl"), ("factgenie", "out"), ("hf", "out.parquet"),
]  # fmt: skip


def random_export(path, rng, tasks):
    """A Label Studio export: people's annotations (some repeated, some gold), predictions, notes,
    links between regions of one label (paired spans) and of two (relations), some labelled."""
    items = []
    for number in range(1, tasks + 1):
        text = " ".join(
            " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 9))) + "."
            for _ in range(rng.randint(1, 4))
        )
        words = [(m.start(), m.end()) for m in re.finditer(r"\S+", text)]
        task = {"id": 100 + number, "data": {"text": text}, "annotations": [], "predictions": []}
        for n in range(rng.choice([0, 1, 2, 3, 4])):
            results = []
            for r in range(rng.randint(0, 4)):
                start, end = rng.choice(words)
                result = {"id": f"t{number}a{n}r{r}", "from_name": "label", "to_name": "text", "type": "labels",
                          "value": {"start": start, "end": end, "text": text[start:end],
                                    "labels": [rng.choice(LABELS)]}}  # fmt: skip
                if rng.random() < 0.2:
                    result["meta"] = {"text": [f"note {r}"]}
                results.append(result)
            if len(results) >= 2 and rng.random() < 0.6:
                first, second = rng.sample(results, 2)
                results.append({"from_id": first["id"], "to_id": second["id"], "type": "relation",
                                "direction": rng.choice(["right", "left"]),
                                "labels": rng.choice([[], ["causes"], ["why"]])})  # fmt: skip
            task["annotations"].append({
                "id": number * 10 + n, "completed_by": rng.choice([11, 12, 13, 14]), "result": results,
                "was_cancelled": False, "ground_truth": rng.random() < 0.15, "lead_time": rng.randint(0, 300),
            })  # fmt: skip
        for model in rng.sample(["det-a", "det-b"], rng.randint(0, 2)):
            start, end = rng.choice(words)
            task["predictions"].append({"model_version": model, "result": [
                {"id": f"p{number}{model}", "from_name": "label", "to_name": "text", "type": "labels",
                 "value": {"start": start, "end": end, "text": text[start:end], "labels": [rng.choice(LABELS)]}}]})  # fmt: skip
        items.append(task)
    path.write_text(json.dumps(items, ensure_ascii=False), encoding="utf-8")
    return path


def files_of(path):
    if path.is_file():
        return {"": path.read_bytes()}
    return {
        str(file.relative_to(path)): file.read_bytes() for file in sorted(path.rglob("*")) if file.is_file()
    }


class FixedClock(datetime):
    @classmethod
    def now(cls, tz=None):
        return datetime(2026, 11, 27, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_format_writes_the_bytes_of_the_whole_bundle_export(tmp_path, monkeypatch, seed):
    rng = random.Random(seed)
    study_import_annotations(path=random_export(tmp_path / "in.json", rng, rng.randint(6, 14)),
                             fmt="label-studio", slug="s")  # fmt: skip
    # Documents sharing a position (a study put together by hand): their work comes in one group.
    documents = list(Document.objects.filter(study__slug="s").order_by("position", "id"))
    for document in rng.sample(documents, len(documents) // 3):
        Document.objects.filter(pk=document.pk).update(position=rng.choice(documents).position)
    monkeypatch.setattr(study_records, "CHUNK", 2)  # chunk boundaries inside a document position
    monkeypatch.setattr("interop.formats.factgenie.writing.datetime", FixedClock)
    study = Study.objects.get(slug="s")
    for fmt, name in OUTPUTS:
        module = format_module(fmt, reading=False)
        for identities in (True, False):
            streamed, whole = (
                tmp_path / f"{seed}-{identities}-streamed",
                tmp_path / f"{seed}-{identities}-whole",
            )
            streamed.mkdir(exist_ok=True)
            whole.mkdir(exist_ok=True)
            module.write(exporting.study_corpus(study, fmt=fmt, identities=identities), streamed / name)
            module.write(bundle_corpus(study, fmt=fmt, identities=identities), whole / name)
            written = files_of(streamed / name)
            assert written == files_of(whole / name), (fmt, name, identities)
            assert any(written.values())  # something was written to compare
