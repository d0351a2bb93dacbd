"""One error of a translation bundle (a worker's in assignments.jsonl, or a judge's suggestion),
checked as the task API checks a worker's (services.py), and the study's rules it is checked by."""

from dataclasses import dataclass, field
from types import SimpleNamespace

from bundles.fields import is_int
from studies.config import config_problems
from studies.spans import span_error

from . import config
from .keys import MISSING, MQM, SIDES, SOURCE, SOURCES, TARGET, is_contrastive, scheme
from .services import MAX_COMMENT

ERROR_FIELDS = {"segment", "side", "start", "end", "text", "category", "severity", "comment", "client_id"}


@dataclass(frozen=True)
class ErrorSpec:
    document: str  # its translation's external id
    segment: int
    side: str
    start: int
    end: int
    text: str
    category: str | None  # a category key (MQM), None (ESA)
    severity: str  # the study's spelling
    comment: str = ""
    client_id: str = ""
    suggestion: int | None = None  # the position of the document's suggestion it was pre-filled from


@dataclass(frozen=True)
class Rules:
    """What the study lets a line hold: from study.yaml, or the protocol's defaults when its config
    is broken (study.yaml's problems say how), so the work is still checked in the same run."""

    scheme: str  # MQM, ESA or DA
    contrastive: bool
    severities: tuple
    scale: tuple | None
    source_spans: bool
    missing_marker: bool
    categories: dict  # {key: whole_sentence}
    suggestions: dict = field(default_factory=dict)  # {document: positions of its suggestions}

    @classmethod
    def of(cls, spec):
        usable = not config_problems(spec.config, protocol=spec.protocol)
        study = spec if usable else SimpleNamespace(protocol=spec.protocol, config={})
        judged = scheme(spec.protocol)
        categories = (
            {c.key: c.whole_sentence for c in spec.taxonomy.categories}
            if judged == MQM and spec.taxonomy
            else {}
        )
        return cls(judged, is_contrastive(spec.protocol), tuple(config.severities(study)), config.scale(study),
                   config.source_spans(study), config.missing_marker(study), categories)  # fmt: skip


def check_error(item, where, translation, rules, report, *, allowed):
    """One error (or suggestion) as an ErrorSpec, or None after naming what is wrong: `translation(item,
    where)` gives its DocumentSpec; `allowed` are the fields it may have."""
    if not isinstance(item, dict):
        report(f"{where}: must be an object {{segment, side, start, end, text, severity, ...}}")
        return None
    if unknown := sorted(set(item) - allowed, key=str):
        report(f"{where}: unknown field '{unknown[0]}' (allowed: {', '.join(sorted(allowed))})")
        return None
    document = translation(item, where)
    if document is None:
        return None
    index = item.get("segment")
    if not is_int(index) or not 0 <= index < len(document.segments):
        report(f"{where}: segment {index!r} is not in the document (0 to {len(document.segments) - 1})")
        return None
    category = _category(item.get("category"), where, rules, report)
    severity = _severity(item.get("severity"), where, rules, report)
    comment, client_id = item.get("comment") or "", item.get("client_id") or ""
    if not isinstance(comment, str) or len(comment) > MAX_COMMENT or not isinstance(client_id, str):
        report(f"{where}: 'comment' must be text of at most {MAX_COMMENT} characters, 'client_id' text")
        return None
    if category is False or severity is None:
        return None
    suggestion = item.get("suggestion") if "suggestion" in allowed else None
    if suggestion is not None and suggestion not in rules.suggestions.get(document.external_id, ()):
        report(f"{where}: suggestion {suggestion!r} is not one of document '{document.external_id}' "
               "(suggestions.jsonl)")  # fmt: skip
        return None
    placed = _placed(item, where, document, index, rules, category, report)
    if placed is None:
        return None
    return ErrorSpec(document.external_id, index, *placed, category, severity, comment, client_id, suggestion)


def _category(value, where, rules, report):
    """The category key, None for ESA, or False after a problem."""
    if rules.scheme != MQM:
        if value not in (None, ""):
            report(f"{where}: an ESA error has a severity only, no category")
            return False
        return None
    if value not in rules.categories:
        report(
            f"{where}: unknown category {value!r} (the taxonomy has {', '.join(sorted(rules.categories))})"
        )
        return False
    return value


def _severity(value, where, rules, report):
    if isinstance(value, str):
        for name in rules.severities:
            if name.lower() == value.strip().lower():
                return name
    report(f"{where}: severity {value!r} is not one of {', '.join(rules.severities)}")
    return None


def _placed(item, where, document, index, rules, category, report):
    """(side, start, end, text), checked as the task API checks a worker's error."""
    side = item.get("side", TARGET)
    target = document.segments[index]
    given = {key: item[key] for key in ("start", "end", "text") if key in item}
    if category is not None and rules.categories[category]:  # a whole-segment category (Non-translation)
        whole = {"start": 0, "end": len(target), "text": target}
        if side != TARGET or any(given[key] != whole[key] for key in given):
            report(f"{where}: category {category} covers the whole segment: side target, start 0, end "
                   f"{len(target)} (or leave them out)")  # fmt: skip
            return None
        return TARGET, 0, len(target), target
    if side not in SIDES:
        report(f"{where}: side {side!r} is not one of {', '.join(SIDES)}")
        return None
    if side == MISSING:
        if not rules.missing_marker:
            report(f"{where}: this study has no [missing] marker (config.missing_marker is false)")
            return None
        if given.get("start", 0) != 0 or given.get("end", 0) != 0 or given.get("text", "") != "":
            report(f"{where}: a [missing] error has no span: start 0, end 0 and no text (or leave them out)")
            return None
        return MISSING, 0, 0, ""
    if side == SOURCE and not rules.source_spans:
        report(f"{where}: this study marks errors in the translation only (config.source_spans is false)")
        return None
    text = target if side == TARGET else _source(document, index)
    if problem := span_error(text, item.get("start"), item.get("end"), item.get("text")):
        report(f"{where}: {side} of segment {index}: {problem.replace('the segment', 'it')}")
        return None
    return side, item["start"], item["end"], text[item["start"] : item["end"]]


def _source(document, index):
    sources = document.meta.get(SOURCES) if isinstance(document.meta, dict) else None
    return sources[index] if isinstance(sources, list) and index < len(sources) else ""
