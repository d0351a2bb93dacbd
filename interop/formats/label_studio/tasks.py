"""One Label Studio task read into a document and its annotations (the format: __init__.py).

Each function takes one task and keeps nothing of it: reading.py calls them once per task
in each of its two readings of the file.
"""

import functools

from bundles.problems import located

from ...corpus import GOLD, MAIN, MODEL, Annotation, Document, Link, Region
from ..offsets import UTF16, Offsets


def is_task(task):
    return isinstance(task, dict) and isinstance(task.get("data"), dict)


def document_id(task, position):
    """The task's id, else its position among the file's tasks."""
    task_id = task.get("id")
    return str(task_id) if isinstance(task_id, int | str) and str(task_id).strip() else str(position)


def text_fields(task):
    return [key for key, value in task["data"].items() if isinstance(value, str)]


def document(task, position, field, line):
    task_id = task.get("id")
    kept = {"text_field": field, "data": {key: value for key, value in task["data"].items() if key != field}}
    if task_id is not None:
        kept["id"] = task_id
    if task.get("meta"):
        kept["meta"] = task["meta"]
    identifier = document_id(task, position)
    return Document(id=identifier, text=task["data"][field], meta=kept, line=line, item=f"task {identifier}")


def annotations(task, identifier, line, name, problems, notes, names=None):
    """([Annotation], [(Region, Annotation)]) of the task's annotations and predictions; each
    annotation's regions are not placed yet (reading.py places them by the file's convention).
    `names` (a document's meta) gets the labelling config's tag names."""
    read, spans = [], []
    for raw, kind in [*((a, MAIN) for a in _list(task, "annotations")),
                      *((p, MODEL) for p in _list(task, "predictions"))]:  # fmt: skip
        annotation = _annotation(raw, kind, identifier, line, name, problems, notes)
        if annotation is not None:
            spans += _results(raw, annotation, name, problems, notes, names)
            read.append(annotation)
    return read, spans


def regions_fitting(task, text):
    """How many labelled regions' value.text is `text` at their offsets (either convention): what
    tells the annotated field from, say, a title when both are text."""
    fitting = 0
    for raw in [*_list(task, "annotations"), *_list(task, "predictions")]:
        for result in raw.get("result") or []:
            value = result.get("value") if isinstance(result, dict) else None
            if not isinstance(value, dict) or not isinstance(value.get("text"), str):
                continue
            start, end = value.get("start"), value.get("end")
            if isinstance(start, bool) or not isinstance(start, int) or not isinstance(end, int):
                continue
            units = from_utf16(text, start, end) if 0 <= start < end else None
            fitting += text[start:end] == value["text"] or (
                units is not None and text[units[0] : units[1]] == value["text"]
            )
    return fitting


def matching(text, region):
    """How a region's offsets match its value.text in `text`: (by code points, by UTF-16 units,
    the text at the offsets counted in each, the code-point offsets of the UTF-16 ones)."""
    given = region.text
    utf16 = from_utf16(text, region.start, region.end)
    as_points = text[region.start : region.end] if region.end <= len(text) else None
    as_units = text[utf16[0] : utf16[1]] if utf16 else None
    points = as_points == given if given else as_points is not None
    units = as_units == given if given else False
    return points, units, as_points, as_units, utf16


def _list(task, key):
    value = task.get(key) or []
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _annotation(raw, kind, identifier, line, name, problems, notes):
    what = "prediction" if kind == MODEL else "annotation"
    item = f"task {identifier}, {what} {raw.get('id', '?')}"
    if raw.get("was_cancelled"):
        notes.append(f"{located(name, line)}: {item}: cancelled (was_cancelled), not imported")
        return None
    if kind == MODEL:
        annotator = str(raw.get("model_version") or "prediction")
    else:
        annotator = _completed_by(raw.get("completed_by"))
        if annotator is None:
            problems.add(name, line, f"{item}: completed_by must be a user id or an object with its id")
            return None
        if raw.get("ground_truth"):
            kind = GOLD
    if not isinstance(raw.get("result", []), list):
        problems.add(name, line, f"{item}: result must be a list")
        return None
    seconds = raw.get("lead_time")
    meta = {"id": raw["id"]} if "id" in raw else {}
    return Annotation(
        document=identifier, annotator=annotator, kind=kind, line=line, item=item, meta=meta,
        seconds=round(seconds) if isinstance(seconds, int | float) and seconds >= 0 else 0,
    )  # fmt: skip


