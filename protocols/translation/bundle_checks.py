"""Check a translation bundle: the sources and references in the documents' meta, and the errors
and scores of assignments.jsonl, as the task API checks a worker's (services.py).

Every problem is `file:line: message`; a line with a problem is left out, so one run lists them
all and the import writes nothing.
"""

from dataclasses import dataclass, field
from types import SimpleNamespace

from bundles.fields import is_int, unknown_fields
from bundles.headers import HEADER_FIELDS, check_header, unique_block_lines
from bundles.specs import AssignmentSpec
from studies.config import config_problems
from studies.spans import span_error

from . import config
from .keys import (
    MISSING,
    MQM,
    REFERENCES,
    SIDES,
    SOURCE,
    SOURCES,
    TARGET,
    WITH_SCORES,
    WITH_SPANS,
    is_contrastive,
    scheme,
)
from .services import MAX_COMMENT

ASSIGNMENT_FIELDS = HEADER_FIELDS | {"document", "segments", "errors", "scores"}
CONTRASTIVE_FIELDS = HEADER_FIELDS | {"order", "errors", "scores"}
ERROR_FIELDS = {"segment", "side", "start", "end", "text", "category", "severity", "comment", "client_id"}
SCORE_FIELDS = {"segment", "score"}
LANGUAGES = ("source_lang", "target_lang")


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


@dataclass
class TranslationAssignmentSpec(AssignmentSpec):
    """One line of assignments.jsonl: a worker's errors (MQM, ESA) and segment scores (ESA, DA), of
    one translation, or of every translation of a contrastive block, in `order` as they were shown."""

    errors: list = field(default_factory=list)
    scores: list = field(default_factory=list)  # [(document, segment, score)] in order
    order: list = field(default_factory=list)  # a contrastive block's translations, as the worker saw them
    segments: list = field(default_factory=list)  # the segments rated, when not all (an imported MQM file)


# --- documents ---------------------------------------------------------------------------------


def check_document_meta(documents, problems, file, protocol):
    """meta.sources and meta.references give one text per segment, and a contrastive study's block
    is one source document; returns the ids refused. A document without sources is let in with a
    warning: its workers see no source."""
    refused, input_of_block = set(), {}
    for spec in documents:
        meta = spec.meta if isinstance(spec.meta, dict) else {}
        where = f"document '{spec.external_id}'"
        ok = True
        for key in (SOURCES, REFERENCES):
            if key not in meta:
                continue
            texts = meta[key]
            if not isinstance(texts, list) or not all(isinstance(text, str) for text in texts):
                problems.add(file, spec.line, f"{where}: meta.{key} must be a list of texts, one per segment")
                ok = False
            elif len(texts) != len(spec.segments):
                problems.add(file, spec.line, f"{where}: meta.{key} has {len(texts)} texts for "
                                              f"{len(spec.segments)} segments: give one per segment")  # fmt: skip
                ok = False
        for key in LANGUAGES:
            if key in meta and not isinstance(meta[key], str):
                problems.add(file, spec.line, f'{where}: meta.{key} must be text, e.g. "de"')
                ok = False
        if is_contrastive(protocol) and spec.kind == "main":
            ok = _one_source_a_block(spec, where, input_of_block, problems, file) and ok
        if ok and SOURCES not in meta and spec.kind == "main":
            problems.warn(file, spec.line, f"{where} has no meta.sources: its workers see no source text")
        if not ok:
            refused.add(spec.external_id)
    return refused


def _one_source_a_block(spec, where, input_of_block, problems, file):
    """A contrastive block shows every system's translation of one source document side by side."""
    if not spec.block or not spec.input_id:
        problems.add(file, spec.line, f"{where}: a contrastive study needs its 'input_id' (the source "
                                      "document) and its 'block' (the same id: a block is one source)")  # fmt: skip
        return False
    first = input_of_block.setdefault(spec.block, (spec.input_id, spec.external_id))
    if first[0] != spec.input_id:
        problems.add(file, spec.line, f"{where}: block '{spec.block}' holds translations of '{first[0]}' "
                                      f"('{first[1]}'), not of '{spec.input_id}': a block is one source")  # fmt: skip
        return False
    return True


# --- assignments.jsonl -------------------------------------------------------------------------


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


def check_assignments(records, problems, *, documents, rules, broken=()):
    """The lines of assignments.jsonl as TranslationAssignmentSpecs; `documents` maps an external
    id to its DocumentSpec. Lines of `broken` documents (reported already) are passed over."""
    if rules.contrastive:
        blocks = {}
        for spec in documents.values():
            if spec.block:
                blocks.setdefault(spec.block, {})[spec.external_id] = spec
        return unique_block_lines(
            records, problems, lambda r: _check_block_line(r, problems, blocks, rules, broken)
        )
    specs, first_line = [], {}
    for record in records:
        if isinstance(record.value, dict) and str(record.value.get("document")) in broken:
            continue
        spec = _check_line(record, problems, documents, rules)
        if spec is None:
            continue
        identity = (spec.document, spec.platform, spec.annotator, spec.kind)
        if identity in first_line and spec.kind != "retest":
            problems.add(record.file, record.line,
                         f"annotator '{spec.annotator}' already has a {spec.kind} assignment for "
                         f"'{spec.document}' (line {first_line[identity]})")  # fmt: skip
            continue
        first_line.setdefault(identity, record.line)
        specs.append(spec)
    return specs


