"""Writing a corpus as a Label Studio JSON export (the format: __init__.py); offsets in code points."""

import json

from ...corpus import GOLD, MODEL

DEFAULT_FROM_NAME, DEFAULT_TO_NAME = "label", "text"


def write(corpus, path):
    """The corpus as a Label Studio JSON export (offsets in code points), a task at a time.

    The bytes are those of json.dump(tasks, indent=2): each task is dumped alone and indented
    one level (a newline inside a JSON string is written as the two characters \\n, so every
    newline of a dumped task is one of its layout's).
    """
    next_id, written = 1, 0
    with open(path, "w", encoding="utf-8") as handle:
        handle.write("[")
        for position, (document, annotations) in enumerate(corpus.by_document(), start=1):
            task, next_id = _task(position, document, annotations, next_id)
            handle.write(",\n  " if written else "\n  ")
            handle.write(json.dumps(task, ensure_ascii=False, indent=2).replace("\n", "\n  "))
            written += 1
        handle.write("\n]\n" if written else "]\n")


def _task(position, document, annotations, next_id):
    kept = document.meta or {}
    field = kept.get("text_field", "text")
    task = {"id": kept.get("id", position), "data": {field: document.text, **(kept.get("data") or {})}}
    if kept.get("meta"):
        task["meta"] = kept["meta"]
    names = (kept.get("from_name", DEFAULT_FROM_NAME), kept.get("to_name", DEFAULT_TO_NAME))
    task["annotations"], task["predictions"] = [], []
    for annotation in annotations:
        results = _written_results(annotation, names)
        if annotation.kind == MODEL:
            task["predictions"].append({"model_version": annotation.annotator, "result": results})
            continue
        task["annotations"].append({
            "id": next_id, "completed_by": int(annotation.annotator) if annotation.annotator.isdigit()
            else annotation.annotator, "result": results, "was_cancelled": False,
            "ground_truth": annotation.kind == GOLD, "lead_time": annotation.seconds,
        })  # fmt: skip
        next_id += 1
    return task, next_id


def _written_results(annotation, names):
    from_name, to_name = names
    results = []
    for region in annotation.regions:
        result = {
            "id": region.id, "from_name": from_name, "to_name": to_name, "type": "labels", "origin": "manual",
            "value": {"start": region.start, "end": region.end, "text": region.text, "labels": [region.label]},
        }  # fmt: skip
        if region.note:
            result["meta"] = {"text": [region.note]}
        results.append(result)
    for link in annotation.links:
        results.append({"from_id": link.source, "to_id": link.target, "type": "relation",
                        "direction": link.meta.get("direction", "right"),
                        "labels": [link.label] if link.label else []})  # fmt: skip
    return results
