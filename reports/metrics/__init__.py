"""Agreement and reliability metrics: pure functions, no Django import.

Plain inputs (arrays, sequences, dataclasses) in, dataclasses or dicts out.
Definitions: METRICS.md; choices and sources: docs/metrics.md.
"""

from reports.metrics.alpha import (
    LEVELS,
    AlphaResult,
    alpha_from_counts,
    alpha_from_triples,
    krippendorff_alpha,
)

__all__ = ["LEVELS", "AlphaResult", "alpha_from_counts", "alpha_from_triples", "krippendorff_alpha"]
