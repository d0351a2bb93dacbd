"""Check document records (documents.jsonl or FALTE's documents.json)."""

import hashlib

from studies.models import Document
from studies.sentences import join_sentences

from .checked_documents import CheckedDocuments
from .fields import is_int, text_field, unknown_fields
from .problems import Problems
from .specs import DocumentSpec

DOCUMENT_FIELDS = {"id", "segments", "sentences", "input_id", "system", "source", "kind", "meta", "block"}
DEFAULT_SENTENCES_PER_SEGMENT = 3
DOCUMENT_KINDS = tuple(Document.Kind.values)  # once: the enum builds the list anew on each use


def check_documents(
    records, problems, *, existing_ids=(), sentences_per_segment=None, keep_texts=True, texts=None, each=None
):
    """Check every document record.

    Returns (good DocumentSpecs in a CheckedDocuments, on disk until the write; ids of documents
    that had problems), so that assignments for a broken document are not reported a second time.
    `existing_ids` are the study's stored documents (adding to a study). With
    `keep_texts=False` the specs keep their digest, not their segments (see
    `documents_again`): memory then does not grow with the texts. With `texts` (a SegmentTexts,
    bundles/texts.py) each good document's segments and meta are stored there, on disk, and not kept.
    `each` (a protocol's bundle_document_check) is called with each good spec before its texts
    are let go; with `keep_texts=False` its meta is let go too (the write reads the file again).
    """
    documents, broken, file = CheckedDocuments(), set(), ""
    existing_ids = set(existing_ids)
    for record in records:
        file = record.file
        if isinstance(record.value, dict) and "__falte_id" in record.value:
            spec = _check_falte(record, problems, sentences_per_segment)
        else:
            spec = _check_document(record, problems)
        if spec is None:
            if isinstance(record.value, dict):
                broken.add(str(record.value.get("id", record.value.get("__falte_id"))))
            continue
        external_id = spec.external_id
        if external_id in documents:
            problems.add(record.file, record.line,
                         f"duplicate document id '{external_id}' (first on line {documents.line_of(external_id)})")  # fmt: skip
            continue
        if external_id in existing_ids:
            problems.add(record.file, record.line, f"document id '{external_id}' is already in the study")
            continue
        spec.digest = texts_digest(spec.segments)
        if texts is not None:
            texts.add(external_id, spec.segments, spec.meta)
        if each is not None:
            each(spec)
        if not keep_texts or texts is not None:
            # The source (an article the outputs summarise, say) is text too: the write reads it again.
            spec.segments = spec.sentences = spec.source = None
            if (each is not None and not keep_texts) or texts is not None:
                spec.meta = None  # on disk with the texts, or read again with the file at the write
        documents.add(spec)
    _warn_identical_outputs(documents, problems, file)
    return documents, broken


def texts_digest(segments):
    """16 bytes that tell one document's text (its segments joined) from another's."""
    return hashlib.blake2b(" ".join(segments).encode(), digest_size=16).digest()


def documents_again(records, checked, file, *, sentences_per_segment=None):
    """The DocumentSpecs of a documents file read a second time, in the order of `checked` (the specs
    its check kept without texts): the write reads the texts from here, a batch at a time.

    The file was checked whole, so every record is good again; one that is not, or that differs
    from what was checked (the file changed in between), raises BundleInvalid, and the import's
    transaction writes nothing.
    """
    problems = Problems()
    position, expected_specs = 0, iter(checked)
    for record in records:
        if isinstance(record.value, dict) and "__falte_id" in record.value:
            spec = _check_falte(record, problems, sentences_per_segment)
        else:
            spec = _check_document(record, problems)
        expected = next(expected_specs, None)
        if spec is None or expected is None or spec.external_id != expected.external_id or (
            texts_digest(spec.segments) != expected.digest
        ):  # fmt: skip
            problems.add(record.file, record.line, "the file changed while it was imported: import it again")
            problems.raise_if_any()
        spec.digest = expected.digest
        position += 1
        yield spec
    if position != len(checked):
        problems.add(file, 0, "the file changed while it was imported: import it again")
        problems.raise_if_any()


def _warn_identical_outputs(documents, problems, file):
    """Outputs of different systems for the same input that are the same text (all segments joined).

    Not an error, but a tie no rating can break: Tang et al. sampled only inputs without them.
    A digest of the texts is compared, not the texts: keeping every text would hold the file twice.
    """
    for spec, first in documents.identical_outputs():
        at = "" if first.line is None else f", line {first.line}"
        problems.warn(file, spec.line,
                      f"document '{spec.external_id}' (system '{spec.system}') has the same text as "
                      f"'{first.external_id}' (system '{first.system}'{at}) for input '{spec.input_id}'")  # fmt: skip


