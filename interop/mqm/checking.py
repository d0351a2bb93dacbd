"""The first pass of an MQM import: every line of the file checked, and a Plan of what to write,
without the file's texts (a digest of each instead)."""

import hashlib
from dataclasses import dataclass, field

from reports.metrics.mqm import WeightMissing, is_no_error

from ..categories import LABEL_LENGTH
from ..formats.mqm_tsv import COLUMNS, scan

MAX_SEVERITIES = 6  # protocols/translation/config.py
NAME_LENGTH = 255  # Document.system, input_id, external_id; Worker.external_id
SEVERITY_LENGTH = 32  # TranslationError.severity


def _digest(text):
    return hashlib.blake2b(text.encode("utf-8"), digest_size=12).digest()


@dataclass
class Doc:
    """A doc of the file (the source document): its segments by seg_id, shared by every system."""

    name: str
    seg_ids: dict = field(default_factory=dict)  # seg_id -> [source, doc_id, first line]
    systems: dict = field(default_factory=dict)  # system -> Translation, in the file's order


@dataclass
class Translation:
    """One system's translation of a doc: its targets' digests and who rated which segment."""

    system: str
    targets: dict = field(default_factory=dict)  # seg_id -> (digest, first line)
    raters: dict = field(default_factory=dict)  # rater -> {seg_id}, in the file's order


@dataclass
class Plan:
    """What the first pass learnt of the file."""

    header: list = field(default_factory=list)
    columns: dict = field(default_factory=dict)  # number of columns -> lines
    docs: dict = field(default_factory=dict)  # doc -> Doc, in the file's order
    categories: dict = field(default_factory=dict)  # label -> first line
    severities: dict = field(default_factory=dict)  # lower-case -> the file's first spelling
    respelled: dict = field(default_factory=dict)  # another spelling -> its first line
    lines: int = 0
    errors: int = 0
    numeric: bool = True  # every seg_id a whole number

    def seg_order(self, doc):
        seg_ids = list(doc.seg_ids)
        return sorted(seg_ids, key=int) if self.numeric else seg_ids


def _check_line(line, plan, weights, name, problems, weight_refused):
    """Check one line against what earlier lines said; keep what the write needs."""
    add = lambda message: problems.add(name, line.number, message)  # noqa: E731
    for what, value in (("system", line.system), ("doc", line.doc), ("rater", line.rater)):
        if len(value) > NAME_LENGTH:
            add(f"the {what} name has {len(value)} characters; at most {NAME_LENGTH}")
            return
    if not line.target.text:
        add("the target is empty: a segment needs a text")
        return
    if any("\x00" in value for value in (line.system, line.doc, line.doc_id, line.seg_id, line.rater,
                                          line.source.text, line.target.text, line.category, *line.rest)):  # fmt: skip
        add("a NUL character (\\x00), which no database text can hold")
        return
    no_error = is_no_error(line.category, line.severity)
    if not no_error:
        if not line.category.strip():
            add("no category: an MQM error has a category and a severity (an ESA file names none)")
            return
        if not line.severity.strip():
            add("no severity")
            return
        if len(line.category) > LABEL_LENGTH:
            add(f"the category has {len(line.category)} characters; at most {LABEL_LENGTH}")
            return
        if len(line.severity.strip()) > SEVERITY_LENGTH:
            add(f"the severity has {len(line.severity.strip())} characters; at most {SEVERITY_LENGTH}")
            return
        spans = len(line.source.spans) + len(line.target.spans)
        if spans > 1:
            add(f"{spans} spans marked; an error line marks one span (or none)")
            return
        severity = line.severity.strip()
        if severity.lower() not in plan.severities:
            plan.severities[severity.lower()] = severity
        elif plan.severities[severity.lower()] != severity:
            plan.respelled.setdefault(severity, line.number)
        try:
            weights.weight(line.category, severity)
        except WeightMissing as missing:
            if severity.lower() not in weight_refused:
                weight_refused.add(severity.lower())
                add(f"{missing}: give its weight (--weights, or the config's weights in study.yaml)")
            return
        plan.categories.setdefault(line.category, line.number)
        plan.errors += 1
    doc = plan.docs.get(line.doc)
    if doc is None:
        doc = plan.docs[line.doc] = Doc(line.doc)
    known = doc.seg_ids.get(line.seg_id)
    if known is None:
        doc.seg_ids[line.seg_id] = [line.source.text, line.doc_id, line.number]
        if plan.numeric and not line.seg_id.isdecimal():
            plan.numeric = False
    elif known[0] != line.source.text:
        add(f"the source of segment {line.seg_id} of doc {line.doc!r} differs from line {known[2]}'s")
        return
    translation = doc.systems.get(line.system)
    if translation is None:
        translation = doc.systems[line.system] = Translation(line.system)
    digest = _digest(line.target.text)
    target = translation.targets.get(line.seg_id)
    if target is None:
        translation.targets[line.seg_id] = (digest, line.number)
    elif target[0] != digest:
        add(f"the target of segment {line.seg_id} of doc {line.doc!r} by {line.system} differs from "
            f"line {target[1]}'s")  # fmt: skip
        return
    translation.raters.setdefault(line.rater, set()).add(line.seg_id)


def check_file(path, *, name, weights, problems):
    """The first pass: every line checked (problems added), a Plan of what to write."""
    plan, weight_refused = Plan(), set()
    for line in scan(
        path, header=plan.header, problem=lambda number, message: problems.add(name, number, message)
    ):
        plan.lines += 1
        columns = len(COLUMNS) + len(line.rest)
        plan.columns[columns] = plan.columns.get(columns, 0) + 1
        _check_line(line, plan, weights, name, problems, weight_refused)
    if not plan.lines and not problems:
        problems.add(name, 0, "no MQM lines in the file")
    if len(plan.severities) > MAX_SEVERITIES:
        problems.add(name, 0, f"{len(plan.severities)} severities ({', '.join(plan.severities.values())}); "
                              f"a study has at most {MAX_SEVERITIES}")  # fmt: skip
    return plan


def mildest_first(plan, weights):
    """The file's severities, mildest first (by weight, then as the file first uses them)."""
    found = list(plan.severities.values())
    return sorted(found, key=lambda s: (weights.weighs(s) if weights.weighs(s) is not None else float("inf"),
                                        found.index(s)))  # fmt: skip
