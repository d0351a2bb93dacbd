"""Synthetic exports of the tools that write one file per annotator: doccano, Potato, factgenie.

Each holds N documents of ~12 sentences (the words of bench/interop.py, an emoji among them),
annotated by 3 annotators with 10 labelled spans each, every annotator's file giving every
document, as the tools export them (docs/interop-formats.md). Written a line at a time, so the
bench's own process stays small (bench/interop.py, "A measuring fault found on the way").
Seeded: the same N gives the same bytes.
"""

import json
import random
import re

ANNOTATORS = ("alice", "bob", "chen")
# One vocabulary for every synthetic export (bench/interop.py's Label Studio tasks too).
WORDS = [
    "the",
    "ship",
    "left",
    "port",
    "at",
    "dawn",
    "and",
    "Mara",
    "watched",
    "it",
    "go",
    "🚢",
    "while",
    "Jonas",
    "counted",
    "crates",
]
LABELS = ("CharE", "GramE", "InconE")
SPANS = 10


def documents(count, seed=7):
    """(number, text, [(start, end)] of its words in code points) of each document."""
    rng = random.Random(seed)
    for number in range(1, count + 1):
        text = " ".join(
            " ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 14))) + "." for _ in range(12)
        )
        yield number, text, [(m.start(), m.end()) for m in re.finditer(r"\S+", text)]


def spans(rng, words):
    return [(*rng.choice(words), rng.choice(LABELS)) for _ in range(SPANS)]


def utf16(text, offset):
    """doccano's offset (JavaScript's UTF-16 units) of a code-point offset."""
    return len(text[:offset].encode("utf-16-le")) // 2


def write_doccano(folder, count, seed=7):
    """{annotator}.jsonl per annotator: doccano's export without relations, UTF-16 offsets."""
    folder.mkdir(parents=True, exist_ok=True)
    handles = {
        annotator: (folder / f"{annotator}.jsonl").open("w", encoding="utf-8") for annotator in ANNOTATORS
    }
    rng = random.Random(seed)
    for number, text, words in documents(count, seed):
        for handle in handles.values():
            labels = [
                [utf16(text, start), utf16(text, end), label] for start, end, label in spans(rng, words)
            ]
            handle.write(json.dumps({"id": number, "text": text, "label": labels}, ensure_ascii=False) + "\n")
    for handle in handles.values():
        handle.close()
    return folder


def write_potato(folder, count, seed=7):
    """Potato's output folder: <annotator>/annotated_instances.jsonl, code-point offsets."""
    handles = {}
    for annotator in ANNOTATORS:
        (folder / annotator).mkdir(parents=True, exist_ok=True)
        handles[annotator] = (folder / annotator / "annotated_instances.jsonl").open("w", encoding="utf-8")
    rng = random.Random(seed)
    for number, text, words in documents(count, seed):
        for handle in handles.values():
            found = [{"start": start, "end": end, "span": text[start:end], "annotation": label}
                     for start, end, label in spans(rng, words)]  # fmt: skip
            record = {"id": f"inst_{number}", "displayed_text": text, "label_annotations": {},
                      "span_annotations": found, "behavioral_data": {"time_string": "Time spent: 0d 0h 1m 5s "}}  # fmt: skip
            handle.write(json.dumps(record) + "\n")
    for handle in handles.values():
        handle.close()
    return folder


def write_factgenie(folder, count, seed=7, mode="external"):
    """A factgenie campaign folder: metadata.json and files/<annotator>.jsonl, each record with its
    output text; `mode` llm_eval makes the three annotators LLM evaluators (for --into review)."""
    (folder / "files").mkdir(parents=True, exist_ok=True)
    categories = [{"name": label, "color": "rgb(214, 39, 40)", "description": label} for label in LABELS]
    config = {"annotation_span_categories": categories}
    (folder / "metadata.json").write_text(json.dumps({"id": folder.name, "mode": mode, "config": config}))
    handles = {a: (folder / "files" / f"{a}.jsonl").open("w", encoding="utf-8") for a in ANNOTATORS}
    rng = random.Random(seed)
    for number, text, words in documents(count, seed):
        for annotator, handle in handles.items():
            found = [{"text": text[start:end], "start": start, "type": LABELS.index(label), "reason": "bench"}
                     for start, end, label in spans(rng, words)]  # fmt: skip
            metadata = {"annotator_id": annotator, **({"model": annotator} if mode == "llm_eval" else {})}
            record = {"dataset": "weather", "split": "test", "setup_id": "system", "example_idx": number,
                      "output": text, "annotations": found, "metadata": metadata}  # fmt: skip
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
    for handle in handles.values():
        handle.close()
    return folder


# --imports NAME: (format, writer, extra arguments of import_annotations)
IMPORTS = {
    "doccano": ("doccano", write_doccano, []),
    "potato": ("potato", write_potato, []),
    "factgenie": ("factgenie", write_factgenie, []),
    "factgenie-review": (
        "factgenie",
        lambda folder, count: write_factgenie(folder, count, mode="llm_eval"),
        ["--into", "review"],
    ),
}
