"""The task API's limits, tested on both sides of each boundary."""

import pytest

from annotations.models import Assignment
from protocols.span.models import ErrorAnnotation
from tests.annotations.task_api import SEGMENT_TEXT, post

pytestmark = pytest.mark.django_db


def move_to(client, assignment, last):
    for segment in range(1, last + 1):
        assert post(client, "task-api-move", assignment, {"segment": segment}).status_code == 200


def span(client_id, segment, word, **extra):
    start = SEGMENT_TEXT.format(s=segment).index(word)
    return {"client_id": client_id, "category": "CharE", "segment": segment, "start": start,
            "end": start + len(word), "text": word, **extra}  # fmt: skip


def paired(client_id, segment, word, earlier_segment, earlier_word):
    earlier = span("", earlier_segment, earlier_word)
    return span(client_id, segment, word, category="RepE",
                paired={key: earlier[key] for key in ["segment", "start", "end", "text"]})  # fmt: skip


def test_submit_is_refused_with_the_last_segment_unread(client, assignment):
    move_to(client, assignment, 1)  # segments 0 and 1 of 3
    refused = post(client, "task-api-submit", assignment, {})
    assert refused.status_code == 400
    assert refused.json()["error"] == "read every segment before submitting"
    assert Assignment.objects.get(pk=assignment.pk).status != Assignment.Status.SUBMITTED


def test_submit_is_accepted_once_the_last_segment_is_read(client, assignment):
    move_to(client, assignment, 2)
    accepted = post(client, "task-api-submit", assignment, {})
    assert accepted.status_code == 200, accepted.json()
    assert accepted.json()["status"] == "submitted"


def test_a_comment_of_2000_characters_is_kept(client, assignment):
    response = post(client, "task-api-annotations", assignment, span("c1", 0, "Anna", comment="x" * 2000))
    assert response.status_code == 201
    assert ErrorAnnotation.objects.get().comment == "x" * 2000


def test_a_comment_of_2001_characters_is_refused(client, assignment):
    response = post(client, "task-api-annotations", assignment, span("c1", 0, "Anna", comment="x" * 2001))
    assert response.status_code == 400
    assert response.json()["error"] == "'comment' must be text of at most 2000 characters"
    assert not ErrorAnnotation.objects.exists()


def test_a_paired_span_may_repeat_one_earlier_in_the_same_segment(client, assignment):
    move_to(client, assignment, 1)
    response = post(client, "task-api-annotations", assignment, paired("c1", 1, "Ben", 1, "Anna"))
    assert response.status_code == 201, response.json()
    stored = ErrorAnnotation.objects.get()
    assert (stored.segment.index, stored.paired_segment.index, stored.paired_text) == (1, 1, "Anna")


def test_a_paired_span_in_a_later_segment_is_refused(client, assignment):
    move_to(client, assignment, 1)
    response = post(client, "task-api-annotations", assignment, paired("c1", 0, "Ben", 1, "Anna"))
    assert response.status_code == 400
    assert response.json()["error"] == "paired span: it must be in the same or an earlier segment"
    assert not ErrorAnnotation.objects.exists()
