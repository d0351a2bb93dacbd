import pytest
from django.test import Client

from tests.annotations.task_api import post
from tests.span_questions.questions import question_task


@pytest.fixture
def assignment():
    """An assignment of a three-segment document whose worker has reached the last segment."""
    assignment = question_task()
    for segment in (1, 2):
        assert post(Client(), "task-api-move", assignment, {"segment": segment}).status_code == 200
    return assignment
