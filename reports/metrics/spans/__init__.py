"""Span-study metrics (SNaC, Goyal et al. 2022; Scarecrow, Dou et al. 2022).

- :func:`span_report`: the whole report of a :class:`SpanStudy` as a dict;
- :func:`span_matches`: a worker's spans against reference spans;
- :func:`reference_scores`: sentence-level precision/recall/F1/overlap of one
  worker against a reference on one document;
- :func:`tokenize`: the tokeniser of token-level agreement.
"""

from reports.metrics.spans.data import Annotation, Span, SpanCategory, SpanDocument, SpanStudy
from reports.metrics.spans.layout import TOKEN_PATTERN, tokenize
from reports.metrics.spans.reference import ReferenceTally, SpanPair, reference_scores, span_matches
from reports.metrics.spans.report import span_report

__all__ = [
    "TOKEN_PATTERN",
    "Annotation",
    "ReferenceTally",
    "Span",
    "SpanCategory",
    "SpanDocument",
    "SpanPair",
    "SpanStudy",
    "reference_scores",
    "span_matches",
    "span_report",
    "tokenize",
]