def _check_document(record, problems):
    value, file, line = record.value, record.file, record.line
    if not isinstance(value, dict):
        problems.add(file, line, 'a document must be an object: {"id": ..., "segments": [...]}')
        return None
    unknown_fields(value, DOCUMENT_FIELDS, file, problems, line)
    external_id = value.get("id")
    if is_int(external_id):
        external_id = str(external_id)
    if not isinstance(external_id, str) or not external_id.strip():
        problems.add(file, line, "document 'id' is required")
        return None
    ok = True
    segments = value.get("segments")
    if not isinstance(segments, list) or not segments:
        problems.add(file, line, f"document '{external_id}': 'segments' must be a non-empty list of texts")
        return None
    for index, segment in enumerate(segments):
        if not isinstance(segment, str):
            problems.add(file, line, f"document '{external_id}': segment {index} must be text")
            ok = False
        elif not segment.strip():
            problems.add(file, line, f"document '{external_id}': segment {index} is empty")
            ok = False
    sentences = value.get("sentences")
    if sentences is not None and ok:
        ok = _check_sentences(sentences, segments, external_id, file, line, problems)
    kind = value.get("kind", Document.Kind.MAIN)
    if kind not in DOCUMENT_KINDS:
        problems.add(file, line, f"document '{external_id}': kind must be one of {', '.join(DOCUMENT_KINDS)}")
        ok = False
    meta = value.get("meta") or {}
    if isinstance(meta, dict) and "data" in meta:
        meta = {**meta, "data": records_as_tables(meta["data"])}
    if not isinstance(meta, dict):
        problems.add(file, line, f"document '{external_id}': 'meta' must be an object")
        ok = False
    spec = DocumentSpec(
        external_id=external_id,
        segments=segments,
        sentences=sentences,
        input_id=text_field(value, "input_id", file, line, problems),
        system=text_field(value, "system", file, line, problems),
        source=text_field(value, "source", file, line, problems),
        kind=kind,
        meta=meta,
        block=str(value["block"])
        if is_int(value.get("block"))
        else text_field(value, "block", file, line, problems),
        line=line,
    )
    return spec if ok else None


def records_as_tables(data):
    """Records ({"records": [...]} or a list of objects) become one table whose columns
    keep the keys' first-appearance order: PostgreSQL's jsonb would not keep it."""
    records = data.get("records") if isinstance(data, dict) else data
    if not isinstance(records, list) or not records or not all(isinstance(r, dict) for r in records):
        return data
    columns = list(dict.fromkeys(key for record in records for key in record))
    table = {"title": data.get("title", "") if isinstance(data, dict) else "", "columns": columns,
             "rows": [[record.get(column, "") for column in columns] for record in records]}  # fmt: skip
    return {"tables": [table]}


def _check_sentences(sentences, segments, external_id, file, line, problems):
    where = f"document '{external_id}'"
    if not isinstance(sentences, list) or len(sentences) != len(segments):
        problems.add(file, line, f"{where}: 'sentences' must give a list of [start, end] per segment")
        return False
    for index, (offsets, text) in enumerate(zip(sentences, segments, strict=True)):
        previous_end = 0
        if not isinstance(offsets, list):
            problems.add(file, line, f"{where}: sentences of segment {index} must be a list")
            return False
        for pair in offsets:
            if (not isinstance(pair, list) or len(pair) != 2 or not all(map(is_int, pair))
                    or not previous_end <= pair[0] < pair[1] <= len(text)):  # fmt: skip
                problems.add(file, line,
                             f"{where}: sentence {pair!r} of segment {index} is not an increasing "
                             f"[start, end) inside its {len(text)} characters")  # fmt: skip
                return False
            previous_end = pair[1]
    return True


def _check_falte(record, problems, sentences_per_segment):
    """FALTE input: a list of paragraphs, or {"sentences": [...]} chunked into segments."""
    external_id, body = record.value["__falte_id"], record.value["__falte_body"]
    file, line = record.file, record.line
    where = f"document '{external_id}'"
    if isinstance(body, list):
        return _check_document(record.__class__(file, line, {"id": external_id, "segments": body}), problems)
    if not isinstance(body, dict) or not isinstance(body.get("sentences"), list) or not body["sentences"]:
        problems.add(file, line, f'{where}: give a list of paragraphs or {{"sentences": [...]}}')
        return None
    sentences = body["sentences"]
    bad = [i for i, s in enumerate(sentences) if not isinstance(s, str) or not s.strip()]
    if bad:
        problems.add(file, line, f"{where}: sentence {bad[0]} is empty or not text")
        return None
    size = sentences_per_segment or DEFAULT_SENTENCES_PER_SEGMENT
    segments, offsets = [], []
    for begin in range(0, len(sentences), size):
        text, sentence_offsets = join_sentences(sentences[begin : begin + size])
        segments.append(text)
        offsets.append(sentence_offsets)
    return DocumentSpec(external_id=external_id, segments=segments, sentences=offsets, line=line)
