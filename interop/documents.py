"""Other tools' exports as a study's documents (the console's documents step): their texts,
cut into segments as an annotations import cuts them, without their annotations."""

from bundles.problems import BundleInvalid, Problem, Problems

from .formats.registry import FormatUnavailable, format_module
from .importing import segment_documents
from .parts import WholeCorpus

TEXT_FORMATS = {
    "label-studio": "Label Studio export (JSON)",
    "doccano": "doccano export (JSONL)",
    "potato": "Potato annotations",
    "factgenie": "factgenie campaign export",
}


def texts_of(path, name, fmt):
    """(line, document) of the export's texts, one document at a time (the documents step writes
    each as it comes); BundleInvalid names file, line (or the tool's item) and problem, once every
    document is read. A one-line file's documents have line 0 (their problems name the item).

    The file is read first, onto a shelf on disk where the format has one (`read_parts`), so the
    texts are not held: the memory of the documents step does not grow with the export."""
    problems = Problems()
    try:
        module = format_module(fmt, reading=True)
        if hasattr(module, "read_parts"):
            parts = module.read_parts(path, name, problems)
        else:
            parts = WholeCorpus(module.read(path, name, problems))
    except FormatUnavailable as unavailable:
        raise BundleInvalid([Problem(name, 0, str(unavailable))]) from None
    return _texts(parts, name, problems)


def _texts(parts, name, problems):
    seen = set()  # the ids of the documents of earlier parts: a repeated id is a problem
    try:
        for documents, _annotations in parts.parts():
            segmented = segment_documents(documents, name, None, problems, seen=seen)
            for document in documents:
                cut = segmented.get(document.id)
                if cut is not None:
                    yield (document.line or 0, {"id": document.id, "system": document.system,
                                                "segments": cut.segments, "sentences": cut.sentences})  # fmt: skip
    finally:
        if hasattr(parts, "close"):
            parts.close()
    problems.raise_if_any()
