import pytest

from protocols.span.assistance.sources import SuggestedSpan, suggestions_replace
from tests.factories import make_span_study

# make_span_study's segments: "Segment {s} of document 0. Anna met Ben."
ANNA = (25, 29)
BEN = (34, 37)


@pytest.fixture
def study():
    """A span study with assistance: one document of two segments, and three suggestions (Anna and
    Ben in segment 0, a paired repetition of Ben in segment 1)."""
    study = make_span_study(documents=1, segments=2, config={"assistance": {"share": 0.5}})
    document = study.documents.get()
    suggestions_replace(
        study=study,
        spans=[
            SuggestedSpan(document.pk, 0, *ANNA, "CharE"),
            SuggestedSpan(document.pk, 0, *BEN, "CharE"),
            SuggestedSpan(document.pk, 1, *BEN, "RepE", paired=(0, *BEN)),
        ],
        source="test",
    )
    return study
