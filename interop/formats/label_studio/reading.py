"""Reading a Label Studio JSON export into a corpus (the format: __init__.py)."""

import functools

from bundles.problems import located

from ...corpus import GOLD, MAIN, MODEL, Annotation, Corpus, Document, Link, Region
from ...reading import json_array_items
from ..offsets import CODE_POINTS, UTF16, Offsets


def read(path, name, problems, *, text_field=None):
    tasks = json_array_items(path, name, problems, what="task")
    if tasks is None:
        return Corpus()
    good = []
    for line, task in tasks:
        if not isinstance(task, dict) or not isinstance(task.get("data"), dict):
            problems.add(name, line, 'a task must be an object with "data": {...}')
        else:
            good.append((line, task))
    field = _text_field(good, text_field, name, problems)
    if field is None:
        return Corpus()
    corpus, spans = Corpus(), []
    for position, (line, task) in enumerate(good, start=1):
        document = _document(task, position, field, line)
        corpus.documents.append(document)
        for annotation_raw, kind in [*((a, MAIN) for a in _list(task, "annotations")),
                                     *((p, MODEL) for p in _list(task, "predictions"))]:  # fmt: skip
            annotation = _annotation(annotation_raw, kind, document, line, name, problems, corpus)
            if annotation is not None:
                spans += _results(annotation_raw, annotation, document, name, problems, corpus)
                corpus.annotations.append(annotation)
    _place(spans, name, problems, corpus)
    return corpus


def _list(task, key):
    value = task.get(key) or []
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _text_field(tasks, given, name, problems):
    """The data field holding each task's text: the given one, or the one string field of every task."""
    if not tasks:
        problems.add(name, 0, "no tasks in the file")
        return None
    if given is not None:
        lacking = [
            str(task.get("id", line)) for line, task in tasks if not isinstance(task["data"].get(given), str)
        ]
        if lacking:
            problems.add(name, 0, f"text field {given!r} is not text in tasks {', '.join(lacking[:10])}"
                                  f"{' ...' if len(lacking) > 10 else ''}")  # fmt: skip
            return None
        return given
    common = None
    for _, task in tasks:
        fields = [key for key, value in task["data"].items() if isinstance(value, str)]
        common = fields if common is None else [key for key in common if key in fields]
    if not common:
        problems.add(name, 0, "no field of data is text in every task; name the text field (--text-field)")
        return None
    if len(common) > 1:
        fitting = {key: _regions_fitting(tasks, key) for key in common}
        best = max(fitting.values())
        if best and list(fitting.values()).count(best) == 1:
            return max(fitting, key=fitting.get)
        problems.add(name, 0, f"data has {len(common)} fields that are text in every task "
                              f"({', '.join(common)}); name the one annotated with --text-field")  # fmt: skip
        return None
    return common[0]


def _regions_fitting(tasks, field):
    """How many labelled regions' value.text is the text of `field` at their offsets (either
    convention): what tells the annotated field from, say, a title when both are text."""
    fitting = 0
    for _, task in tasks:
        text = task["data"][field]
        for raw in [*_list(task, "annotations"), *_list(task, "predictions")]:
            for result in raw.get("result") or []:
                value = result.get("value") if isinstance(result, dict) else None
                if not isinstance(value, dict) or not isinstance(value.get("text"), str):
                    continue
                start, end = value.get("start"), value.get("end")
                if isinstance(start, bool) or not isinstance(start, int) or not isinstance(end, int):
                    continue
                units = _from_utf16(text, start, end) if 0 <= start < end else None
                fitting += text[start:end] == value["text"] or (
                    units is not None and text[units[0] : units[1]] == value["text"]
                )
    return fitting


def _document(task, position, field, line):
    task_id = task.get("id")
    document_id = str(task_id) if isinstance(task_id, int | str) and str(task_id).strip() else str(position)
    kept = {"text_field": field, "data": {key: value for key, value in task["data"].items() if key != field}}
    if task_id is not None:
        kept["id"] = task_id
    if task.get("meta"):
        kept["meta"] = task["meta"]
    return Document(
        id=document_id, text=task["data"][field], meta=kept, line=line, item=f"task {document_id}"
    )