def _check_line(record, problems, documents, rules):
    """A line of one translation: {"document", ..., "errors", "scores"}."""
    value, file, line = record.value, record.file, record.line
    if not isinstance(value, dict):
        problems.add(file, line, 'an assignment must be an object: {"document": ..., "annotator": ...}')
        return None
    unknown_fields(value, ASSIGNMENT_FIELDS, file, problems, line)
    document = value.get("document")
    document = str(document) if is_int(document) else document
    if not isinstance(document, str) or document not in documents:
        problems.add(file, line, f"assignment for unknown document {document!r}")
        return None
    header = check_header(value, file, line, problems)

    def report(message):
        problems.add(file, line, message)

    rated = _check_rated(value.get("segments"), documents[document], report)

    def translation(item, where):
        if "document" in item:
            report(f"{where}: 'document' names a translation of a contrastive study; this line's is "
                   f"'{document}'")  # fmt: skip
            return None
        if rated and item.get("segment") not in rated:
            report(f"{where}: segment {item.get('segment')!r} is not one the line rated ('segments')")
            return None
        return documents[document]

    errors = _check_errors(value, translation, rules, report)
    scores = _check_scores(value, translation, rules, report)
    if header is None or rated is None or errors is None or scores is None:
        return None
    return TranslationAssignmentSpec(
        document=document, errors=errors, scores=scores, segments=rated, **header
    )


def _check_rated(raw, document, report):
    """The segments a line rated when it rated some only (a rater's share of a document in an MQM
    release, interop/mqm): distinct indices of the document; [] for all of them, None after a problem."""
    if raw is None:
        return []
    count = len(document.segments)
    if (
        not isinstance(raw, list)
        or not raw
        or not all(is_int(index) and 0 <= index < count for index in raw)
        or len(set(raw)) != len(raw)
    ):
        report(f"'segments' must list the segments rated, each once, from 0 to {count - 1} (left out: all)")
        return None
    return raw


def _check_block_line(record, problems, blocks, rules, broken):
    """A contrastive line: {"block", "order": [its translations as shown], ..., "errors", "scores"},
    each error and score naming its translation's "document"."""
    value, file, line = record.value, record.file, record.line
    if not isinstance(value, dict):
        problems.add(
            file, line, 'an assignment must be an object: {"block": ..., "annotator": ..., "order": [...]}'
        )
        return None
    unknown_fields(value, CONTRASTIVE_FIELDS, file, problems, line)
    header = check_header(value, file, line, problems)
    if header is None:
        return None
    translations = blocks.get(header["block"])
    if translations is None:
        problems.add(file, line, f"assignment for unknown block {header['block']!r} (a contrastive line names "
                                 "its block, the source document)")  # fmt: skip
        return None
    if set(translations) & set(broken):
        return None
    order = value.get("order", list(translations))
    if not isinstance(order, list) or sorted(map(str, order)) != sorted(translations):
        problems.add(file, line, f"'order' must list the block's translations ({', '.join(translations)}) "
                                 "once each, as the worker saw them")  # fmt: skip
        return None

    def report(message):
        problems.add(file, line, message)

    def translation(item, where):
        name = item.get("document")
        if name not in translations:
            report(f"{where}: document {name!r} is not a translation of block '{header['block']}' "
                   f"({', '.join(translations)})")  # fmt: skip
            return None
        return translations[name]

    errors = _check_errors(value, translation, rules, report)
    scores = _check_scores(value, translation, rules, report)
    if errors is None or scores is None:
        return None
    return TranslationAssignmentSpec(document=None, errors=errors, scores=scores, order=[str(o) for o in order],
                                     **header)  # fmt: skip


def _check_errors(value, translation, rules, report):
    if "errors" not in value:
        return []
    raw = value["errors"]
    if rules.scheme not in WITH_SPANS:
        report("'errors': a DA study scores segments and marks no errors")
        return None
    if not isinstance(raw, list):
        report("'errors' must be a list (empty: no error found)")
        return None
    errors = []
    for number, item in enumerate(raw, start=1):
        error = _check_error(item, f"error {number}", translation, rules, report)
        if error is None:
            return None
        errors.append(error)
    return errors


def _check_error(item, where, translation, rules, report):
    if not isinstance(item, dict):
        report(f"{where}: must be an object {{segment, side, start, end, text, severity, ...}}")
        return None
    allowed = ERROR_FIELDS | ({"document"} if rules.contrastive else set())
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
    placed = _placed(item, where, document, index, rules, category, report)
    if placed is None:
        return None
    return ErrorSpec(document.external_id, index, *placed, category, severity, comment, client_id)


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


def _check_scores(value, translation, rules, report):
    if "scores" not in value:
        return []
    raw = value["scores"]
    if rules.scheme not in WITH_SCORES:
        report("'scores': an MQM study's score is its errors' weights; a line gives no scores")
        return None
    if not isinstance(raw, list):
        report("'scores' must be a list of {segment, score}")
        return None
    low, high = rules.scale
    fields = SCORE_FIELDS | ({"document"} if rules.contrastive else set())
    scores, seen = [], set()
    for number, item in enumerate(raw, start=1):
        where = f"score {number}"
        if not isinstance(item, dict) or set(item) != fields:
            shape = '"document": its translation, ' if rules.contrastive else ""
            report(f'{where}: give {{{shape}"segment": index, "score": number}}')
            return None
        document = translation(item, where)
        if document is None:
            return None
        index, score = item["segment"], item["score"]
        if (
            not is_int(index)
            or not 0 <= index < len(document.segments)
            or (document.external_id, index) in seen
        ):
            report(f"{where}: segment {index!r} is not a new segment of the document (0 to "
                   f"{len(document.segments) - 1})")  # fmt: skip
            return None
        if isinstance(score, bool) or not isinstance(score, int | float) or not low <= score <= high:
            report(f"{where}: the score must be a number from {low} to {high}, not {score!r}")
            return None
        seen.add((document.external_id, index))
        scores.append((document.external_id, index, float(score)))
    return scores
