"""A review bundle of more evaluator items than the import holds at once (protocols/review/bundle.py
keeps the checked items on disk, bundles/spool.py): every item is written, numbered per document
and labelled by its evaluator, and the reviewers' answers find items of every batch."""

import json

import pytest

from bundles.services import study_import_bundle
from bundles.spool import BATCH
from protocols.review.models import ReviewAnswer, ReviewItem
from tests.reviews.bundles import write_review_bundle

pytestmark = pytest.mark.django_db

MANY = BATCH + 250  # items of game1: the spool writes a batch to disk and keeps the rest


def answer(item):
    return {"item": item, "answers": {"span": "Error", "explanation": "Correct", "flags": []}}


def test_items_past_one_batch_are_all_written_and_answered(tmp_path):
    directory = write_review_bundle(tmp_path / "bundle", answers=[
        {"document": "game1", "annotator": "rev1", "answers": [answer(0), answer(BATCH), answer(MANY - 1)]},
    ])  # fmt: skip
    items = [{"document": "game1", "evaluator": f"model-{n % 3}", "span": "Young", "explanation": f"item {n}"}
             for n in range(MANY)] + [{"document": "game2", "evaluator": "model-9", "span": "LaVine",
                                       "explanation": "last"}]  # fmt: skip
    (directory / "review_items.jsonl").write_text("".join(json.dumps(item) + "\n" for item in items))

    study = study_import_bundle(directory=directory).study

    written = ReviewItem.objects.filter(document__study=study)
    assert written.count() == MANY + 1
    assert list(written.filter(document__external_id="game1").order_by("position").values_list(
        "position", "explanation", "label"
    )[BATCH - 1 : BATCH + 1]) == [
        (BATCH - 1, f"item {BATCH - 1}", f"Evaluator {'ABC'[(BATCH - 1) % 3]}"),
        (BATCH, f"item {BATCH}", f"Evaluator {'ABC'[BATCH % 3]}"),
    ]  # fmt: skip
    assert written.get(document__external_id="game2").label == "Evaluator D"
    answered = ReviewAnswer.objects.filter(assignment__study=study).order_by("item__position")
    assert [a.item.explanation for a in answered] == ["item 0", f"item {BATCH}", f"item {MANY - 1}"]
