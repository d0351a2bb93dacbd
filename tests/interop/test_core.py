"""Whole documents cut into segments of sentences, and the offsets mapped exactly."""

import json

import pytest

from bundles import BundleInvalid
from interop.categories import file_label, keys_for
from interop.segmenting import SpanOutside, join_segments, segment_document
from interop.services import study_export_annotations, study_import_annotations
from studies.models import Segment, Study

TEXTS = [
    "Anna met Ben. 😀 They laughed at the café!  Was it late? It was.\n\nThe end.\n",
    "  Cafe\u0301 e\u0301te\u0301. Zoe\u0308 came. 👩‍👩‍👧 smiled.",
    "今日は晴れです。明日は雨？そうですね！はい。",
]


@pytest.mark.parametrize("text", TEXTS)
@pytest.mark.parametrize("per_segment", [None, 1, 2, 3])
def test_segments_are_exact_slices_that_join_back_into_the_text(text, per_segment):
    cut = segment_document(text, per_segment)
    assert join_segments(cut.segments, cut.separators) == text
    for start, segment in zip(cut.starts, cut.segments, strict=True):
        assert text[start : start + len(segment)] == segment
        assert segment.strip() == segment or per_segment is None
    for segment, sentences in zip(cut.segments, cut.sentences, strict=True):
        assert all(0 <= a < b <= len(segment) for a, b in sentences)


def test_cjk_sentences_end_at_their_own_full_stops():
    cut = segment_document(TEXTS[2], 1)
    assert cut.segments == ["今日は晴れです。", "明日は雨？", "そうですね！", "はい。"]


def test_a_span_maps_into_its_segment_or_is_said_to_cross_a_border():
    text = TEXTS[0]
    cut = segment_document(text, 2)
    start = text.index("They")
    assert cut.locate(start, start + 4) == (0, start, start + 4)
    late = text.index("late")
    segment, a, b = cut.locate(late, late + 4)
    assert (segment, cut.segments[segment][a:b]) == (1, "late")
    with pytest.raises(SpanOutside, match="crosses the border between segments 0 and 1"):
        cut.locate(text.index("café"), late)


def test_labels_become_keys_and_keys_name_them_back():
    keys = keys_for(["InconE", "Named Entity", "Named-Entity!", "3rd person", "Named_Entity"])
    assert keys == {
        "InconE": "InconE", "Named Entity": "Named_Entity", "Named-Entity!": "Named-Entity",
        "3rd person": "L3rd_person", "Named_Entity": "Named_Entity-2",
    }  # fmt: skip
    assert file_label("Named_Entity", "Named Entity") == "Named Entity"
    assert file_label("CharE", "New character without introduction") == "CharE"


def ls_task(task_id, text, regions):
    return {
        "id": task_id, "data": {"text": text},
        "annotations": [{"id": task_id, "completed_by": 1, "result": [
            {"id": f"r{n}", "type": "labels", "from_name": "label", "to_name": "text",
             "value": {"start": text.index(needle), "end": text.index(needle) + len(needle), "text": needle,
                       "labels": ["Err"]}}
            for n, needle in enumerate(regions)]}],
    }  # fmt: skip


@pytest.mark.django_db
def test_sentences_per_segment_cut_documents_and_export_gives_each_text_back(tmp_path):
    path = tmp_path / "tasks.json"
    path.write_text(json.dumps([ls_task(1, TEXTS[0], ["late", "The end"]), ls_task(2, TEXTS[1], ["smiled"])]))
    study_import_annotations(path=path, fmt="label-studio", slug="cut", sentences_per_segment=2)
    study = Study.objects.get(slug="cut")
    first = list(Segment.objects.filter(document__study=study, document__external_id="1").order_by("index"))
    assert [s.text for s in first] == [
        "Anna met Ben. 😀 They laughed at the café!",
        "Was it late? It was.",
        "The end.",
    ]
    assert [s.sentences for s in first] == [[[0, 13], [14, 41]], [[0, 12], [13, 20]], [[0, 8]]]
    out = tmp_path / "out.json"
    study_export_annotations(study=study, fmt="label-studio", path=out)
    assert [task["data"]["text"] for task in json.loads(out.read_text())] == TEXTS[:2]


@pytest.mark.django_db
def test_a_span_across_a_segment_border_is_a_problem_not_cut(tmp_path):
    path = tmp_path / "tasks.json"
    path.write_text(json.dumps([ls_task(7, TEXTS[0], ["café!  Was it"])], indent=1))
    with pytest.raises(BundleInvalid) as raised:
        study_import_annotations(path=path, fmt="label-studio", slug="cross", sentences_per_segment=2)
    assert [str(p) for p in raised.value.problems] == [
        "tasks.json:2: task 7, annotation 7, region r0: Err [36, 49) crosses the border between segments 0 and 1"
    ]
    assert not Study.objects.exists()
    study_import_annotations(path=path, fmt="label-studio", slug="whole")  # one segment: no border to cross
