"""A review study bundle: two outputs, items of three evaluators, answers of two reviewers."""

import json

import yaml

OUTPUTS = {
    "game1": [
        "The Hawks beat the Bulls 102-99. Young scored 30 points.",
        "Young added 8 assists. The Hawks won again.",
    ],
    "game2": ["The Bulls lost at home. LaVine scored 25 points."],
}
DATA = {"game1": {"tables": [{"title": "Box score", "columns": ["player", "pts"],
                              "rows": [["Young", 30], ["<b>LaVine</b>", 28]]}]}}  # fmt: skip
ITEMS = [
    {"document": "game1", "evaluator": "gpt-4o", "span": "Young", "explanation": "Young scored 28, not 30."},
    {"document": "game1", "evaluator": "gpt-4o", "span": "Young", "occurrence": 2, "explanation": "Second one."},
    {"document": "game1", "evaluator": "llama-70b", "span": "102-99", "explanation": "The score was 102-98."},
    {"document": "game1", "evaluator": "llama-70b", "span": "won again", "explanation": "<script>alert(1)</script>"},
    {"document": "game1", "evaluator": "claude", "span": "", "explanation": "The text is too short."},
    {"document": "game2", "evaluator": "claude", "span": "Celtics", "explanation": "Hallucinated team."},
]  # fmt: skip


def write_review_bundle(directory, *, questions=None, answers=None, slug="review-study"):
    directory.mkdir(parents=True, exist_ok=True)
    study = {"slug": slug, "title": "Review of LLM evaluators", "protocol": "review", "annotators_per_document": 2,
             "status": "open", "config": {"questions": questions} if questions else {}}  # fmt: skip
    (directory / "study.yaml").write_text(yaml.safe_dump(study))
    (directory / "documents.jsonl").write_text("".join(
        json.dumps({"id": d, "segments": segs, "source": "Match report", "meta": {"data": DATA.get(d, {})}}) + "\n"
        for d, segs in OUTPUTS.items()))  # fmt: skip
    (directory / "review_items.jsonl").write_text("".join(json.dumps(i) + "\n" for i in ITEMS))
    if answers is not None:
        (directory / "assignments.jsonl").write_text("".join(json.dumps(a) + "\n" for a in answers))
    return directory
