"""Other tools' exports as a study's documents (the console's documents step): their texts,
cut into segments as an annotations import cuts them, without their annotations."""

from bundles.problems import BundleInvalid, Problem, Problems

from .formats.registry import FormatUnavailable, format_module
from .importing import segment_documents

TEXT_FORMATS = {
    "label-studio": "Label Studio export (JSON)",
    "doccano": "doccano export (JSONL)",
    "potato": "Potato annotations",
    "factgenie": "factgenie campaign export",
}


def texts_of(path, name, fmt):
    """[(line, document)] of the export's texts; BundleInvalid names file, line (or the tool's
    item) and problem. A one-line file's documents have line 0 (their problems name the item)."""
    problems = Problems()
    try:
        corpus = format_module(fmt, reading=True).read(path, name, problems)
    except FormatUnavailable as unavailable:
        raise BundleInvalid([Problem(name, 0, str(unavailable))]) from None
    segmented = segment_documents(corpus.documents, name, None, problems)
    problems.raise_if_any()
    return [
        (document.line or 0, {"id": document.id, "system": document.system,
                              "segments": segmented[document.id].segments,
                              "sentences": segmented[document.id].sentences})
        for document in corpus.documents
    ]  # fmt: skip
