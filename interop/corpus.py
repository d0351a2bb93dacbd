"""The one shape every foreign format is read into and written from.

Offsets are Unicode code-point offsets into ``Document.text`` (the whole
document), end exclusive, as everywhere in the project: ``text[start:end]``.
A format that counts otherwise (UTF-16 code units, bytes) converts on reading
and writing; the core never sees its convention.
"""

from dataclasses import dataclass, field

MAIN = "main"  # a person's annotation
GOLD = "gold"  # an expert's (reference) annotation
MODEL = "model"  # an automatic evaluator's output (Label Studio predictions, factgenie LLM campaigns)


@dataclass
class Region:
    """A labelled stretch of a document's text."""

    start: int
    end: int
    label: str
    text: str = ""  # the covered text as the file gives it (checked against start/end when read)
    id: str = ""  # the file's own id of the region, which links refer to
    note: str = ""  # a free-text reason or comment the file attaches to the region


@dataclass
class Link:
    """A directed relation between two regions of one annotation (ids of Region.id)."""

    source: str
    target: str
    label: str = ""
    meta: dict = field(
        default_factory=dict
    )  # what else the format says of the link (Label Studio: direction)


@dataclass
class Annotation:
    """One annotator's (or evaluator's) work on one document; no regions means "found nothing"."""

    document: str  # Document.id
    annotator: str  # the file's own id of the person or evaluator
    regions: list[Region] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)
    kind: str = MAIN
    seconds: int = 0  # active time when the file records it
    meta: dict = field(default_factory=dict)  # anything else the format keeps, for writing it back
    # Where the file gives it, for problems found later: 0 the file as a whole, None a line it
    # shares with other items (a one-line JSON export), where `item` alone names it.
    line: int | None = 0
    item: str = ""  # how a problem names it, e.g. "task 3, annotation 12"


@dataclass
class Document:
    id: str
    text: str
    system: str = ""  # the system that generated the text, when the file says
    meta: dict = field(default_factory=dict)  # other fields of the file's item, kept for writing back
    line: int | None = 0  # as Annotation.line
    item: str = ""


@dataclass
class Corpus:
    """What one file holds. ``labels`` in the order the file first uses (or declares) them."""

    documents: list[Document] = field(default_factory=list)
    annotations: list[Annotation] = field(default_factory=list)
    labels: list[str] = field(default_factory=list)
    link_labels: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what was read but not taken, e.g. a cancelled annotation

    def by_document(self):
        """(document, its annotations) in the order of the documents (as StudyCorpus walks a study)."""
        of = {}
        for annotation in self.annotations:
            of.setdefault(annotation.document, []).append(annotation)
        for document in self.documents:
            yield document, of.get(document.id, [])

    def with_documents(self):
        """(document, annotation) in the order of the annotations."""
        documents = {document.id: document for document in self.documents}
        for annotation in self.annotations:
            yield documents[annotation.document], annotation
