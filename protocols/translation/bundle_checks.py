"""Check a translation bundle: the sources and references in the documents' meta, and the errors
and scores of assignments.jsonl, as the task API checks a worker's (services.py; one error:
bundle_errors.py).

Every problem is `file:line: message`; a line with a problem is left out, so one run lists them
all and the import writes nothing.
"""

from dataclasses import dataclass, field

from bundles.fields import is_int, unknown_fields
from bundles.headers import HEADER_FIELDS, check_header, unique_block_lines
from bundles.specs import AssignmentSpec
from bundles.spool import CheckedAssignments

from .bundle_errors import ERROR_FIELDS, check_error
from .bundle_suggestions import check_prefilled
from .keys import REFERENCES, SOURCES, WITH_SCORES, WITH_SPANS, is_contrastive

ASSIGNMENT_FIELDS = HEADER_FIELDS | {"document", "segments", "prefilled", "errors", "scores"}
CONTRASTIVE_FIELDS = HEADER_FIELDS | {"order", "errors", "scores"}
SCORE_FIELDS = {"segment", "score"}
LANGUAGES = ("source_lang", "target_lang")
ASSIGNMENT_BATCH = 500  # assignments per batch on disk, and per batch written


@dataclass
class TranslationAssignmentSpec(AssignmentSpec):
    """One line of assignments.jsonl: a worker's errors (MQM, ESA) and segment scores (ESA, DA), of
    one translation, or of every translation of a contrastive block, in `order` as they were shown."""

    errors: list = field(default_factory=list)
    scores: list = field(default_factory=list)  # [(document, segment, score)] in order
    order: list = field(default_factory=list)  # a contrastive block's translations, as the worker saw them
    segments: list = field(default_factory=list)  # the segments rated, when not all (an imported MQM file)
    prefilled: int | None = None  # how many suggestions it received (the suggestion arm of an assisted study)


# --- documents ---------------------------------------------------------------------------------


def check_document_meta(documents, problems, file, protocol):
    """meta.sources and meta.references give one text per segment, and a contrastive study's block
    is one source document; returns the ids refused. A document without sources is let in with a
    warning: its workers see no source."""
    check = DocumentMetaCheck(problems, file, protocol)
    return {spec.external_id for spec in documents if not check(spec)}


class DocumentMetaCheck:
    """check_document_meta of one document at a time (called with its DocumentSpec, True when it is
    good), so that documents added to a study need not be held with their meta to be checked."""

    def __init__(self, problems, file, protocol):
        self.problems, self.file, self.protocol = problems, file, protocol
        self._input_of_block = {}

    def __call__(self, spec):
        problems, file = self.problems, self.file
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
        if is_contrastive(self.protocol) and spec.kind == "main":
            ok = _one_source_a_block(spec, where, self._input_of_block, problems, file) and ok
        if ok and SOURCES not in meta and spec.kind == "main":
            problems.warn(file, spec.line, f"{where} has no meta.sources: its workers see no source text")
        return ok


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


def check_assignments(records, problems, *, documents, rules, broken=()):
    """The lines of assignments.jsonl as TranslationAssignmentSpecs, in a CheckedAssignments
    (bundles/spool.py: on disk until the write, a campaign's errors and scores are millions); `documents` maps an
    external id to its DocumentSpec. Lines of `broken` documents (reported already) are passed over."""
    if rules.contrastive:
        blocks = _translations_by_block(documents)
        return unique_block_lines(
            records,
            problems,
            lambda r: _check_block_line(r, problems, blocks, documents, rules, broken),
            _checked(),
        )
    specs, first_line = _checked(), {}
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


def _translations_by_block(documents):
    """{block: the ids of its translations} (get); from the store on disk where the documents wait
    there (ShelvedDocuments), else gathered here, no spec kept (a loop variable goes with it)."""
    if hasattr(documents, "translations_by_block"):
        return documents.translations_by_block()
    blocks = {}
    for spec in documents.values():
        if spec.block:
            blocks.setdefault(spec.block, []).append(spec.external_id)
    return blocks


def _checked():
    """Where checked lines wait for the write, their errors and scores counted as they come."""
    return CheckedAssignments(lambda spec: len(spec.errors) + len(spec.scores), batch=ASSIGNMENT_BATCH)


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

    spec_of_document = documents[document]  # once: a shelved document is read back from disk
    rated = _check_rated(value.get("segments"), spec_of_document, report)

    def translation(item, where):
        if "document" in item:
            report(f"{where}: 'document' names a translation of a contrastive study; this line's is "
                   f"'{document}'")  # fmt: skip
            return None
        if rated and item.get("segment") not in rated:
            report(f"{where}: segment {item.get('segment')!r} is not one the line rated ('segments')")
            return None
        return spec_of_document

    prefilled = check_prefilled(value, report)
    errors = _check_errors(value, translation, rules, report)
    scores = _check_scores(value, translation, rules, report)
    if header is None or rated is None or prefilled is False or errors is None or scores is None:
        return None
    return TranslationAssignmentSpec(document=document, errors=errors, scores=scores, segments=rated,
                                     prefilled=prefilled, **header)  # fmt: skip


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


def _check_block_line(record, problems, blocks, documents, rules, broken):
    """A contrastive line: {"block", "order": [its translations as shown], ..., "errors", "scores"},
    each error and score naming its translation's "document"; `blocks` maps a block to the ids of its
    translations, `documents` an id to its DocumentSpec."""
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

    read = {}  # each translation read once per line (a shelved one comes back from disk)

    def translation(item, where):
        name = item.get("document")
        if name not in translations:
            report(f"{where}: document {name!r} is not a translation of block '{header['block']}' "
                   f"({', '.join(translations)})")  # fmt: skip
            return None
        if name not in read:
            read[name] = documents[name]
        return read[name]

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
        allowed = ERROR_FIELDS | {"suggestion"} | ({"document"} if rules.contrastive else set())
        error = check_error(item, f"error {number}", translation, rules, report, allowed=allowed)
        if error is None:
            return None
        errors.append(error)
    return errors


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
