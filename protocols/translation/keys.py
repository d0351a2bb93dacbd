"""The translation protocols' keys (Study.protocol values) and the words their data uses."""

MQM = "mqm"  # error spans with a category and a severity; the score is the sum of the errors' weights
ESA = "esa"  # error spans with a severity, then a 0-100 score per segment (Error Span Annotation)
DA = "da"  # a score per segment alone (Direct Assessment; SQM on a 0-6 scale)
KEYS = (MQM, ESA, DA)
WITH_SPANS = (MQM, ESA)
WITH_SCORES = (ESA, DA)

# Where an error lies: in the translation, in the source (an omission shown where the source
# says it), or nowhere to select (an omission marked with the [missing] marker).
TARGET = "target"
SOURCE = "source"
MISSING = "missing"
SIDES = (TARGET, SOURCE, MISSING)

# Document.meta keys of a translation document: per segment, its source and its reference.
SOURCES = "sources"
REFERENCES = "references"

# Contrastive studies: every system's translation of one source document on one page, in an
# order shuffled per worker and under neutral names (Translation 1, 2, ...). A block study:
# a block is one source document (Document.block = input_id), an item one system's document.
CONTRASTIVE = {"contrastive-mqm": MQM, "contrastive-esa": ESA, "contrastive-da": DA}


def scheme(protocol):
    """MQM, ESA or DA: how a study of `protocol` is judged and scored, contrastive or not."""
    return CONTRASTIVE.get(protocol, protocol)


def is_contrastive(protocol):
    return protocol in CONTRASTIVE


# Document.meta key of a quality check (a degraded copy): its injected errors (quality_checks/).
QUALITY_CHECK = "quality_check"