def _annotation(raw, kind, document, line, name, problems, corpus):
    what = "prediction" if kind == MODEL else "annotation"
    item = f"{document.item}, {what} {raw.get('id', '?')}"
    if raw.get("was_cancelled"):
        corpus.notes.append(f"{located(name, line)}: {item}: cancelled (was_cancelled), not imported")
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
        document=document.id, annotator=annotator, kind=kind, line=line, item=item, meta=meta,
        seconds=round(seconds) if isinstance(seconds, int | float) and seconds >= 0 else 0,
    )  # fmt: skip


def _completed_by(value):
    if isinstance(value, dict):
        value = value.get("id", value.get("email"))
    if isinstance(value, bool) or not isinstance(value, int | str) or not str(value).strip():
        return None
    return str(value)


def _results(raw, annotation, document, name, problems, corpus):
    """Regions and links of one annotation; returns [(Region, Annotation, Document)] whose offsets _place checks."""
    spans, skipped = [], {}
    for result in raw.get("result") or []:
        kind = result.get("type") if isinstance(result, dict) else None
        if kind == "labels":
            region = _region(result, annotation, name, problems)
            if region is not None:
                spans.append((region, annotation, document))
                _remember_names(document, result)
        elif kind == "relation":
            link = _link(result, annotation, name, problems)
            if link is not None:
                annotation.links.append(link)
                if link.label and link.label not in corpus.link_labels:
                    corpus.link_labels.append(link.label)
        else:
            skipped[kind] = skipped.get(kind, 0) + 1
    for kind, count in skipped.items():
        corpus.notes.append(
            f"{located(name, annotation.line)}: {annotation.item}: {count} result(s) of type {kind!r} not imported"
        )
    return spans


def _remember_names(document, result):
    """The labelling config's tag names, so that writing back gives the same from_name and to_name."""
    for key in ("from_name", "to_name"):
        if isinstance(result.get(key), str):
            document.meta.setdefault(key, result[key])


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


def _place(spans, name, problems, corpus):
    """Take each span's offsets by the convention its value.text matches (module docstring)."""
    matches = []
    for region, _annotation, document in spans:
        text, given = document.text, region.text
        utf16 = _from_utf16(text, region.start, region.end)
        as_points = text[region.start : region.end] if region.end <= len(text) else None
        as_units = text[utf16[0] : utf16[1]] if utf16 else None
        matches.append((as_points == given if given else as_points is not None, as_units == given if given else False,
                        as_points, as_units, utf16))  # fmt: skip
    only_units = sum(1 for points, units, *_ in matches if units and not points)
    only_points = sum(1 for points, units, *_ in matches if points and not units)
    convention = UTF16 if only_units > only_points else CODE_POINTS
    converted = 0
    for (region, annotation, document), (points, units, as_points, as_units, utf16) in zip(
        spans, matches, strict=True
    ):
        if units and (convention == UTF16 or not points):
            if (region.start, region.end) != utf16:
                converted += 1
            region.start, region.end = utf16
        elif not points and not region.text:
            problems.add(name, annotation.line,
                         f"{annotation.item}, region {region.id}: [{region.start}, {region.end}) is outside the "
                         f"task's text ({len(document.text)} characters)")  # fmt: skip
            continue
        elif not points:
            problems.add(name, annotation.line,
                         f"{annotation.item}, region {region.id}: value.text {region.text!r} is not the text at "
                         f"[{region.start}, {region.end}) counted in code points ({as_points!r}) nor in UTF-16 "
                         f"code units ({as_units!r})")  # fmt: skip
            continue
        region.text = region.text or as_points
        annotation.regions.append(region)
    if converted:
        corpus.notes.append(f"{name}:0: {converted} span(s) counted in UTF-16 code units (older Label Studio) "
                            "were read as such")  # fmt: skip


@functools.lru_cache(maxsize=8)
def _utf16(text):
    """One text's UTF-16 offsets, once per text: a task's regions are checked one after another."""
    return Offsets(text, UTF16)


def _from_utf16(text, start, end):
    """The code-point offsets of UTF-16 offsets [start, end), or None when one falls inside a
    character or past the text."""
    offsets = _utf16(text)
    first, last = offsets.to_code_points(start), offsets.to_code_points(end)
    if first is None or last is None or last > len(text):
        return None
    return first, last
