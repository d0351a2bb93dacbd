"""A synthetic span study with several annotators, imported through a bundle."""

import json
import random

import yaml

WORDS = [
    "Anna",
    "met",
    "Ben",
    "at",
    "the",
    "mill",
    "and",
    "they",
    "spoke",
    "about",
    "the",
    "storm",
    "that",
    "came",
    "over",
    "the",
    "hills",
]


def write_span_bundle(directory, *, slug, documents=6, segments=4, annotators=3, spans=3, seed=1):
    """A bundle whose annotators mark random word spans; deterministic for a seed."""
    rng = random.Random(seed)
    directory.mkdir(parents=True, exist_ok=True)
    study = {
        "slug": slug, "title": f"Report study {slug}", "protocol": "span", "annotators_per_document": annotators,
        "taxonomy": {"slug": f"tax-{slug}", "name": "Report taxonomy", "categories": [
            {"key": "CharE", "label": "New character", "group": "coherence"},
            {"key": "RepE", "label": "Repetition", "group": "language", "kind": "paired"},
            {"key": "GramE", "label": "Grammar", "group": "language"},
        ]},
    }  # fmt: skip
    (directory / "study.yaml").write_text(yaml.safe_dump(study))
    texts = {}
    with open(directory / "documents.jsonl", "w") as handle:
        for d in range(documents):
            segs = [" ".join(rng.choice(WORDS) for _ in range(12)) + ". " + " ".join(rng.choice(WORDS) for _ in range(8)) + "."
                    for _ in range(segments)]  # fmt: skip
            texts[f"doc{d}"] = segs
            handle.write(json.dumps({"id": f"doc{d}", "system": f"sys{d % 2}", "segments": segs}) + "\n")
    with open(directory / "assignments.jsonl", "w") as handle:
        for document, segs in texts.items():
            for a in range(annotators):
                items = []
                for _ in range(spans):
                    s = rng.randrange(len(segs))
                    start = rng.randrange(0, len(segs[s]) - 10)
                    category = rng.choice(["CharE", "GramE", "RepE"])
                    item = {"segment": s, "category": category, "start": start, "end": start + 8,
                            "text": segs[s][start : start + 8]}  # fmt: skip
                    if category == "RepE":
                        item["paired"] = {"segment": 0, "start": 0, "end": 4, "text": segs[0][:4]}
                    items.append(item)
                handle.write(json.dumps({"document": document, "annotator": f"w{a}", "active_seconds": 60 * (a + 1),
                                         "annotations": items}) + "\n")  # fmt: skip
    return directory