def _completed_by(value):
    if isinstance(value, dict):
        value = value.get("id", value.get("email"))
    if isinstance(value, bool) or not isinstance(value, int | str) or not str(value).strip():
        return None
    return str(value)


def _results(raw, annotation, name, problems, notes, names):
    """Regions and links of one annotation: its links are the annotation's, its regions are
    given as [(Region, Annotation)] to be placed (and then added to annotation.regions)."""
    spans, skipped = [], {}
    for result in raw.get("result") or []:
        kind = result.get("type") if isinstance(result, dict) else None
        if kind == "labels":
            region = _region(result, annotation, name, problems)
            if region is not None:
                spans.append((region, annotation))
                if names is not None:
                    _remember_names(names, result)
        elif kind == "relation":
            link = _link(result, annotation, name, problems)
            if link is not None:
                annotation.links.append(link)
        else:
            skipped[kind] = skipped.get(kind, 0) + 1
    for kind, count in skipped.items():
        notes.append(
            f"{located(name, annotation.line)}: {annotation.item}: {count} result(s) of type {kind!r} not imported"
        )
    return spans


def _remember_names(meta, result):
    """The labelling config's tag names, so that writing back gives the same from_name and to_name."""
    for key in ("from_name", "to_name"):
        if isinstance(result.get(key), str):
            meta.setdefault(key, result[key])


def _region(result, annotation, name, problems):
    value = result.get("value")
    where = f"{annotation.item}, region {result.get('id', '?')}"
    if not isinstance(value, dict):
        problems.add(name, annotation.line, f"{where}: value must be an object")
        return None
    start, end, labels, text = value.get("start"), value.get("end"), value.get("labels"), value.get("text")
    if any(isinstance(n, bool) or not isinstance(n, int) for n in (start, end)) or not 0 <= start < end:
        problems.add(
            name, annotation.line, f"{where}: value.start and value.end must be whole numbers, start < end"
        )
        return None
    if (
        not isinstance(labels, list)
        or len(labels) != 1
        or not isinstance(labels[0], str)
        or not labels[0].strip()
    ):
        problems.add(
            name, annotation.line, f"{where}: value.labels must name exactly one label, not {labels!r}"
        )
        return None
    if text is not None and not isinstance(text, str):
        problems.add(name, annotation.line, f"{where}: value.text must be text")
        return None
    note = ""
    meta = result.get("meta")
    if isinstance(meta, dict) and isinstance(meta.get("text"), list):
        note = "\n".join(part for part in meta["text"] if isinstance(part, str))
    region_id = str(result.get("id", ""))
    return Region(start=start, end=end, label=labels[0], text=text or "", id=region_id, note=note)


def _link(result, annotation, name, problems):
    labels = result.get("labels") or []
    where = f"{annotation.item}, relation {result.get('from_id')} -> {result.get('to_id')}"
    if not isinstance(labels, list) or len(labels) > 1 or not all(isinstance(label, str) for label in labels):
        problems.add(
            name, annotation.line, f"{where}: labels must be a list of at most one label, not {labels!r}"
        )
        return None
    direction = result.get("direction", "right")
    if direction not in ("right", "left", "bi"):
        problems.add(
            name, annotation.line, f"{where}: direction must be right, left or bi, not {direction!r}"
        )
        return None
    return Link(source=str(result.get("from_id")), target=str(result.get("to_id")),
                label=labels[0] if labels else "", meta={"direction": direction})  # fmt: skip


@functools.lru_cache(maxsize=8)
def _utf16(text):
    """One text's UTF-16 offsets, once per text: a task's regions are checked one after another."""
    return Offsets(text, UTF16)


def from_utf16(text, start, end):
    """The code-point offsets of UTF-16 offsets [start, end), or None when one falls inside a
    character or past the text."""
    offsets = _utf16(text)
    first, last = offsets.to_code_points(start), offsets.to_code_points(end)
    if first is None or last is None or last > len(text):
        return None
    return first, last
