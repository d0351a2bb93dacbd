"""Where an evaluator's span lands: code points, occurrences, offsets, earlier spans; the answer's shapes."""

import pytest

from evaluators.answers import MalformedAnswer, answer_items, placed_items
from evaluators.locating import Location, locate, locate_earlier

SEGMENTS = ["Zoë 👩‍👩‍👧 met 李雷. Zoë left.", "Then Zoë came back; 李雷 waved."]
CATEGORIES = {"CharE": "singleton", "RepE": "paired"}


def test_offsets_are_code_points_beyond_the_basic_plane():
    (place,) = locate("李雷", SEGMENTS, segment=0)
    assert place == Location(0, 14, 16) and SEGMENTS[0][14:16] == "李雷"


def test_every_occurrence_the_nth_or_the_first():
    assert locate("Zoë", SEGMENTS) == [Location(0, 0, 3), Location(0, 18, 21), Location(1, 5, 8)]
    assert locate("Zoë", SEGMENTS, occurrence=2) == [Location(0, 18, 21)]
    assert locate("Zoë", SEGMENTS, segment=1) == [Location(1, 5, 8)]
    assert locate("Zoë", SEGMENTS, every=False) == [Location(0, 0, 3)]
    assert locate("Zoë", SEGMENTS, occurrence=4) == []


def test_given_offsets_are_taken_only_when_they_hold_the_text():
    assert locate("met", SEGMENTS, segment=0, start=10, end=13) == [Location(0, 10, 13)]
    # Wrong offsets: found by the text instead.
    assert locate("met", SEGMENTS, segment=0, start=0, end=3) == [Location(0, 10, 13)]
    assert locate("", SEGMENTS, segment=1, start=0, end=4) == [Location(1, 0, 4)]
    assert locate("x", SEGMENTS, segment=7) == []


def test_quoted_or_padded_spans_are_found_without_their_quotes():
    assert locate(" “Zoë left.” ", SEGMENTS) == [Location(0, 18, 27)]


def test_the_earlier_span_is_the_first_occurrence_before_the_later_one():
    later = Location(1, 20, 22)
    assert locate_earlier("李雷", SEGMENTS, later) == Location(0, 14, 16)
    assert locate_earlier("waved", SEGMENTS, later) is None


@pytest.mark.parametrize(
    "content",
    [
        '{"errors": [{"category": "CharE", "span": "Zoë"}]}',
        '```json\n[{"category": "CharE", "span": "Zoë"}]\n```',
    ],
)
def test_answers_in_an_object_a_list_or_a_code_fence(content):
    assert answer_items(content)[0]["span"] == "Zoë"


@pytest.mark.parametrize("content", ["", "not json", '{"mistakes": []}', '{"errors": 3}', "null"])
def test_malformed_answers_say_why(content):
    with pytest.raises(MalformedAnswer):
        answer_items(content)


def test_items_of_the_wrong_shape_are_kept_and_marked():
    items = answer_items(
        '{"errors": [3, {"category": 5, "span": "x"}, {"category": "CharE", "span": "Zoë", "occurrence": 0},'
        ' {"category": "CharE", "span": ""}, {"category": "RepE", "span": "李雷", "segment": 2, "earlier_span": "李雷"}]}'
    )
    placed = placed_items(items, SEGMENTS, CATEGORIES)
    assert [item["status"] for item in placed] == ["invalid", "invalid", "invalid", "no_span", "found"]
    assert placed[4]["locations"] == [[1, 20, 22]] and placed[4]["earlier"] == [0, 14, 16]
