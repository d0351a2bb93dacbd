"""A span of another tool's file must lie in one segment once the document is cut into sentences:
ending exactly at a segment's end it is imported, one character further it is refused.

Every reader's regions go through the same check (interop.segmenting.Segmentation.locate);
here each reader meets it with "Anna met Ben. They left." cut one sentence a segment, and a
span over "Ben." (ending at segment 0's end) or "Ben. " (one character into the white space).
"""

import json

import pytest

from bundles import BundleInvalid
from interop.services import study_import_annotations
from protocols.span.models import ErrorAnnotation
from studies.models import Study

TEXT = "Anna met Ben. They left."
START = TEXT.index("Ben.")
SEGMENT_END = START + len("Ben.")  # 13: segment 0 is "Anna met Ben."


def label_studio(end, start=START):
    value = {"start": start, "end": end, "text": TEXT[start:end], "labels": ["Err"]}
    task = {"id": 1, "data": {"text": TEXT}, "annotations": [{"id": 1, "completed_by": 1, "result": [
        {"id": "r0", "type": "labels", "from_name": "label", "to_name": "text", "value": value}]}]}  # fmt: skip
    return "tasks.json", 2, json.dumps([task], indent=1)  # the task on line 2


def doccano(end, start=START):
    return "alice.jsonl", 1, json.dumps({"id": 1, "text": TEXT, "label": [[start, end, "Err"]]}) + "\n"


def potato(end, start=START):
    span = {"start": start, "end": end, "span": TEXT[start:end], "annotation": "Err"}
    line = {"user_id": "alice", "instance_id": "d1", "displayed_text": TEXT, "label_annotations": {},
            "span_annotations": [span]}  # fmt: skip
    return "annotated_instances.jsonl", 1, json.dumps(line) + "\n"


def factgenie(end, start=START):
    metadata = {"annotation_span_categories": [{"name": "Err"}], "annotator_id": "alice", "campaign_id": "c1"}
    record = {"dataset": "d", "split": "test", "example_idx": 0, "setup_id": "s", "output": TEXT,
              "metadata": metadata, "annotations": [{"type": 0, "text": TEXT[start:end], "start": start}]}  # fmt: skip
    return "records.jsonl", 1, json.dumps(record) + "\n"


READERS = {"label-studio": label_studio, "doccano": doccano, "potato": potato, "factgenie": factgenie}


def import_file(tmp_path, fmt, end, start=START):
    """Import the reader's file of one span [start, end), the text cut one sentence a segment."""
    name, _, content = READERS[fmt](end, start)
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    study_import_annotations(path=path, fmt=fmt, slug="borders", sentences_per_segment=1)


@pytest.mark.django_db
@pytest.mark.parametrize("fmt", READERS)
def test_a_span_ending_at_its_segments_end_is_imported(tmp_path, fmt):
    import_file(tmp_path, fmt, SEGMENT_END)
    study = Study.objects.get(slug="borders")
    assert [s.text for s in study.documents.get().segments.order_by("index")] == [
        "Anna met Ben.",
        "They left.",
    ]
    [span] = ErrorAnnotation.objects.filter(assignment__study=study)
    assert (span.segment.index, span.start, span.end, span.text) == (0, START, SEGMENT_END, "Ben.")


@pytest.mark.django_db
@pytest.mark.parametrize("fmt", READERS)
def test_a_span_one_character_past_its_segment_is_refused_and_nothing_is_written(tmp_path, fmt):
    with pytest.raises(BundleInvalid) as raised:
        import_file(tmp_path, fmt, SEGMENT_END + 1)
    [problem] = [str(problem) for problem in raised.value.problems]
    name, line, _ = READERS[fmt](SEGMENT_END + 1)
    assert problem.startswith(f"{name}:{line}: ")
    assert problem.endswith(f"Err [{START}, {SEGMENT_END + 1}) crosses the border between segments 0 and 1")
    assert not Study.objects.exists()
    assert not ErrorAnnotation.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("fmt", "unit"), [("doccano", "UTF-16 code units"), ("potato", "characters")]
)  # the readers whose regions give their end (factgenie's ends where its text does)
def test_the_last_segment_ends_at_the_texts_end_and_one_character_further_is_refused(tmp_path, fmt, unit):
    last = TEXT.index("left.")
    import_file(tmp_path, fmt, len(TEXT), start=last)
    assert ErrorAnnotation.objects.get().text == "left."
    Study.objects.all().delete()

    with pytest.raises(BundleInvalid) as raised:
        import_file(tmp_path, fmt, len(TEXT) + 1, start=last)
    [problem] = [str(problem) for problem in raised.value.problems]
    name, line, _ = READERS[fmt](len(TEXT) + 1, last)
    assert problem.startswith(f"{name}:{line}: ")
    assert problem.endswith(f": end {len(TEXT) + 1} is past the text's end ({len(TEXT)} {unit})")
    assert not Study.objects.exists()
