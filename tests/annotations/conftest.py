import pytest

from tests.factories import AssignmentFactory, make_span_study


@pytest.fixture
def assignment():
    """A task of one span-study document with three segments (text: task_api.SEGMENT_TEXT)."""
    study = make_span_study(documents=1, segments=3)
    return AssignmentFactory(document=study.documents.get())
