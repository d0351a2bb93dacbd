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


def write_span_bundle(directory, *, slug, documents=6, segments=4, annotators=3, spans=3, seed=1, assisted=False,
                      evaluators=0):  # fmt: skip
    """A bundle whose annotators mark random word spans; deterministic for a seed.

    `assisted`: the annotators in two arms (even ones see suggestions, 3 per document, and decide
    on each); `evaluators`: that many automatic evaluators' (model) annotations of most documents.
    """
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
    if assisted:
        study["config"] = {"assistance": {"share": 0.5, "seed": 3}}
    (directory / "study.yaml").write_text(yaml.safe_dump(study))
    texts = {}
    with open(directory / "documents.jsonl", "w") as handle:
        for d in range(documents):
            segs = [" ".join(rng.choice(WORDS) for _ in range(12)) + ". " + " ".join(rng.choice(WORDS) for _ in range(8)) + "."
                    for _ in range(segments)]  # fmt: skip
            texts[f"doc{d}"] = segs
            handle.write(json.dumps({"id": f"doc{d}", "system": f"sys{d % 2}", "segments": segs}) + "\n")
    suggestions = {}
    if assisted:
        with open(directory / "suggestions.jsonl", "w") as handle:
            for document, segs in texts.items():
                for position in range(1, 4):
                    s = rng.randrange(len(segs))
                    start = rng.randrange(0, len(segs[s]) - 10)
                    line = {"document": document, "position": position, "segment": s, "start": start,
                            "end": start + 6, "text": segs[s][start : start + 6],
                            "category": rng.choice(["CharE", "GramE"]), "source": "bench"}  # fmt: skip
                    suggestions.setdefault(document, []).append(line)
                    handle.write(json.dumps(line) + "\n")
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
                line = {
                    "document": document,
                    "annotator": f"w{a}",
                    "active_seconds": 60 * (a + 1) + rng.randrange(7),
                }
                if assisted:
                    line["arm"] = "suggestions" if a % 2 == 0 else "control"
                    line["active_seconds"] += rng.randrange(7)  # times that are not round per segment
                    decisions = []
                    for suggestion in suggestions[document] if a % 2 == 0 else []:
                        decision = {"suggestion": suggestion["position"], "action": rng.choice(["accept", "reject"]),
                                    "seconds": round(rng.uniform(0, 20), 3)}  # fmt: skip
                        if decision["action"] == "accept":
                            decision["annotation"] = f"s{suggestion['position']}"
                            items.append({key: suggestion[key] for key in ("segment", "start", "end", "text", "category")}
                                         | {"client_id": decision["annotation"]})  # fmt: skip
                        decisions.append(decision)
                    line["suggestion_decisions"] = decisions
                handle.write(json.dumps({**line, "annotations": items}) + "\n")
            for e in range(evaluators):
                if rng.random() < 0.2:
                    continue  # an evaluator that did not annotate this document
                items = []
                for _ in range(rng.randint(0, spans)):
                    s = rng.randrange(len(segs))
                    start = rng.randrange(0, len(segs[s]) - 10)
                    items.append({"segment": s, "category": rng.choice(["CharE", "GramE"]), "start": start,
                                  "end": start + 5, "text": segs[s][start : start + 5]})  # fmt: skip
                handle.write(json.dumps({"document": document, "annotator": f"llm{e}", "platform": "model",
                                         "kind": "model", "annotations": items}) + "\n")  # fmt: skip
    return directory
