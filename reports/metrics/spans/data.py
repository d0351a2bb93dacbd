"""Plain inputs of the span-study metrics (the report task builds them from the database).

Offsets are Unicode code-point offsets into a segment's text, end exclusive
(``text[start:end]``), as everywhere in the project.
"""

from collections.abc import Sequence
from dataclasses import dataclass, field

MAIN = "main"
GOLD = "gold"
QUALIFICATION = "qualification"
MODEL = "model"  # an automatic evaluator's annotation: only the evaluator comparison reads it


@dataclass(frozen=True)
class SpanCategory:
    """A category of the study's taxonomy; ``group`` is e.g. SNaC's coherence or language."""

    key: str
    group: str
    paired: bool = False


@dataclass
class SpanDocument:
    """One text to judge: its segments and, per segment, the [start, end) offsets of its sentences.

    A segment without sentences counts as one sentence.
    """

    id: str
    system: str
    segments: list[str]
    sentences: list[list[tuple[int, int]]] = field(default_factory=list)
    input_id: str = ""  # the input the system answered: the ranking compares systems input by input


@dataclass(frozen=True)
class Span:
    """An error span: the primary span of an annotation.

    A paired category's second span (``paired_*``) may be carried along for
    display; every metric ignores it.
    """

    category: str
    segment: int
    start: int
    end: int
    paired_segment: int | None = None
    paired_start: int | None = None
    paired_end: int | None = None


@dataclass
class Annotation:
    """One assignment of one document: ``kind`` is "main", "gold", "qualification", ...

    ``segments_visited`` lists the segment index of every visit, in order.
    Unsubmitted annotations are ignored by every metric.
    """

    annotator: str
    document: str
    kind: str
    spans: list[Span]
    active_seconds: int = 0
    segments_visited: Sequence[int] = ()
    submitted: bool = True
    arm: str = ""  # the randomised arm of an assisted study ("suggestions", "control"), or ""


@dataclass
class SpanStudy:
    documents: list[SpanDocument]
    categories: list[SpanCategory]
    annotations: list[Annotation]
