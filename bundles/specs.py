"""Checked bundle content: plain dataclasses, ready to write or compare."""

from dataclasses import dataclass, field


@dataclass
class CategorySpec:
    key: str
    label: str
    description: str = ""
    kind: str = "singleton"
    group: str = ""
    color: str = "#ffe08a"
    shortcut: str = ""
    whole_sentence: bool = False
    snap_to_words: bool = False
    order: int = 0

    def as_dict(self):
        return {
            "key": self.key,
            "label": self.label,
            "description": self.description,
            "kind": self.kind,
            "group": self.group,
            "color": self.color,
            "shortcut": self.shortcut,
            "whole_sentence": self.whole_sentence,
            "snap_to_words": self.snap_to_words,
            "order": self.order,
        }


@dataclass
class TaxonomySpec:
    slug: str
    name: str
    version: str = "1"
    description: str = ""
    categories: list = field(default_factory=list)


@dataclass
class StudySpec:
    slug: str
    title: str
    protocol: str = "span"
    instructions: str = ""
    status: str = "draft"
    annotators_per_document: int = 3
    max_documents_per_worker: int | None = None
    config: dict = field(default_factory=dict)
    taxonomy: TaxonomySpec | None = None
    # {extension key: what its study_yaml_check returned} (studies/extensions.py)
    extensions: dict = field(default_factory=dict)


# Slots: a 100,000-document import keeps one per document from checking to writing.
@dataclass(slots=True)
class DocumentSpec:
    external_id: str
    segments: list
    sentences: list | None = None  # per segment, or None to compute at write
    input_id: str = ""
    system: str = ""
    source: str = ""
    kind: str = "main"
    meta: dict = field(default_factory=dict)
    block: str = ""
    # Where the record stands in its file (None: on a line it shares), for a protocol's own checks.
    line: int | None = field(default=None, compare=False)
    # A digest of the segments' texts: what checking keeps of them when it keeps no texts
    # (`segments` and `sentences` are then None, and writing reads the file again).
    digest: bytes = field(default=b"", compare=False, repr=False)


@dataclass
class SpanSpec:
    segment: int
    start: int
    end: int
    text: str


@dataclass
class AnnotationSpec:
    category: str
    span: SpanSpec
    paired: SpanSpec | None = None
    comment: str = ""
    answers: dict = field(default_factory=dict)
    client_id: str = ""


@dataclass
class AssignmentSpec:
    document: str | None
    annotator: str
    platform: str = "import"
    kind: str = "main"
    block: str = ""
    active_seconds: int = 0
    submitted_at: str | None = None
    arm: str = ""  # the randomised arm (assisted studies), or ""
    feedback: str = ""  # what the worker wrote to the researchers, or ""
    annotations: list = field(default_factory=list)
    ratings: list = field(default_factory=list)  # [(document external id, score)]
    judgments: list = field(default_factory=list)  # [{"documents", "best", "worst", "value"}]
